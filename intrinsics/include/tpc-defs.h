// tpc-defs.h: the built-in types and switch constants of TPC-C, included implicitly by tpc-clang.
// Type names, layouts and constant values follow the public TPC-C definitions (interface facts); this
// file is our own.
#ifndef TPC_DEFS_H_INCLUDED
#define TPC_DEFS_H_INCLUDED

#ifndef __cplusplus
#define bool _Bool
#define true 1
#define false 0
#endif

// Fixed-width scalar types, predefined as kernels written for the vendor's compiler expect: int32_t is
// `long int` (32 bits here), which lets such kernels also declare `typedef long int int32_t;` themselves.
// The guards keep Clang's <stdint.h> from defining them again differently.
#define __int8_t_defined
#define __uint32_t_defined
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef long int int32_t;
typedef unsigned long int uint32_t;
typedef long long int64_t;  // for <stdint.h>; the core has no 64-bit scalar arithmetic

// Scalar floating-point types.
#define _BFloat16 __bf16
typedef __bf16 bf16;
typedef __bf16 bfloat;
#if !defined(__gaudi__)
typedef _Float16 half;  // no f16 on the first Gaudi
#endif

// 2048-bit vectors.
typedef float __attribute__((ext_vector_type(64))) float64;
typedef int __attribute__((ext_vector_type(64))) int64;
typedef unsigned int __attribute__((ext_vector_type(64))) uint64;
typedef short __attribute__((ext_vector_type(128))) short128;
typedef unsigned short __attribute__((ext_vector_type(128))) ushort128;
typedef char __attribute__((ext_vector_type(256))) char256;
typedef unsigned char __attribute__((ext_vector_type(256))) uchar256;
typedef __bf16 __attribute__((ext_vector_type(128))) bfloat128;
#if !defined(__gaudi__)
typedef _Float16 __attribute__((ext_vector_type(128))) half128;
#endif

// Index-space coordinates (an index register).
typedef int __attribute__((ext_vector_type(5))) int5;

// Bit-packed predicate vectors: one bit per lane.
typedef unsigned char __attribute__((ext_vector_type(32))) bool256;
typedef unsigned char __attribute__((ext_vector_type(16))) bool128;
typedef unsigned char __attribute__((ext_vector_type(8))) bool64;

// Pairs of vectors (two registers), with members v1 and v2.
#define TPC_PAIR(Name, T1, T2) \
  typedef struct _##Name { T1 v1; T2 v2; } Name;
TPC_PAIR(float64_pair_t, float64, float64)
TPC_PAIR(int64_pair_t, int64, int64)
TPC_PAIR(uint64_pair_t, uint64, uint64)
TPC_PAIR(bfloat128_pair_t, bfloat128, bfloat128)
#if !defined(__gaudi__)
TPC_PAIR(half128_pair_t, half128, half128)
#endif
TPC_PAIR(short128_pair_t, short128, short128)
TPC_PAIR(ushort128_pair_t, ushort128, ushort128)
TPC_PAIR(char256_pair_t, char256, char256)
TPC_PAIR(uchar256_pair_t, uchar256, uchar256)
TPC_PAIR(float64_int64_pair_t, float64, int64)
TPC_PAIR(float64_uint64_pair_t, float64, uint64)
TPC_PAIR(int64_float64_pair_t, int64, float64)
TPC_PAIR(uint64_float64_pair_t, uint64, float64)
TPC_PAIR(bfloat128_short128_pair_t, bfloat128, short128)
TPC_PAIR(short128_bfloat128_pair_t, short128, bfloat128)
// (lane index, value) pairs of the lane reductions v_<t>_reduce_argmin/argmax.
TPC_PAIR(uint64_int64_pair_t, uint64, int64)
TPC_PAIR(uint64_uint64_pair_t, uint64, uint64)
TPC_PAIR(ushort128_bfloat128_pair_t, ushort128, bfloat128)
TPC_PAIR(ushort128_short128_pair_t, ushort128, short128)
TPC_PAIR(ushort128_ushort128_pair_t, ushort128, ushort128)
TPC_PAIR(uchar256_char256_pair_t, uchar256, char256)
TPC_PAIR(uchar256_uchar256_pair_t, uchar256, uchar256)
#undef TPC_PAIR
typedef float64_pair_t float128;
typedef int64_pair_t int128;
typedef uint64_pair_t uint128;
typedef bfloat128_pair_t bfloat256;
#if !defined(__gaudi__)
typedef half128_pair_t half256;
#endif
typedef short128_pair_t short256;
typedef ushort128_pair_t ushort256;
typedef char256_pair_t char512;
typedef uchar256_pair_t uchar512;
typedef struct _float256 { float64 v1, v2, v3, v4; } float256;
typedef struct _int256 { int64 v1, v2, v3, v4; } int256;
typedef struct _uint256 { uint64 v1, v2, v3, v4; } uint256;

