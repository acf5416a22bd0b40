// Shorthands used by the instruction tables (*.def). Operand kinds are bit masks of register files.
#pragma once
#define K_NONE 0u
#define K_V (1u << 1)
#define K_S (1u << 2)
#define K_I (1u << 3)
#define K_SP (1u << 4)
#define K_VP (1u << 5)
#define K_AD (1u << 6)
#define K_IMM (1u << 7)
// Element-type masks (bit i = tpc::DType i).
#define T_NONE 0u
#define T_F32 (1u << 0)
#define T_BF16 (1u << 1)
#define T_F16 (1u << 2)
#define T_I32 (1u << 3)
#define T_U32 (1u << 4)
#define T_I16 (1u << 5)
#define T_U16 (1u << 6)
#define T_I8 (1u << 7)
#define T_U8 (1u << 8)
#define T_FLOAT (T_F32 | T_BF16 | T_F16)
#define T_INT (T_I32 | T_U32 | T_I16 | T_U16 | T_I8 | T_U8)
#define T_ALL (T_FLOAT | T_INT)
#define T_W32 (T_F32 | T_I32 | T_U32)
