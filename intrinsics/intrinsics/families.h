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

// Integer v_<t>_mul_b / _vb and v_<t>_mac_b / _vb: the products widen into the pair or quad RT (int128,
// uint128, int256, uint256); one mul_wide / mac_wide per member (Lowering::WideProduct).
#define TPC_V_MUL_WIDE(t, VT, BT, RT)                                                                         \
  INTRINSIC(v_##t##_mul_b, RT, VT " a, " VT " b, int switches=0, " RT " income={}, bool predicate=1, bool polarity=0", \
            WideProduct, VpuMulWide, t, t)                                                                    \
  INTRINSIC(v_##t##_mul_vb, RT, VT " a, " VT " b, int switches, " RT " income, " BT " predicate, bool polarity=0", \
            WideProduct, VpuMulWide, t, t)
#define TPC_V_MAC_WIDE(t, VT, BT, RT)                                                                         \
  INTRINSIC(v_##t##_mac_b, RT, VT " a, " VT " b, " RT " accumulator, int switches=0, bool predicate=1, bool polarity=0", \
            WideProduct, VpuMacWide, t, t)                                                                    \
  INTRINSIC(v_##t##_mac_vb, RT, VT " a, " VT " b, " RT " accumulator, int switches, " BT " predicate, bool polarity=0", \
            WideProduct, VpuMacWide, t, t)

// v_bf16_mul_acc32_b / _vb and v_bf16_mac_acc32_b / _vb (and f16): products of 16-bit floats as an f32
// pair, summed into the accumulator for mac, .v1 the even elements and .v2 the odd ones (the order of
// v_convert_bf16_to_f32_all_b); one mul_wide / mac_wide per member.
#define TPC_V_MAC_ACC32(t, VT, BT)                                                                            \
  INTRINSIC(v_##t##_mul_acc32_b, "float128",                                                                  \
            VT " a, " VT " b, int switches=0, float128 income={}, bool predicate=1, bool polarity=0", WideProduct, \
            VpuMulWide, t, t)                                                                                 \
  INTRINSIC(v_##t##_mul_acc32_vb, "float128",                                                                 \
            VT " a, " VT " b, int switches, float128 income, " BT " predicate, bool polarity=0", WideProduct,     \
            VpuMulWide, t, t)                                                                                 \
  INTRINSIC(v_##t##_mac_acc32_b, "float128",                                                                  \
            VT " a, " VT " b, float128 accumulator, int switches=0, bool predicate=1, bool polarity=0",         \
            WideProduct, VpuMacWide, t, t)                                                                    \
  INTRINSIC(v_##t##_mac_acc32_vb, "float128",                                                                 \
            VT " a, " VT " b, float128 accumulator, int switches, " BT " predicate, bool polarity=0", WideProduct, \
            VpuMacWide, t, t)

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

// ---------------------------------------------------------------------------------------------- more families
// (rows in the other .def files of this directory, included at the end of core.def)

// Calls X(t, VT, BT, ST) for every data type.
#define TPC_FOR_EACH_TYPE(X)                     \
  X(f32, "float64", "bool64", "float")           \
  X(bf16, "bfloat128", "bool128", "bf16")        \
  X(f16, "half128", "bool128", "half")           \
  X(i32, "int64", "bool64", "int32_t")           \
  X(u32, "uint64", "bool64", "uint32_t")         \
  X(i16, "short128", "bool128", "int16_t")       \
  X(u16, "ushort128", "bool128", "uint16_t")     \
  X(i8, "char256", "bool256", "int8_t")          \
  X(u8, "uchar256", "bool256", "uint8_t")

// Local memory: addr is a byte address (scalar local memory for s_*, vector local memory for v_*).
#define TPC_LOCAL_MEMORY(t, VT, BT, ST)                                                                        \
  INTRINSIC(s_##t##_ld_l, ST, "uint32_t addr, int switches=0, " ST " income={}, bool predicate=1, bool polarity=0", \
            Op, LdL, t, t)                                                                                     \
  INTRINSIC(s_##t##_st_l, "void", "uint32_t addr, " ST " value, int switches=0, bool predicate=1, bool polarity=0", \
            Store, StL, t, t)                                                                                  \
  INTRINSIC(v_##t##_ld_l_v_b, VT,                                                                              \
            "uint32_t addr, int switches=0, " VT " income={}, bool predicate=1, bool polarity=0", Op, LdLV, t, t) \
  INTRINSIC(v_##t##_ld_l_v_vb, VT, "uint32_t addr, int switches, " VT " income, " BT " predicate, bool polarity=0", \
            Op, LdLV, t, t)                                                                                    \
  INTRINSIC(v_##t##_st_l_v, "void",                                                                            \
            "uint32_t addr, " VT " value, int switches=0, bool predicate=1, bool polarity=0", Store, StLV, t, t) \
  INTRINSIC(v_##t##_st_l_v_vb, "void", "uint32_t addr, " VT " value, int switches, " BT " predicate, bool polarity=0", \
            Store, StLV, t, t)