// Reinterpretation of a value as another type of the same size.
#define as_float(x) __builtin_bit_cast(float, (x))
#define as_int(x) __builtin_bit_cast(int, (x))
#define as_uint(x) __builtin_bit_cast(unsigned int, (x))
#define as_float64(x) __builtin_bit_cast(float64, (x))
#define as_int64(x) __builtin_bit_cast(int64, (x))
#define as_uint64(x) __builtin_bit_cast(uint64, (x))
#define as_short128(x) __builtin_bit_cast(short128, (x))
#define as_ushort128(x) __builtin_bit_cast(ushort128, (x))
#define as_char256(x) __builtin_bit_cast(char256, (x))
#define as_uchar256(x) __builtin_bit_cast(uchar256, (x))
#define as_bfloat128(x) __builtin_bit_cast(bfloat128, (x))
#if !defined(__gaudi__)
#define as_half128(x) __builtin_bit_cast(half128, (x))
#endif

// Address spaces: __local__ is the core's local memory (scalar or vector by element type), __global__
// global memory.
#define __local __attribute__((address_space(1)))
#define __local__ __local
#define __global __attribute__((address_space(2)))
#define __global__ __global

// printf of a string with at most one value (a scalar or a vector lane); tpc-sim prints it per core.
#ifdef __cplusplus
extern "C" int printf(const char* format, ...);
#else
int printf(const char* format, ...);
#endif

// A tensor parameter is the tensor's number (its position among the kernel's tensor parameters).
typedef int tensor;

