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

typedef signed int int32_t;
typedef unsigned int uint32_t;
typedef signed short int16_t;
typedef unsigned short uint16_t;
typedef signed char int8_t;
typedef unsigned char uint8_t;

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
};

// Lookup tables (our own, piecewise linear: docs/isa.md): the functions of v_f32_lookup_1c/_2c, and their
// fid argument, which also carries the interval shift given to v_f32_get_lut_entry_and_interval_start_b.
enum {
  TPC_LUT_RECIP = 0,
  TPC_LUT_RSQRT = 1,
  TPC_LUT_SQRT = 2,
  TPC_LUT_LOG2 = 3,
  TPC_LUT_EXP2 = 4,
  TPC_LUT_SIN = 5,
  TPC_LUT_COS = 6,
  TPC_LUT_TANH = 7,
};
#define TPC_LUT_FID(function, shift) ((function) | ((shift) << 8))

// Switch words of v_<t>_mov_dual_group_all_b (a write-enable pair per destination dual group) and of
// v_<t>_mov_dual_group_b.
#define MkWrA(w0, w1, w2, w3) (((w0) << 16) | ((w1) << 18) | ((w2) << 20) | ((w3) << 22))
#define MkWr(l, u) (((l) ? SW_WR_LOWER_GROUP : 0) | ((u) ? SW_WR_UPPER_GROUP : 0))

#endif