// Global memory through gen_addr pointers (AD registers). v_<t>_ld_g broadcasts one element to all lanes.
#define TPC_GLOBAL_MEMORY(t, VT, BT, ST)                                                                       \
  INTRINSIC(s_##t##_ld_g, ST, "__global void* addr, int switches=0, " ST " income={}, bool predicate=1, bool polarity=0", \
            Op, LdG, t, t)                                                                                     \
  INTRINSIC(v_##t##_ld_g, VT, "__global void* addr, int switches=0, " VT " income={}, bool predicate=1, bool polarity=0", \
            LdGBroadcast, LdG, t, t)                                                                           \
  INTRINSIC(v_##t##_ld_g_vb, VT, "__global void* addr, int switches, " VT " income, " BT " predicate, bool polarity=0", \
            LdGBroadcast, LdG, t, t)                                                                           \
  INTRINSIC(s_##t##_st_g, "void", "__global void* addr, " ST " value, int switches=0, bool predicate=1, bool polarity=0", \
            Store, StG, t, t)

// int5 operations on the dimensions selected by dimmask; the others keep income.
#define TPC_I_BINARY(op, Insn)                                                                                 \
  INTRINSIC(i_i32_##op, "int5",                                                                                \
            "int5 a, int5 b, const int dimmask, int switches, int5 income, bool predicate=1, bool polarity=0", Op, \
            Insn, i32, i32)

// Predicate logic: s_i1_* on scalar predicates, v_i1_*_b/_vb on bool256.
#define TPC_S_I1_BINARY(op, Insn)                                                                              \
  INTRINSIC(s_i1_##op, "bool", "bool a, bool b, int switches=0, bool income={}, bool predicate=1, bool polarity=0", \
            Op, Insn, f32, f32)
#define TPC_V_I1_BINARY(op, Insn)                                                                              \
  INTRINSIC(v_i1_##op##_b, "bool256",                                                                          \
            "bool256 a, bool256 b, int switches=0, bool256 income={}, bool predicate=1, bool polarity=0", Op, Insn, \
            f32, f32)                                                                                          \
  INTRINSIC(v_i1_##op##_vb, "bool256",                                                                         \
            "bool256 a, bool256 b, int switches, bool256 income, bool256 predicate, bool polarity=0", Op, Insn, f32, f32)
#define TPC_V_I1_UNARY(op, Insn, AT)                                                                           \
  INTRINSIC(v_i1_##op##_b, "bool256", AT " a, int switches=0, bool256 income={}, bool predicate=1, bool polarity=0", \
            Op, Insn, f32, f32)                                                                                \
  INTRINSIC(v_i1_##op##_vb, "bool256", AT " a, int switches, bool256 income, bool256 predicate, bool polarity=0", Op, \
            Insn, f32, f32)

// Conversions. S: scalar; V: vector with the same lane count (_b/_vb); HL: the high-level convert_* of the
// reference between same-count vector types (options: rounding mode; SW_LINEAR is accepted, the order of
// lanes being the same either way).
#define TPC_S_CONVERT(x, XT, y, YT)                                                                            \
  INTRINSIC(s_convert_##x##_to_##y, YT, XT " src, int switches=0, " YT " income={}, bool predicate=1, bool polarity=0", \
            Op, SpuConvert, x, y)
#define TPC_V_CONVERT(x, VX, y, VY, BT)                                                                        \
  INTRINSIC(v_convert_##x##_to_##y##_b, VY,                                                                    \
            VX " src, int switches=0, " VY " income={}, bool predicate=1, bool polarity=0", Op, VpuConvert, x, y) \
  INTRINSIC(v_convert_##x##_to_##y##_vb, VY, VX " src, int switches, " VY " income, " BT " predicate, bool polarity=0", \
            Op, VpuConvert, x, y)
// Down-converts to a narrower type, into every r-th lane from `lane` (r the width ratio): income and switches
// have no defaults; BT is the bool vector the reference types the _vb predicate with.
#define TPC_V_CONVERT_LANE(x, VX, y, VY, BT)                                                                   \
  INTRINSIC(v_convert_##x##_to_##y##_b, VY,                                                                    \
            VX " src, const int lane, int switches, " VY " income, bool predicate=1, bool polarity=0", Op, VpuConvert, x, y) \
  INTRINSIC(v_convert_##x##_to_##y##_vb, VY,                                                                   \
            VX " src, const int lane, int switches, " VY " income, " BT " predicate, bool polarity=0", Op, VpuConvert, x, y)