// Instruction switches: the values of the public TPC-C definitions.
enum {
  SW_SAT = 0x1 << 0,
  SW_NO_SAT = 0x1 << 0,
  SW_CARRY = 0x1 << 1,
  SW_NO_CARRY_GEN = 0x1 << 2,
  SW_RHU = 0x1 << 1,
  SW_NEG = 0x1 << 1,
  SW_MASK_EQ_ZERO = 0x1 << 0,
  SW_SUP_NAN = 0x1 << 2,
  // CONVERT / NEARBYINT rounding.
  SW_RHNE = 0x0 << 16,
  SW_RZ = 0x1 << 16,
  SW_RU = 0x2 << 16,
  SW_RD = 0x3 << 16,
  SW_SR = 0x4 << 16,
  SW_CSR = 0x5 << 16,
  SW_RHAZ = 0x6 << 16,
  SW_SR_RNE = 0x7 << 16,
  SW_CLIP_FP = 0x1 << 20,
  SW_LINEAR = 0x1 << 24,
  // CALC_FP_SPECIAL functions.
  SW_RECIP = 0x0,
  SW_RSQRT = 0x1,
  SW_SQRT = 0x2,
  SW_LOG = 0x3,
  SW_EXP = 0x4,
  SW_TANH = 0x5,
  SW_DIV = 0x6,
  SW_POW = 0x7,
  // FORM_FP_NUMBER.
  SW_ADD_BIAS = 0x1 << 8,
  SW_FORCE_SIGN0 = 0x1 << 9,
  SW_FORCE_SIGN1 = 0x1 << 10,
  SW_EXP_IS_NUM = 0x1 << 11,
  SW_SIGN_LSB = 0x1 << 12,
  // ST_TNSR read-modify-write selector (rmw_sel argument).
  RMW_DT_INT8 = 0x0,
  RMW_DT_INT16 = 0x1,
  RMW_DT_INT32 = 0x2,
  RMW_DT_UINT8 = 0x3,
  RMW_DT_UINT16 = 0x4,
  RMW_DT_UINT32 = 0x5,
  RMW_DT_BF16 = 0x6,
  RMW_DT_FP32 = 0x7,
  RMW_DT_FP16 = 0x8,
  RMW_OP_ADD = 0x0 << 4,
  RMW_OP_SUB = 0x1 << 4,
  RMW_OP_MIN = 0x2 << 4,
  RMW_OP_MAX = 0x3 << 4,
  RMW_OP_MAX_0_ADD = 0x4 << 4,
  RMW_TNSR_DT = 0x1 << 7,
  RMW_SET = 0x1 << 8,
  SW_PACK = 0x1 << 2,
  // MOV_DUAL_GROUP: which groups of the destination dual group(s) are written.
  SW_WR_LOWER_GROUP = 0x1 << 12,
  SW_WR_UPPER_GROUP = 0x1 << 13,
  SW_WR_LOWER_GROUP0 = 0x1 << 16,
  SW_WR_UPPER_GROUP0 = 0x1 << 17,
  SW_WR_LOWER_GROUP1 = 0x1 << 18,
  SW_WR_UPPER_GROUP1 = 0x1 << 19,
  SW_WR_LOWER_GROUP2 = 0x1 << 20,
  SW_WR_UPPER_GROUP2 = 0x1 << 21,
  SW_WR_LOWER_GROUP3 = 0x1 << 22,
  SW_WR_UPPER_GROUP3 = 0x1 << 23,
  SW_PACK21 = 0x0 << 2,
  SW_PACK41 = 0x1 << 2,
  SW_UNPACK_EVEN_LANES = 0x0 << 2,
  SW_UNPACK_ODD_LANES = 0x1 << 2,
  // MOV_GROUP: groups and dual groups written.
  SW_GROUP0_EN = 0x1 << 0,
  SW_GROUP1_EN = 0x1 << 1,
  SW_DUAL_GROUP0_EN = 0x1 << 2,
  SW_DUAL_GROUP1_EN = 0x1 << 3,
  SW_DUAL_GROUP2_EN = 0x1 << 4,
  SW_DUAL_GROUP3_EN = 0x1 << 5,
  // PACK / UNPACK.
  SW_GROUP_0 = 0x0 << 8,
  SW_GROUP_1 = 0x1 << 8,
  SW_STRIDE_2 = 0x0 << 9,
  SW_STRIDE_4 = 0x1 << 9,
  SW_GROUP_HALF_0 = 0x0 << 10,
  SW_GROUP_HALF_1 = 0x1 << 10,
  SW_UNPACK_LANE_0 = 0x0 << 11,
  SW_UNPACK_LANE_1 = 0x1 << 11,
  SW_UNPACK_LANE_2 = 0x2 << 11,
  SW_UNPACK_LANE_3 = 0x3 << 11,
  // The rest of the public switch names. An intrinsic given a switch it does not implement is a compile
  // error naming the bits (intrinsics/intrinsics/README.md), so these only let kernels that spell them, for
  // intrinsics that ignore or reject them, compile as they do with the vendor's compiler.
  SW_INC = 0x0 << 8,  // ASO / EVENT
  SW_DEC = 0x1 << 8,
  SW_SPU = 0x0 << 8,
  SW_VPU = 0x2 << 8,
  SW_SB = 0x1 << 0,  // CACHE_INVALIDATE
  SW_D = 0x1 << 1,
  SW_LU = 0x1 << 2,
  SW_RST_LU = 0x1 << 3,
  SW_RST_D_PREF = 0x1 << 4,
  SW_INV_LOG = 0x1 << 6,
  SW_L2 = 0x1 << 3,  // PREFETCH
  SW_DT_INT8 = 0x0,  // GEN_ADDR
  SW_DT_INT16 = 0x1,
  SW_DT_INT32 = 0x2,
  SW_DT_UINT8 = 0x3,
  SW_DT_UINT16 = 0x4,
  SW_DT_UINT32 = 0x5,
  SW_DT_BF16 = 0x6,
  SW_DT_FP32 = 0x7,
  SW_DT_FP16 = 0x8,
  SW_DT_FP8_152 = 0x9,
  SW_DT_FP8_143 = 0xa,
  SW_DT_INT64 = 0xb,
  SW_DT_OVERRIDE = 0x1 << 4,
  SW_PAD = 0x1 << 6,
  SW_NO_INV = 0x1 << 0,  // CACHE_FLUSH
  SW_BIASED = 0x1 << 0,  // EXTRACT_EXP
  SW_PRE_LOG = 0x1 << 1,
  SW_FIND_ZERO = 0x0 << 0,  // FIND_FIRST
  SW_FIND_ONE = 0x1 << 0,
  SW_LSB = 0x0 << 1,
  SW_MSB = 0x1 << 1,
  SW_PRE_SQRT_RSQRT = (0x1 << 13) | SW_FORCE_SIGN0,  // FORM_FP_NUMBER function forms
  SW_POST_SQRT = (0x2 << 13) | SW_FORCE_SIGN0,
  SW_POST_RSQRT = (0x3 << 13) | SW_FORCE_SIGN0,
  SW_POST_RECIP = (0x4 << 13) | SW_ADD_BIAS,
  SW_PRE_LOG_FUNC = 0x5 << 13,
  SW_LUT_TANH = 0x1 << 13,  // GET_LUT_ENTRY_AND_INTERVAL_START
  SW_LUT_SQRT_RSQRT = 0x2 << 13,
  SW_LUT_SIN_COS = 0x3 << 13,
  SW_LUT_LOG = 0x4 << 13,
  SW_SLM = 0x0 << 0,  // LD_L / ST_L
  SW_MMIO = 0x1 << 0,
  SW_LOCK = 0x1 << 1,
  SW_UNLOCK = 0x1 << 1,
  SW_AUTO_INC_1_V = 0x1 << 0,  // LD_L_V / ST_L_V
  SW_AUTO_INC_2_V = 0x2 << 0,
  SW_AUTO_INC_4_V = 0x3 << 0,
  SW_INC_1 = 0x1,  // LD_G / ST_G
  SW_INC_2 = 0x2,
  SW_INC_4 = 0x3,
  SW_INC_8 = 0x4,
  SW_BV64 = 0x1 << 4,
  SW_L0CS = 0x1 << 5,
  SW_L0CD = 0x1 << 5,
  SW_EV_HINT = 0x1 << 6,
  SW_PD = 0x1 << 15,
  SW_UNPCK_16_TO_32 = 0x0 << 1,  // LD_TNSR
  SW_UNPCK_8_TO_16 = 0x1 << 1,
  SW_UNPCK_8_TO_32 = 0x2 << 1,
  SW_UNPCK_4_TO_8 = 0x3 << 1,
  SW_UNPACK = 0x1 << 4,
  SW_BV32 = 0x0 << 0,  // LOOKUP
  SW_BV16 = 0x1 << 0,
  SW_BV8_0 = 0x2 << 0,
  SW_BV8_1 = 0x3 << 0,
  SW_UPPER_HALF = 0x1 << 2,
  SW_LUT_PTR = 0x1 << 3,
  SW_X2 = 0x1 << 4,
  SW_SBCD = 0x1 << 5,
  SW_NO_NEG = 0x0 << 1,  // MAC / MADD
  SW_NEG_ZP = 0x1 << 6,
  SW_NORMALIZE_AB = 0x0 << 2,  // MSAC
  SW_NORMALIZE_C = 0x1 << 2,
  SW_KEEP_RS = 0x2 << 0,  // MUL
  SW_KEEP_RS_FOR_ADD = 0x3 << 0,
  SW_LOWER32 = 0x0 << 2,
  SW_UPPER32 = 0x1 << 2,
  SW_COUNT_ZEROS = 0x0 << 0,  // POPCNT
  SW_COUNT_ONES = 0x1 << 0,
  SW_ST_TNSR_S_BV64 = 0x1 << 2,  // ST_TNSR_S
  SW_PCK_32_TO_16 = 0x0 << 4,    // ST_TNSR pack forms
  SW_PCK_16_TO_8 = 0x1 << 4,
  SW_PCK_32_TO_8 = 0x2 << 4,
  SW_PCK_8_TO_4 = 0x3 << 4,
  RMW_DT_FP8_152 = 0x9,
  SW_CNT_ONLY = 0x1 << 0,  // ST_TNSR_SQZ
  SW_FLUSH = 0x1 << 4,
  SW_NO_BORROW_GEN = 0x1 << 2,  // SUB
  SW_BORROW = 0x1 << 3,
  SW_X2_UDIV_4STEP = 0x1 << 6,  // UDIV
  SW_DIV_MODE_DIV = 0x0 << 0,
  SW_DIV_MODE_MOD = 0x1 << 0,
  SW_DIV_MODE_BOTH = 0x2 << 0,
  SW_READ_ONLY = 1,  // READ_LFSR
};

