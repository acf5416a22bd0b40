// Element moves by size, for the kernels that copy elements without looking at their values (move.c,
// concat.c, gather.c): compiled with -DBITS_32 (f32, i32, u32), -DBITS_16 (bf16, f16, i16, u16) or -DBITS_8
// (i8, u8). MVT is the vector of raw elements, MLANES its lanes; IN_LANES(v, lo, hi, w) keeps the lanes l
// of v with lo <= l < hi and takes w's elsewhere (0 <= lo, hi <= MLANES).
#pragma once

#if defined(BITS_32)
#define MVT int64
#define MST_T int
#define MLANES 64
#define MLD(c, t) v_i32_ld_tnsr_b(c, t)
#define MST(c, t, v) v_i32_st_tnsr(c, t, v)
#define MSLD(c, t) s_i32_ld_g(gen_addr(c, t))
#define MSST(c, t, v) s_i32_st_g(gen_addr(c, t), v)
#define LANE_IDS_ read_lane_id_4b_b()
#define IN_LANES(v, lo, hi, w) \
  v_i32_sel_less_u32_b(LANE_IDS_, (uint64)(unsigned)(lo), w, v_i32_sel_less_u32_b(LANE_IDS_, (uint64)(unsigned)(hi), v, w))
#elif defined(BITS_16)
#define MVT short128
#define MST_T short
#define MLANES 128
#define MLD(c, t) v_i16_ld_tnsr_b(c, t)
#define MST(c, t, v) v_i16_st_tnsr(c, t, v)
#define MSLD(c, t) s_i16_ld_g(gen_addr(c, t))
#define MSST(c, t, v) s_i16_st_g(gen_addr(c, t), v)
#define LANE_IDS_ read_lane_id_2b_b()
#define IN_LANES(v, lo, hi, w)                                                                                  \
  v_i16_sel_less_u16_b(LANE_IDS_, (ushort128)(unsigned short)(lo), w,                                           \
                       v_i16_sel_less_u16_b(LANE_IDS_, (ushort128)(unsigned short)(hi), v, w))
#elif defined(BITS_8)
#define MVT char256
#define MST_T char
#define MLANES 256
#define MLD(c, t) v_i8_ld_tnsr_b(c, t)
#define MST(c, t, v) v_i8_st_tnsr(c, t, v)
#define MSLD(c, t) s_i8_ld_g(gen_addr(c, t))
#define MSST(c, t, v) s_i8_st_g(gen_addr(c, t), v)
#define LANE_IDS_ read_lane_id_1b_b()
// hi is up to 256, which a byte lane cannot hold: lanes below hi are those at or below hi - 1 (hi > lo >= 0
// when any lane is kept; hi <= lo keeps none).
#define IN_LANES(v, lo, hi, w)                                                                                  \
  ((hi) <= (lo) ? (w)                                                                                           \
                : v_i8_sel_less_u8_b(LANE_IDS_, (uchar256)(unsigned char)(lo), w,                               \
                                     v_i8_sel_leq_u8_b(LANE_IDS_, (uchar256)(unsigned char)((hi) - 1), v, w)))
#else
#error "compile with -DBITS_32, -DBITS_16 or -DBITS_8"
#endif

static inline int clampInt(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