// Up-converts to a wider type (no lane): result lane k from source lane r*k (r the width ratio), as public
// kernels use them after unpacking bytes into the low byte of each 32-bit lane. BT: one bit per result lane.
#define TPC_V_CONVERT_WIDEN(x, VX, y, VY, BT)                                                                  \
  INTRINSIC(v_convert_##x##_to_##y##_b, VY,                                                                    \
            VX " src, int switches=0, " VY " income={}, bool predicate=1, bool polarity=0", ConvertWiden, VpuConvert, x, y) \
  INTRINSIC(v_convert_##x##_to_##y##_vb, VY, VX " src, int switches, " VY " income, " BT " predicate, bool polarity=0", \
            ConvertWiden, VpuConvert, x, y)
#define TPC_HL_CONVERT(a, b, x, y) INTRINSIC(convert_##a##_to_##b, #b, #a " a, const int options", Op, VpuConvert, x, y)

// Tensor access forms: partial (size = lanes - 1, offset), read-modify-write, low/high halves.
#define TPC_TENSOR_FORMS(t, VT, BT, ST)                                                                        \
  INTRINSIC(v_##t##_ld_tnsr_low_b, VT,                                                                         \
            "int5 ndx, int8_t tensor, int switches=0, " VT " income={}, bool predicate=1, bool polarity=0",        \
            LdTnsrLow, LdTnsrPartial, t, t)                                                                    \
  INTRINSIC(v_##t##_ld_tnsr_low_vb, VT,                                                                        \
            "int5 ndx, int8_t tensor, int switches, " VT " income, " BT " predicate, bool polarity=0", LdTnsrLow,  \
            LdTnsrPartial, t, t)                                                                               \
  INTRINSIC(v_##t##_ld_tnsr_high_b, VT,                                                                        \
            "int5 ndx, int8_t tensor, int switches=0, " VT " income={}, bool predicate=1, bool polarity=0",        \
            LdTnsrHigh, LdTnsrPartial, t, t)                                                                   \
  INTRINSIC(v_##t##_ld_tnsr_high_vb, VT,                                                                       \
            "int5 ndx, int8_t tensor, int switches, " VT " income, " BT " predicate, bool polarity=0", LdTnsrHigh, \
            LdTnsrPartial, t, t)                                                                               \
  INTRINSIC(v_##t##_ld_tnsr_partial_b, VT,                                                                     \
            "int5 ndx, int8_t tensor, int8_t size, int8_t offset, int switches=0, " VT " income={}, bool predicate=1, " \
            "bool polarity=0", LdTnsr, LdTnsrPartial, t, t)                                                    \
  INTRINSIC(v_##t##_ld_tnsr_partial_vb, VT,                                                                    \
            "int5 ndx, int8_t tensor, int8_t size, int8_t offset, int switches, " VT " income, " BT " predicate, "     \
            "bool polarity=0", LdTnsr, LdTnsrPartial, t, t)                                                    \
  INTRINSIC(v_##t##_st_tnsr_partial, "void",                                                                   \
            "int5 ndx, int8_t tensor, " VT " value, int8_t size, int8_t offset, int switches=0, bool predicate=1, "    \
            "bool polarity=0", StTnsr, StTnsrPartial, t, t)                                                    \
  INTRINSIC(v_##t##_st_tnsr_rmw, "void",                                                                       \
            "int5 ndx, int8_t tensor, " VT " value, int rmw, int switches=0, bool predicate=1, bool polarity=0", StTnsr, \
            StTnsr, t, t)                                                                                      \
  INTRINSIC(v_##t##_st_tnsr_partial_rmw, "void",                                                               \
            "int5 ndx, int8_t tensor, " VT " value, int rmw, int8_t size, int8_t offset, int switches=0, "             \
            "bool predicate=1, bool polarity=0", StTnsr, StTnsrPartial, t, t)                                  \
  INTRINSIC(v_##t##_st_tnsr_low, "void",                                                                       \
            "int5 ndx, const int8_t tensor, " VT " value, int switches=0, bool predicate=1, bool polarity=0",        \
            StTnsrLow, StTnsr, t, t)                                                                           \
  INTRINSIC(v_##t##_st_tnsr_high, "void",                                                                      \
            "int5 ndx, const int8_t tensor, " VT " value, int switches=0, bool predicate=1, bool polarity=0",        \
            StTnsrHigh, StTnsr, t, t)                                                                          \
  INTRINSIC(v_##t##_st_tnsr_low_rmw, "void",                                                                   \
            "int5 ndx, int8_t tensor, " VT " value, int rmw, int switches=0, bool predicate=1, bool polarity=0",    \
            StTnsrLow, StTnsr, t, t)                                                                           \
  INTRINSIC(v_##t##_st_tnsr_high_rmw, "void",                                                                  \
            "int5 ndx, int8_t tensor, " VT " value, int rmw, int switches=0, bool predicate=1, bool polarity=0",    \
            StTnsrHigh, StTnsr, t, t)