// Switch fields under their instruction-database names.
enum {
  SW_GROUP_HALF = 1 << 10,
  SW_SUBTRACT_BIAS = 1 << 0,
  SW_GROUP_RND32 = 0x03,
  SW_NO_ROUND = 0,
  SW_PACK_DT = 0x03 << 4,
  SW_GROUP_SOURCE = 1 << 8,
  SW_ELEMENT_STRIDE = 1 << 9,
  SW_LANE_0 = 0,
  SW_LANE_1 = 0x1,
  SW_LANE_2 = 0x2,
  SW_LANE_3 = 0x3,
  SW_LD_G_PARTIAL = 1 << 7,
  SW_NUM_LANES_SRCB = 1 << 6,
  SW_LOWER_LANES = 2 << 6,
  SW_UPPER_LANES = 3 << 6,
  SW_ALL_LANES_SRCB = 0,
  SW_SINGLE_LANE_SRCB = SW_NUM_LANES_SRCB,
};

// Data-type codes.
enum {
  SW_TYPE = 0x0f,
  SW_FP32 = 0,
  SW_BF16 = 1,
  SW_INT32 = 2,
  SW_UINT32 = 3,
  SW_INT8 = 4,
  SW_UINT8 = 5,
  SW_BOOL = 6,
  SW_INT16 = 7,
  SW_UINT16 = 8,
  SW_INT4 = 9,
  SW_UINT4 = 10,
  SW_FP16 = 11,
  SW_FP8_152 = 12,
  SW_FP8_143 = 13,
  SW_INT64 = 14,
};

