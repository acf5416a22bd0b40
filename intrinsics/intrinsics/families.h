// Row families of the intrinsic table (intrinsics/*.def). A row is
//   INTRINSIC(name, "return type", "parameters with defaults", Lowering, isa instruction, data type, second type)
// and each family below writes the rows of one naming pattern. Names, parameter order, parameter types and
// defaults are those of the public TPC-C intrinsic reference; README.md in this directory describes the
// format and lists what is covered. Arguments: t = type tag (f32 bf16 f16 i32 u32 i16 u16 i8 u8), VT = its
// vector type, BT = the bool vector with one bit per lane (bool64/bool128/bool256), ST = its scalar type.
#pragma once

// ---------------------------------------------------------------------------------------------- vector

// v_<t>_<op>_b / _vb(a, b, switches, income, predicate, polarity): element-wise, b of type VB.
#define TPC_V_BINARY_B(op, Insn, t, VT, VB, BT)                                                              \
  INTRINSIC(v_##t##_##op##_b, VT,                                                                             \
            VT " a, " VB " b, int switches=0, " VT " income={}, bool predicate=1, bool polarity=0", Op, Insn, t, t) \
  INTRINSIC(v_##t##_##op##_vb, VT,                                                                            \
            VT " a, " VB " b, int switches, " VT " income, " BT " predicate, bool polarity=0", Op, Insn, t, t)
#define TPC_V_BINARY(op, Insn, t, VT, BT) TPC_V_BINARY_B(op, Insn, t, VT, VT, BT)

// v_<t>_<op>_b / _vb(a, switches, income, predicate, polarity); INC is the _b form's income default.
#define TPC_V_UNARY(op, Insn, t, VT, BT, INC)                                                                  \
  INTRINSIC(v_##t##_##op##_b, VT,                                                                              \
            VT " a, int switches=0, " VT " income=" INC ", bool predicate=1, bool polarity=0", Op, Insn, t, t)   \
  INTRINSIC(v_##t##_##op##_vb, VT, VT " a, int switches, " VT " income, " BT " predicate, bool polarity=0", Op, \
            Insn, t, t)

// v_<t>_<op>_b / _vb(a, b, c, switches, income, predicate, polarity): three sources (madd: a*b + c).
#define TPC_V_TERNARY(op, Insn, t, VT, BT)                                                                   \
  INTRINSIC(v_##t##_##op##_b, VT,                                                                             \
            VT " a, " VT " b, " VT " c, int switches=0, " VT " income={}, bool predicate=1, bool polarity=0", Op,  \
            Insn, t, t)                                                                                       \
  INTRINSIC(v_##t##_##op##_vb, VT,                                                                            \
            VT " a, " VT " b, " VT " c, int switches, " VT " income, " BT " predicate, bool polarity=0", Op, Insn, \
            t, t)

// v_<t>_mac_b / _vb(a, b, accumulator, switches, predicate, polarity): accumulator += a * b.
#define TPC_V_MAC(t, VT, BT)                                                                                 \
  INTRINSIC(v_##t##_mac_b, VT, VT " a, " VT " b, " VT " accumulator, int switches=0, bool predicate=1, bool polarity=0", \
            Mac, VpuMac, t, t)                                                                               \
  INTRINSIC(v_##t##_mac_vb, VT, VT " a, " VT " b, " VT " accumulator, int switches, " BT " predicate, bool polarity=0", \
            Mac, VpuMac, t, t)

// v_<t>_cmp_<cc>_b / _vb: comparison into a bool vector (the income is a bool vector too).
#define TPC_V_CMP(cc, Insn, t, VT, BT)                                                                       \
  INTRINSIC(v_##t##_cmp_##cc##_b, BT,                                                                        \
            VT " a, " VT " b, int switches=0, " BT " income={}, bool predicate=1, bool polarity=0", Op, Insn, t, t) \
  INTRINSIC(v_##t##_cmp_##cc##_vb, BT,                                                                       \
            VT " a, " VT " b, int switches, " BT " income, " BT " predicate, bool polarity=0", Op, Insn, t, t)

// v_<r>_sel_<cc>_<t>_b / _vb(a, b, c, d, ...): (a cc b) ? c : d, comparing type t, result type r (same width).
#define TPC_V_SEL(cc, Insn, r, RT, RBT, t, TT)                                                                  \
  INTRINSIC(v_##r##_sel_##cc##_##t##_b, RT,                                                                    \
            TT " a, " TT " b, " RT " c, " RT " d, int switches=0, " RT " income={}, bool predicate=1, bool polarity=0", \
            Op, Insn, t, r)                                                                                    \
  INTRINSIC(v_##r##_sel_##cc##_##t##_vb, RT,                                                                   \
            TT " a, " TT " b, " RT " c, " RT " d, int switches, " RT " income, " RBT " predicate, bool polarity=0", \
            Op, Insn, t, r)

