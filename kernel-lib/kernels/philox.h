// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) on 64 lanes, and the
// library's stream (docs/kernel-lib.md, "Random numbers"): element i of an output (its flat index, TPC
// dimension 0 fastest) takes word i mod 4 of Philox(counter = {lo(i/4), hi(i/4), lo(offset), hi(offset)},
// key = {lo(seed), hi(seed)}), so the result does not depend on how the index space is split.
#pragma once

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

typedef struct philox_words {
  uint64 w[4];
} philox_words;

// The four words of the blocks with counters {q0 + lane, 0, offset0, offset1} (q0 + 63 < 2^32).
static inline philox_words philox_block(unsigned q0, unsigned key0, unsigned key1, unsigned offset0, unsigned offset1) {
  uint64 c0 = read_lane_id_4b_b() + q0, c1 = 0, c2 = offset0, c3 = offset1;
  unsigned k0 = key0, k1 = key1;
#pragma unroll
  for (int round = 0; round < 10; round++) {
    const uint128 p0 = v_u32_mul_b(c0, PHILOX_M0);
    const uint128 p1 = v_u32_mul_b(c2, PHILOX_M1);
    c0 = p1.v2 ^ c1 ^ k0;
    c1 = p1.v1;
    c2 = p0.v2 ^ c3 ^ k1;
    c3 = p0.v1;
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
  philox_words r;
  r.w[0] = c0;
  r.w[1] = c1;
  r.w[2] = c2;
  r.w[3] = c3;
  return r;
}

// Per lane, word (s + e) mod 4 of block (s + e) / 4, e the lane's element (0-255) in a group of 256
// starting at flat index i0 with s = i0 mod 4: blocks 0-63 from `a` (q0 = i0 / 4), block 64 (only when
// s > 0) from lane 0 of `b` (q0 + 64). Words as f32 bits or values alike (uint64 lanes).
static inline uint64 philox_pick(const philox_words* a, const philox_words* b, int s, uint64 e) {
  const uint64 at = e + (unsigned)s;
  const uint64 block = at >> 2, word = at & 3;
  const uchar256 from = as_uchar256(block & 63);
  uint64 r = 0;
#pragma unroll
  for (int j = 0; j < 4; j++) {
    const uint64 fromA = __lane_shuffle_u32(a->w[j], from);
    const uint64 fromB = __lane_shuffle_u32(b->w[j], as_uchar256((uint64)0));
    const uint64 t = v_u32_sel_eq_u32_b(block, 64, fromB, fromA);
    r = v_u32_sel_eq_u32_b(word, (unsigned)j, t, r);
  }
  return r;
}

// philox_pick for a group that starts at a block (s = 0): word e mod 4 of block e / 4 of `a`.
static inline uint64 philox_pick_aligned(const philox_words* a, uint64 e) {
  const uchar256 from = as_uchar256(e >> 2);
  const uint64 word = e & 3;
  uint64 r = __lane_shuffle_u32(a->w[0], from);
#pragma unroll
  for (int j = 1; j < 4; j++) r = v_u32_sel_eq_u32_b(word, (unsigned)j, __lane_shuffle_u32(a->w[j], from), r);
  return r;
}

// Uniform in [0, 1) from a word: its top 24 bits times 2^-24 (exact in f32).
static inline float64 philox_uniform(uint64 w) { return v_convert_u32_to_f32_b(w >> 8) * 0x1p-24f; }