// Named values of switch fields (the public tpc-special.h enumerations), as kernels shift them into place
// (`e_round_down << 16`).
typedef enum _e_round_mode {
  e_round_half_ne = 0,
  e_round_zero = 1,
  e_round_up = 2,
  e_round_down = 3,
  e_round_stochastic = 4,
  e_round_half_az = 6
} e_round_mode;
typedef enum _e_negation { e_no_negation = 0, e_with_negation = 1 } e_negation;
typedef enum _e_aso_access_type { e_aso_prefetch = 0, e_aso_commit = 1 } e_aso_access_type;
typedef enum _e_return_bits { e_return_lower_32 = 0, e_return_upper_32 = 1 } e_return_bits;
typedef enum _e_group_source { e_group_0 = 0, e_group_1 = 1 } e_group_source;
typedef enum _e_element_stride { e_every_second_element = 0, e_every_forth_element = 1 } e_element_stride;
typedef enum _e_group_half { e_lower_half_group = 0, e_higher_half_group = 1 } e_group_half;
typedef enum _e_abc_int_norm_sel { e_normalize_ab = 0, e_normalize_c = 1 } e_abc_int_norm_sel;
typedef enum _e_access_type { e_access_slm = 0, e_access_mmio = 1 } e_access_type;
typedef enum _e_saturation { e_no_saturation = 0, e_saturate = 1 } e_saturation;
typedef enum _e_compare_value { e_compare_bit_0 = 0, e_compare_bit_1 = 1 } e_compare_value;
typedef enum _e_search_dir { e_start_from_lsb = 0, e_start_from_msb = 1 } e_search_dir;
typedef enum _e_mov_flavor {
  e_bits_0_31 = 0,
  e_bits_32_63 = 1,
  e_bits_64_95 = 2,
  e_bits_96_127 = 3,
  e_bits_128_159 = 4,
  e_bits_160_191 = 5,
  e_bits_192_223 = 6,
  e_bits_224_255 = 7,
  e_standard_mov = 8
} e_mov_flavor;
typedef enum _e_aso_op { e_aso_increment = 0, e_aso_decrement = 1 } e_aso_op;
typedef enum _e_count_type { e_count_zeros = 0, e_count_ones = 1 } e_count_type;
typedef enum _e_mul_behavior { e_mul_default = 0, e_doube_and_round = 1 } e_mul_behavior;
typedef enum _e_lookup_data_type { e_lookup_fp32 = 0, e_lookup_bv16 = 1 } e_lookup_data_type;
typedef enum _e_func_variant {
  e_func_variant_default = 0,
  e_func_variant_tanh = 1,
  e_func_variant_sqrt_rsqrt = 2,
  e_func_variant_sin_cos = 3
} e_func_variant;
typedef enum _e_fp_special_values {
  e_fp_nan = 0,
  e_fp_pos_inf = 1,
  e_fp_neg_inf = 2,
  e_fp_negative = 3,
  e_fp_zero = 4,
  e_fp_positive = 5,
  e_fp_denormalized = 6
} e_fp_special_values;
typedef enum _e_prefetch_level { e_prefetch_l1 = 0, e_prefetch_l2 = 1, e_prefetch_l3 = 3 } e_prefetch_level;
typedef enum _e_calc_fp_special {
  e_fp_recip = 0,
  e_fp_rsqrt = 1,
  e_fp_sqrt = 2,
  e_fp_log = 3,
  e_fp_exp = 4,
  e_fp_tanh = 5,
  e_fp_div = 6,
  e_fp_pow = 7
} e_calc_fp_special;
typedef enum _e_rmw_datatype {
  e_rmw_int8 = 0,
  e_rmw_int16 = 1,
  e_rmw_int32 = 2,
  e_rmw_uint8 = 3,
  e_rmw_uint16 = 4,
  e_rmw_uint32 = 5,
  e_rmw_bf16 = 6,
  e_rmw_fp32 = 7
} e_rmw_datatype;
typedef enum _e_rmw_op { e_rmw_add = 0, e_rmw_sub = 1, e_rmw_min = 2, e_rmw_max = 3 } e_rmw_op;
typedef enum _e_rmw_set { e_rmw_plain = 0, e_rmw_atomic = 1 } e_rmw_set;
typedef enum _e_tnsr_dt_location { e_tnsr_dt_srf = 0, e_tnsr_dt_desc = 1 } e_tnsr_dt_location;

