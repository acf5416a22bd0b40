// Row families of the intrinsic table (intrinsics/*.def). A row is
//   INTRINSIC(name, "return type", "parameters with defaults", Lowering, isa instruction, data type, second type)
// and the families below write the many rows that follow one naming pattern. Names, parameter order and
// defaults follow the public TPC-C intrinsic reference.
#pragma once

// v_<t>_<op>_b / _vb: element-wise binary operation with switches, income and predicate.
#define TPC_V_BINARY(op, Insn, t, VT, BT)                                                                     \
  INTRINSIC(v_##t##_##op##_b, VT,                                                                             \
            VT " a, " VT " b, int switches=0, " VT " income={}, bool predicate=1, bool polarity=0", Op, Insn, t, t) \
  INTRINSIC(v_##t##_##op##_vb, VT,                                                                            \
            VT " a, " VT " b, int switches, " VT " income, " BT " predicate, bool polarity=0", Op, Insn, t, t)

// v_<t>_<op>_b / _vb: element-wise unary operation.
#define TPC_V_UNARY(op, Insn, t, VT, BT)                                                                       \
  INTRINSIC(v_##t##_##op##_b, VT, VT " a, int switches=0, " VT " income={}, bool predicate=1, bool polarity=0", \
            Op, Insn, t, t)                                                                                    \
  INTRINSIC(v_##t##_##op##_vb, VT, VT " a, int switches, " VT " income, " BT " predicate, bool polarity=0", Op, \
            Insn, t, t)

// v_<t>_mac_b / _vb: accumulator += a * b.
#define TPC_V_MAC(t, VT, BT)                                                                                 \
  INTRINSIC(v_##t##_mac_b, VT, VT " a, " VT " b, " VT " accumulator, int switches=0, bool predicate=1, bool polarity=0", \
            Mac, VpuMac, t, t)                                                                               \
  INTRINSIC(v_##t##_mac_vb, VT, VT " a, " VT " b, " VT " accumulator, int switches, " BT " predicate, bool polarity=0", \
            Mac, VpuMac, t, t)

// v_<t>_cmp_<cc>_b / _vb: comparison into a bool vector.
#define TPC_V_CMP(cc, Insn, t, VT, BT)                                                                       \
  INTRINSIC(v_##t##_cmp_##cc##_b, BT,                                                                        \
            VT " a, " VT " b, int switches=0, " BT " income={}, bool predicate=1, bool polarity=0", Op, Insn, t, t) \
  INTRINSIC(v_##t##_cmp_##cc##_vb, BT,                                                                       \
            VT " a, " VT " b, int switches, " BT " income, " BT " predicate, bool polarity=0", Op, Insn, t, t)

// Tensor access.
#define TPC_V_TENSOR(t, VT, BT)                                                                              \
  INTRINSIC(v_##t##_ld_tnsr_b, VT,                                                                           \
            "int5 ndx, int8_t tensor, int switches=0, " VT " income={}, bool predicate=1, bool polarity=0", LdTnsr, \
            LdTnsr, t, t)                                                                                    \
  INTRINSIC(v_##t##_ld_tnsr_vb, VT,                                                                          \
            "int5 ndx, int8_t tensor, int switches, " VT " income, " BT " predicate, bool polarity=0", LdTnsr, LdTnsr, t, t) \
  INTRINSIC(v_##t##_st_tnsr, "void", "int5 ndx, int8_t tensor, " VT " value, int switches=0, bool predicate=1, bool polarity=0", \
            StTnsr, StTnsr, t, t)

// s_<t>_<op>: scalar binary operation.
#define TPC_S_BINARY(op, Insn, t, ST)                                                                        \
  INTRINSIC(s_##t##_##op, ST, ST " a, " ST " b, int switches=0, " ST " income=0, bool predicate=1, bool polarity=0", \
            Op, Insn, t, t)