// Every same-width (result, compared) pair the reference declares for sel_<cc>.
#define TPC_V_SEL_ALL(cc, Insn)                                                          \
  TPC_V_SEL(cc, Insn, f32, "float64", "bool64", f32, "float64")                         \
  TPC_V_SEL(cc, Insn, f32, "float64", "bool64", i32, "int64")                           \
  TPC_V_SEL(cc, Insn, f32, "float64", "bool64", u32, "uint64")                          \
  TPC_V_SEL(cc, Insn, i32, "int64", "bool64", f32, "float64")                           \
  TPC_V_SEL(cc, Insn, i32, "int64", "bool64", i32, "int64")                             \
  TPC_V_SEL(cc, Insn, i32, "int64", "bool64", u32, "uint64")                            \
  TPC_V_SEL(cc, Insn, u32, "uint64", "bool64", f32, "float64")                          \
  TPC_V_SEL(cc, Insn, u32, "uint64", "bool64", i32, "int64")                            \
  TPC_V_SEL(cc, Insn, u32, "uint64", "bool64", u32, "uint64")                           \
  TPC_V_SEL(cc, Insn, bf16, "bfloat128", "bool128", bf16, "bfloat128")                  \
  TPC_V_SEL(cc, Insn, bf16, "bfloat128", "bool128", f16, "half128")                     \
  TPC_V_SEL(cc, Insn, bf16, "bfloat128", "bool128", i16, "short128")                    \
  TPC_V_SEL(cc, Insn, bf16, "bfloat128", "bool128", u16, "ushort128")                   \
  TPC_V_SEL(cc, Insn, f16, "half128", "bool128", bf16, "bfloat128")                     \
  TPC_V_SEL(cc, Insn, f16, "half128", "bool128", f16, "half128")                        \
  TPC_V_SEL(cc, Insn, f16, "half128", "bool128", i16, "short128")                       \
  TPC_V_SEL(cc, Insn, f16, "half128", "bool128", u16, "ushort128")                      \
  TPC_V_SEL(cc, Insn, i16, "short128", "bool128", bf16, "bfloat128")                    \
  TPC_V_SEL(cc, Insn, i16, "short128", "bool128", f16, "half128")                       \
  TPC_V_SEL(cc, Insn, i16, "short128", "bool128", i16, "short128")                      \
  TPC_V_SEL(cc, Insn, i16, "short128", "bool128", u16, "ushort128")                     \
  TPC_V_SEL(cc, Insn, u16, "ushort128", "bool128", bf16, "bfloat128")                   \
  TPC_V_SEL(cc, Insn, u16, "ushort128", "bool128", f16, "half128")                      \
  TPC_V_SEL(cc, Insn, u16, "ushort128", "bool128", i16, "short128")                     \
  TPC_V_SEL(cc, Insn, u16, "ushort128", "bool128", u16, "ushort128")                    \
  TPC_V_SEL(cc, Insn, i8, "char256", "bool256", i8, "char256")                          \
  TPC_V_SEL(cc, Insn, i8, "char256", "bool256", u8, "uchar256")                         \
  TPC_V_SEL(cc, Insn, u8, "uchar256", "bool256", i8, "char256")                         \
  TPC_V_SEL(cc, Insn, u8, "uchar256", "bool256", u8, "uchar256")

// Tensor access. TB is the tensor parameter's type in ld_tnsr_b ("const int8_t" for most types).
#define TPC_V_TENSOR(t, VT, BT, TB)                                                                          \
  INTRINSIC(v_##t##_ld_tnsr_b, VT,                                                                           \
            "int5 ndx, " TB " tensor, int switches=0, " VT " income={}, bool predicate=1, bool polarity=0", LdTnsr, \
            LdTnsr, t, t)                                                                                    \
  INTRINSIC(v_##t##_ld_tnsr_vb, VT,                                                                          \
            "int5 ndx, int8_t tensor, int switches, " VT " income, " BT " predicate, bool polarity=0", LdTnsr, LdTnsr, t, t) \
  INTRINSIC(v_##t##_st_tnsr, "void",                                                                         \
            "int5 ndx, const int8_t tensor, " VT " value, int switches=0, bool predicate=1, bool polarity=0", StTnsr, \
            StTnsr, t, t)

// read_lane_id_<w>_b / _vb(income, predicate, polarity): lane i holds i.
#define TPC_V_LANE_ID(w, t, VT, BT)                                                                           \
  INTRINSIC(read_lane_id_##w##_b, VT, VT " income={}, bool predicate=1, bool polarity=0", Op, VpuLaneId, t, t) \
  INTRINSIC(read_lane_id_##w##_vb, VT, VT " income, " BT " predicate, bool polarity=0", Op, VpuLaneId, t, t)

// ---------------------------------------------------------------------------------------------- scalar

// s_<t>_<op>(a, b, switches, income, predicate, polarity), b of type SB and income of type IT.
#define TPC_S_BINARY_X(op, Insn, t, ST, SB, IT)                                                              \
  INTRINSIC(s_##t##_##op, ST, ST " a, " SB " b, int switches=0, " IT " income={}, bool predicate=1, bool polarity=0", \
            Op, Insn, t, t)
#define TPC_S_BINARY(op, Insn, t, ST) TPC_S_BINARY_X(op, Insn, t, ST, ST, ST)

// s_<t>_<op>(a, switches, income, predicate, polarity); INC is the income default.
#define TPC_S_UNARY(op, Insn, t, ST, INC)                                                                    \
  INTRINSIC(s_##t##_##op, ST, ST " a, int switches=0, " ST " income=" INC ", bool predicate=1, bool polarity=0", Op, \
            Insn, t, t)

// s_<t>_cmp_<cc>(a, b, ...): comparison into a scalar predicate.
#define TPC_S_CMP(cc, Insn, t, ST)                                                                           \
  INTRINSIC(s_##t##_cmp_##cc, "bool",                                                                        \
            ST " a, " ST " b, int switches=0, bool income={}, bool predicate=1, bool polarity=0", Op, Insn, t, t)

// s_<t>_mac(a, b, accumulator, switches, predicate, polarity): accumulator += a * b.
#define TPC_S_MAC(t, ST)                                                                                     \
  INTRINSIC(s_##t##_mac, ST, ST " a, " ST " b, " ST " accumulator, int switches=0, bool predicate=1, bool polarity=0", \
            Mac, SpuMac, t, t)