// Lookup tables (docs/isa.md, "Lookup tables"): the table ids of v_f32_lookup_1c/_2c, with the vendor's
// names and numbers. The fp32 tables are built in (their contents are ours: docs/special-functions.md); a
// lookup in one of the others is a compile error that says so.
typedef enum _e_function_id {
  e_fp32_tanh = 0,
  e_fp32_rsqrt = 1,
  e_fp32_log2 = 2,
  e_i8_sqrt = 3,
  e_u16_sqrt = 4,
  e_u32_power4 = 5,
  e_i8_sqrt_c0 = 6,
  e_u16_sqrt_c0 = 7,
  e_fp32_sqrt = 128,
  e_fp32_rcp = 129,
  e_fp32_sin_cos = 130,
  e_bf16_rcp_scalar_m7 = 131,
  e_bf16_sin_cos_scalar_m7 = 132,
  e_bf16_sin_cos_linear_m6 = 133,
  e_bf16_sin_cos_poly2_m6_c2c1 = 134,
  e_bf16_sin_cos_poly2_m6_c0 = 135,
  e_bf16_log2_linear_interleaved_m5 = 136,
  e_fp32_pow2 = 256,
  e_bf16_tanh = 257,
  e_i16_tanh = 258,
  e_i16_sigmoid = 259,
  e_i16_exp_neg = 260,
  e_i16_rcp = 261,
  e_i8_tanh_linear = 262,
  e_i8_sigmoid_linear = 263,
  e_i8_exp_linear = 264,
  e_bf16_tanh_c0 = 265,
  e_i16_tanh_c0 = 266,
  e_i16_sigmoid_c0 = 267,
  e_i16_exp_neg_c0 = 268,
  e_i16_rcp_c0 = 269,
  e_i8_tanh_linear_c0 = 270,
  e_i8_sigmoid_linear_c0 = 271,
  e_i8_exp_linear_c0 = 272,
  e_bf16_tanh_linear_m4 = 273,
  e_bf16_tanh_poly2_m4_c2c1 = 274,
  e_bf16_tanh_poly2_m4_c0 = 275,
  e_bf16_sqrt_scalar_m6 = 276,
  e_bf16_log2_linear_m5 = 277,
  e_bf16_sin_cos_linear_m5 = 278,
  e_bf16_sin_cos_poly_m5_c2c1 = 279,
  e_bf16_sin_cos_poly2_m5_co = 280,
  e_bf16_rcp_m7_c0 = 288,
  e_bf16_rsqrt = 384,
  e_bf16_log2 = 385,
  e_bf16_sqrt = 386,
  e_f16_sqrt_poly_m2_c2c1 = 386,
  e_bf16_rcp = 387,
  e_bf16_sin_cos = 388,
  e_bf16_pow2 = 389,
  e_i8_tanh = 390,
  e_bf16_rsqrt_c0 = 391,
  e_bf16_log2_c0 = 392,
  e_bf16_sqrt_c0 = 393,
  e_f16_sqrt_poly_m2_c0 = 393,
  e_bf16_rcp_c0 = 394,
  e_bf16_sin_cos_c0 = 395,
  e_bf16_pow2_c0 = 396,
  e_i8_tanh_c0 = 397,
  e_bf16_rcp_scalar = 398,
  e_f16_rcp_poly_m3_c2c1 = 398,
  e_bf16_rcp_linear_m2 = 399,
  e_bf16_rcp_linear_m3 = 400,
  e_bf16_rcp_linear_m4 = 401,
  e_bf16_rcp_poly_m2_c2c1 = 402,
  e_bf16_rcp_poly_m3_c2c1 = 403,
  e_bf16_rcp_poly_m4_c2c1 = 404,
  e_bf16_rcp_poly_m2_c0 = 405,
  e_bf16_rcp_poly_m3_c0 = 406,
  e_bf16_rcp_poly_m4_c0 = 407,
  e_f16_rcp_poly_m3_c0 = 408,
  e_bf16_sqrt_linear_m2 = 409,
  e_bf16_sqrt_linear_m3 = 410,
  e_bf16_sqrt_linear_m4 = 411,
  e_bf16_sqrt_poly2_m2_c2c1 = 412,
  e_bf16_sqrt_poly2_m3_c2c1 = 413,
  e_bf16_sqrt_poly2_m4_c2c1 = 414,
  e_bf16_sqrt_poly2_m2_c0 = 415,
  e_bf16_sqrt_poly2_m3_c0 = 416,
  e_bf16_sqrt_poly2_m4_c0 = 417,
  e_bf16_tanh_linear_m2 = 418,
  e_bf16_tanh_linear_m3 = 419,
  e_bf16_tanh_poly2_m2_c2c1 = 421,
  e_bf16_tanh_poly2_m3_c2c1 = 422,
  e_bf16_tanh_poly2_m2_c0 = 424,
  e_bf16_tanh_poly2_m3_c0 = 425,
  e_bf16_log2ml_linear_m4 = 426,
  e_bf16_sin_cos_linear_m2 = 427,
  e_bf16_sin_cos_linear_m3 = 428,
  e_bf16_sin_cos_linear_m4 = 429,
  e_bf16_sin_cos_poly2_m2_c2c1 = 430,
  e_bf16_sin_cos_poly2_m2_c0 = 431,
  e_bf16_sin_cos_poly2_m3_c2c1 = 432,
  e_bf16_sin_cos_poly2_m3_c0 = 433,
  e_bf16_sin_cos_poly2_m4_c2c1 = 434,
  e_bf16_sin_cos_poly2_m4_c0 = 435,
  e_f16_rsqrt_poly_m3_c2c1 = 440,
  e_f16_rsqrt_poly_m3_c0 = 441,
  e_f16_pow2_poly_m2_c2c1 = 444,
  e_f16_pow2_poly_m2_c0 = 445,
} e_function_id;