// mov_dual_group: the byte mask b and the group-write switches must select whole dual groups.
// v_<t>_shuffle_b / _vb(a, uchar256 b, switches, income, ...): no defaults before predicate.
#define TPC_SHUFFLE(t, VT, BT, ST)                                                                             \
  INTRINSIC(v_##t##_shuffle_b, VT,                                                                             \
            VT " a, uchar256 b, int switches, " VT " income, bool predicate=1, bool polarity=0", Op, VpuShuffle, t, \
            t)                                                                                                 \
  INTRINSIC(v_##t##_shuffle_vb, VT, VT " a, uchar256 b, int switches, " VT " income, " BT " predicate, bool polarity=0", \
            Op, VpuShuffle, t, t)

// v_<t>_mov_group_b / _vb(a, uint32_t b, switches, income, ...): b is the byte write mask of a group.
#define TPC_MOV_GROUP(t, VT, BT, ST)                                                                           \
  INTRINSIC(v_##t##_mov_group_b, VT,                                                                           \
            VT " a, uint32_t b, int switches, " VT " income, bool predicate=1, bool polarity=0", Op, VpuMovGroup, t, \
            t)                                                                                                 \
  INTRINSIC(v_##t##_mov_group_vb, VT, VT " a, uint32_t b, int switches, " VT " income, " BT " predicate, bool polarity=0", \
            Op, VpuMovGroup, t, t)

// v_<t>_pack_b / _vb and v_<t>_unpack_b / _vb(a, switches, income, ...): no defaults before predicate.
#define TPC_PACK_UNPACK(op, Insn, t, VT, BT)                                                                   \
  INTRINSIC(v_##t##_##op##_b, VT, VT " a, int switches, " VT " income, bool predicate=1, bool polarity=0", Op,   \
            Insn, t, t)                                                                                        \
  INTRINSIC(v_##t##_##op##_vb, VT, VT " a, int switches, " VT " income, " BT " predicate, bool polarity=0", Op, \
            Insn, t, t)

#define TPC_MOV_DUAL_GROUP(t, VT, BT, ST)                                                                      \
  INTRINSIC(v_##t##_mov_dual_group_b, VT,                                                                      \
            VT " a, const uint32_t b, const int src_dg, const int dest_dg, int switches, " VT " income, "             \
            "bool predicate=1, bool polarity=0", MovDualGroup, VpuMovDualGroup, t, t)                          \
  INTRINSIC(v_##t##_mov_dual_group_vb, VT,                                                                     \
            VT " a, const uint32_t b, const int src_dg, const int dest_dg, int switches, " VT " income, " BT           \
            " predicate, bool polarity=0", MovDualGroup, VpuMovDualGroup, t, t)                                \
  INTRINSIC(v_##t##_mov_dual_group_all_b, VT,                                                                  \
            VT " a, const uint32_t b, const int sdg0, const int sdg1, const int sdg2, const int sdg3, int switches, " \
            VT " income, bool predicate=1, bool polarity=0", MovDualGroupAll, VpuMovDualGroup, t, t)           \
  INTRINSIC(v_##t##_mov_dual_group_all_vb, VT,                                                                 \
            VT " a, const uint32_t b, const int sdg0, const int sdg1, const int sdg2, const int sdg3, int switches, " \
            VT " income, " BT " predicate, bool polarity=0", MovDualGroupAll, VpuMovDualGroup, t, t)

// Floating-point helpers: calc_fp_special (function in the switches' low bits), form_fp_num.
#define TPC_FP_HELPERS(t, VT, BT, ST)                                                                          \
  INTRINSIC(v_##t##_calc_fp_special_b, VT,                                                                     \
            VT " src1, " VT " src2, int switches, " VT " income, bool predicate=1, bool polarity=0", Op,             \
            VpuCalcFpSpecial, t, t)                                                                            \
  INTRINSIC(v_##t##_calc_fp_special_vb, VT,                                                                    \
            VT " src1, " VT " src2, int switches, " VT " income, " BT " predicate, bool polarity=0", Op,             \
            VpuCalcFpSpecial, t, t)                                                                            \
  TPC_V_TERNARY(form_fp_num, VpuFormFpNum, t, VT, BT)
