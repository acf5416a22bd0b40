// Element types of the integer and logical kernels (logic.c): compiled with -DDT_U8, -DDT_I8, -DDT_U16,
// -DDT_I16, -DDT_U32, -DDT_I32 or -DDT_F32 (mod's float form). VT is the vector type, S the scalar type,
// LANES its elements, BITS an element's width; SEL_LESS(a, b, c, d) and SEL_EQ(a, b, c, d) are a < b ? c : d
// and a == b ? c : d lane by lane, in the type's own order (signed or not).
#pragma once

#define INT_TYPE_(VT_, S_, LANES_, BITS_, t)                                                               \
  typedef VT_ VT;                                                                                         \
  typedef S_ S;                                                                                           \
  enum { LANES = LANES_, BITS = BITS_ };
#if defined(DT_U8)
INT_TYPE_(uchar256, unsigned char, 256, 8, u8)
#define T_(name) v_u8_##name
#define LD_SCALAR(c, t) s_u8_ld_g(gen_addr(c, t))
#define SEL_LESS(a, b, c, d) v_u8_sel_less_u8_b(a, b, c, d)
#define SEL_EQ(a, b, c, d) v_u8_sel_eq_u8_b(a, b, c, d)
#elif defined(DT_I8)
INT_TYPE_(char256, signed char, 256, 8, i8)
#define T_(name) v_i8_##name
#define LD_SCALAR(c, t) s_i8_ld_g(gen_addr(c, t))
#define SEL_LESS(a, b, c, d) v_i8_sel_less_i8_b(a, b, c, d)
#define SEL_EQ(a, b, c, d) v_i8_sel_eq_i8_b(a, b, c, d)
#elif defined(DT_U16)
INT_TYPE_(ushort128, unsigned short, 128, 16, u16)
#define T_(name) v_u16_##name
#define LD_SCALAR(c, t) s_u16_ld_g(gen_addr(c, t))
#define SEL_LESS(a, b, c, d) v_u16_sel_less_u16_b(a, b, c, d)
#define SEL_EQ(a, b, c, d) v_u16_sel_eq_u16_b(a, b, c, d)
#elif defined(DT_I16)
INT_TYPE_(short128, short, 128, 16, i16)
#define T_(name) v_i16_##name
#define LD_SCALAR(c, t) s_i16_ld_g(gen_addr(c, t))
#define SEL_LESS(a, b, c, d) v_i16_sel_less_i16_b(a, b, c, d)
#define SEL_EQ(a, b, c, d) v_i16_sel_eq_i16_b(a, b, c, d)
#elif defined(DT_U32)
INT_TYPE_(uint64, unsigned int, 64, 32, u32)
#define T_(name) v_u32_##name
#define LD_SCALAR(c, t) s_u32_ld_g(gen_addr(c, t))
#define SEL_LESS(a, b, c, d) v_u32_sel_less_u32_b(a, b, c, d)
#define SEL_EQ(a, b, c, d) v_u32_sel_eq_u32_b(a, b, c, d)
#elif defined(DT_I32)
INT_TYPE_(int64, int, 64, 32, i32)
#define T_(name) v_i32_##name
#define LD_SCALAR(c, t) s_i32_ld_g(gen_addr(c, t))
#define SEL_LESS(a, b, c, d) v_i32_sel_less_i32_b(a, b, c, d)
#define SEL_EQ(a, b, c, d) v_i32_sel_eq_i32_b(a, b, c, d)
#elif defined(DT_F32)
INT_TYPE_(float64, float, 64, 32, f32)
#define T_(name) v_f32_##name
#define LD_SCALAR(c, t) s_f32_ld_g(gen_addr(c, t))
#define SEL_LESS(a, b, c, d) v_f32_sel_less_f32_b(a, b, c, d)
#define SEL_EQ(a, b, c, d) v_f32_sel_eq_f32_b(a, b, c, d)
#else
#error "compile with -DDT_U8, _I8, _U16, _I16, _U32, _I32 or _F32"
#endif
#define LD(c, t) T_(ld_tnsr_b)(c, t)
#define STORE(c, t, v) T_(st_tnsr)(c, t, v)