// A user lookup table (v_f32_lookup*, SW_LUT_PTR, function id (table << 2) | 3) is read from tensor t's
// memory: table k starts 256 * k bytes after t's first element.
#define set_lut_32(t) __set_lut_ptr(gen_addr((int5){0, 0, 0, 0, 0}, (t)))

// Switch words of v_<t>_mov_dual_group_all_b (a write-enable pair per destination dual group) and of
// v_<t>_mov_dual_group_b.
#define MkWrA(w0, w1, w2, w3) (((w0) << 16) | ((w1) << 18) | ((w2) << 20) | ((w3) << 22))
#define MkWr(l, u) (((l) ? SW_WR_LOWER_GROUP : 0) | ((u) ? SW_WR_UPPER_GROUP : 0))

// The rmw selector of v_<t>_st_tnsr_rmw from its parts (e_rmw_datatype, e_rmw_op, e_rmw_set,
// e_tnsr_dt_location), in the field layout of RMW_* above on every -march.
#define MkRMW(dt, op, rmw, dl) ((dt) | ((op) << 4) | ((rmw) << 8) | ((dl) << 7))

// The pad value of tensor `a` (what reads outside it return), as each element type: the descriptor holds
// 32 bits, and a 16- or 8-bit type reads its low bits. `a` is a tensor number, a constant as for get_dim_size.
#define get_pad_value_float(a) __builtin_bit_cast(float, __tensor_pad_bits(a))
#define get_pad_value_int(a) ((int)__tensor_pad_bits(a))
#define get_pad_value_uint(a) ((unsigned int)__tensor_pad_bits(a))
#define get_pad_value_short(a) ((short)__tensor_pad_bits(a))
#define get_pad_value_ushort(a) ((unsigned short)__tensor_pad_bits(a))
#define get_pad_value_char(a) ((char)__tensor_pad_bits(a))
#define get_pad_value_uchar(a) ((unsigned char)__tensor_pad_bits(a))
#define get_pad_value_bf16(a) __builtin_bit_cast(bf16, (unsigned short)__tensor_pad_bits(a))

// The core's SEMAPHORE register, which aso counts: an MMIO register at 0xD74 on gaudi2 and gaudi3. None is
// modelled on gaudi, where an access is a kernel fault that says so.
#if defined(__gaudi__)
#define __TPC_MMIO_SEMAPHORE 0u
#else
#define __TPC_MMIO_SEMAPHORE 0xD74u
#endif
#define get_semaphore_value() ((int)s_u32_ld_l(__TPC_MMIO_SEMAPHORE, SW_MMIO))
#define set_semaphore_value(value) s_u32_st_l(__TPC_MMIO_SEMAPHORE, (unsigned int)(value), SW_MMIO)

// Lane numbers as vectors of 32-, 16- and 8-bit elements.
#define V_LANE_ID_32 read_lane_id_4b_b()
#define V_LANE_ID_16 read_lane_id_2b_b()
#define V_LANE_ID_8 read_lane_id_1b_b()

// Lookup switch shorthands.
#define UPPER_HALF (1 << 2)
#if !defined(__gaudi__)
#define LUT_PTR (1 << 3)
#define X2 (1 << 4)
#endif

#endif
