// out = act(op(A) op(B) + bias), batched: A (M, K) or stored (K, M) with transposeA, B (K, N), bias (N),
// out (M, N) (NumPy shapes: TPC dimension 0 is the last axis), batch dimensions 2-3 broadcast by bit d of
// broadcastA / broadcastB (dimension d of A / B of size 1). Accumulates in f32 (bf16: products exact, f32
// sums, rounded once to bf16 at the end); the activation is a variant: none, -DACT_RELU, -DACT_GELU (tanh
// approximation).
//
// Each index-space point computes a tile of ROWS rows by 256 columns, register-blocked: per k, the ROWS
// scalars A[m + r, k] and the vectors B[k, n .. n + 255] (loads) feed ROWS x 256 multiply-accumulates,
// four VPU instructions per row, so the loop is bound by the VPU and not by loads. Rows past M read row
// M - 1 (the scalars are read through addresses, which must stay inside A) and are not stored; columns
// past N read B's padding and are not stored.
//
// -DWITH_BIAS adds the bias parameter. -DTRANSPOSED_B (B stored (N, K)) takes the other loop order: the
// vectors run along k, a dot product per output element, combined across lanes at the end (slower:
// docs/kernel-lib.md).
#include "common.h"
#include "gelu_math.h"

#define ROWS 4

#if defined(TRANSPOSED_B)
#elif defined(DT_F32)
#define COLS_VECTORS 4  // float64 vectors of 64 columns per row of a tile
#define ACC_T float64
static inline ACC_T acc_zero(void) { return 0.0f; }
#define MAC(acc, bv, a) ((acc) = v_f32_mac_b(bv, a, acc))
#elif defined(DT_BF16)
#define COLS_VECTORS 2  // bfloat128 vectors of 128 columns; each accumulates into a pair
#define ACC_T float128
static inline ACC_T acc_zero(void) {
  float128 z;
  z.v1 = 0.0f;
  z.v2 = 0.0f;
  return z;
}
#define MAC(acc, bv, a) ((acc) = v_bf16_mac_acc32_b(bv, (bfloat128)(a), acc))
#else
#error "compile with -DDT_F32 or -DDT_BF16"
#endif

#include "broadcast.h"

#if !defined(TRANSPOSED_B)

// The activation is a variant (-DACT_RELU, -DACT_GELU): as a run-time scalar it would stay live through
// the k loop, and the loop runs short of scalar registers.
#if defined(ACT_RELU)
static inline float64 relu_f32(float64 v) { return v_f32_max_b(v, 0.0f); }
#define ACTIVATION relu_f32
#elif defined(ACT_GELU)
#define ACTIVATION gelu_tanh_f32
#else
#define ACTIVATION
#endif

#if defined(WITH_BIAS) && defined(DT_F32)
#define LOAD_BIAS(c) v_f32_ld_tnsr_b(c, bias)
#elif defined(WITH_BIAS)
#define LOAD_BIAS(c) v_convert_bf16_to_f32_all_b(v_bf16_ld_tnsr_b(c, bias))
#endif

#if defined(DT_F32)
#define ADD_BIAS(y, bv) ((y) += (bv))
#define STORE_OUT(c, y, f) v_f32_st_tnsr(c, out, f(y))
#else
#define ADD_BIAS(y, bv) ((y).v1 += (bv).v1, (y).v2 += (bv).v2)
#define STORE_OUT(c, y, f) ((y).v1 = f((y).v1), (y).v2 = f((y).v2), v_bf16_st_tnsr(c, out, v_convert_f32_to_bf16_all_b(y)))
#endif

#if defined(WITH_BIAS)
#define BIAS_OF(v, co) const ACC_T bias_##v = LOAD_BIAS(((int5){co[0], 0, 0, 0, 0}))
#define WITH_BIAS_OF(y, v) ADD_BIAS(y, bias_##v)
#else
#define BIAS_OF(v, co)
#define WITH_BIAS_OF(y, v)
#endif

#define EPILOGUE(f)                                   \
  _Pragma("unroll") for (int v = 0; v < COLS_VECTORS; v++) { \
    int5 co = batch;                                  \
    co[0] = n0 + v * LANES;                           \
    BIAS_OF(v, co);                                   \
    _Pragma("unroll") for (int r = 0; r < ROWS; r++) { \
      co[1] = m0 + r;                                 \
      ACC_T y = acc[r][v];                            \
      WITH_BIAS_OF(y, v);                             \
      STORE_OUT(co, y, f);                            \
    }                                                 \
  }

void main(tensor a, tensor b,
#if defined(WITH_BIAS)
          tensor bias,
#endif
          tensor out, int M, int N, int K, int transposeA, int broadcastA, int broadcastB)
{
  const int5 start = get_index_space_offset();
  const int5 end = start + get_index_space_size();
  const int tileCols = COLS_VECTORS * LANES;
  // Broadcasting as masks in index registers: scalar registers are what the pipelined k loop runs short of.
  const int5 maskA = BROADCAST_MASK(broadcastA), maskB = BROADCAST_MASK(broadcastB);
  // Batches along dimensions 2 and 3 (the glue takes at most 4 dimensions): a loop over dimension 4 would
  // hold two more scalar registers through the k loop, which then cannot be pipelined.
  const int d4 = 0;
  for (int d3 = start[3]; d3 < end[3]; d3++)
      for (int d2 = start[2]; d2 < end[2]; d2++)
        for (int tm = start[1]; tm < end[1]; tm++)
          for (int tn = start[0]; tn < end[0]; tn++) {
            const int5 batch = {0, 0, d2, d3, d4};
            const int5 ba = batch & maskA, bb = batch & maskB;
            const int m0 = tm * ROWS, n0 = tn * tileCols;
            // A's rows as coordinates advanced along k (rows past M repeat the last one).
            int5 ca[ROWS];
#pragma unroll
            for (int r = 0; r < ROWS; r++) {
              // No branches here: the core has few predicate registers, and the unrolled rows would
              // each hold some.
              const int m = s_i32_min(m0 + r, M - 1);
              ca[r] = ba;
              ca[r][0] = m * transposeA;
              ca[r][1] = m * (1 - transposeA);
            }
            const int5 stepA = transposeA ? (int5){0, 1, 0, 0, 0} : (int5){1, 0, 0, 0, 0};
            ACC_T acc[ROWS][COLS_VECTORS];
#pragma unroll
            for (int r = 0; r < ROWS; r++)
#pragma unroll
              for (int v = 0; v < COLS_VECTORS; v++) acc[r][v] = acc_zero();
            // B's vectors as coordinates of their own advanced along k: one index-register add each per
            // step, and no rebuilding of coordinates in the loop.
            int5 cb[COLS_VECTORS];
#pragma unroll
            for (int v = 0; v < COLS_VECTORS; v++) {
              cb[v] = bb;
              cb[v][0] = n0 + v * LANES;
            }
            const int5 stepB = {0, 1, 0, 0, 0};
            for (int k = 0; k < K; k++) {
              VT bv[COLS_VECTORS];
#pragma unroll
              for (int v = 0; v < COLS_VECTORS; v++) {
                bv[v] = LD(cb[v], b);
                cb[v] += stepB;
              }
#pragma unroll
              for (int r = 0; r < ROWS; r++) {
                const S s = LD_SCALAR(ca[r], a);
                ca[r] += stepA;
#pragma unroll
                for (int v = 0; v < COLS_VECTORS; v++) MAC(acc[r][v], bv[v], s);
              }
            }
            // Epilogue: bias, activation, rounding to the output type; rows past M are stores the core drops.
            EPILOGUE(ACTIVATION)
          }
}

#else  // TRANSPOSED_B

// B stored (N, K): for each output element, a dot product of A's row and B's row along k, in vectors of
// k (f32 pieces), combined across lanes once; 64 (f32) or 128 (bf16) outputs of a row per point.
#define AXIS_LANES
#include "rows.h"

#if defined(ACT_RELU)
#define ACTIVATE(v) v_f32_max_b(v, 0.0f)
#elif defined(ACT_GELU)
#define ACTIVATE(v) gelu_tanh_f32(v)
#else
#define ACTIVATE(v) (v)
#endif

void main(tensor a, tensor b,
#if defined(WITH_BIAS)
          tensor bias,
#endif
          tensor out, int M, int N, int K, int transposeA, int broadcastA, int broadcastB)
{
  const int5 start = get_index_space_offset();
  const int5 end = start + get_index_space_size();
  const uint64 lane = read_lane_id_4b_b();
  const int5 maskA = BROADCAST_MASK(broadcastA), maskB = BROADCAST_MASK(broadcastB);
  for (int d4 = start[4]; d4 < end[4]; d4++)
    for (int d3 = start[3]; d3 < end[3]; d3++)
      for (int d2 = start[2]; d2 < end[2]; d2++)
        for (int m = start[1]; m < end[1]; m++)
          for (int tn = start[0]; tn < end[0]; tn++) {
            const int5 batch = {0, 0, d2, d3, d4};
            const int5 ba = batch & maskA, bb = batch & maskB;
            float64 row[NP];
            for (int k = 0; k < NP; k++) row[k] = 0.0f;
            const int nEnd = (tn + 1) * LANES < N ? (tn + 1) * LANES : N;
            for (int n = tn * LANES; n < nEnd; n++) {
              float64 dot = 0.0f;
              int5 cb = bb;
              cb[1] = n;
              int5 ca = ba;
              ca[1] = m;
              for (int k = 0; k < K; k += LANES) {
                float64 x[NP], w[NP];
                cb[0] = k;
                LD_PIECES(cb, b, w);
                if (transposeA) {
                  // A stored (K, M): the row of A along k is a column; read it element by element.
                  for (int j = 0; j < NP; j++) x[j] = 0.0f;
                  for (int e = 0; e < LANES && k + e < K; e++) {
                    const int5 ce = {m, k + e, ba[2], ba[3], ba[4]};
#if defined(DT_F32)
                    const float s = s_f32_ld_g(gen_addr(ce, a));
#else
                    const float s = s_convert_bf16_to_f32(s_bf16_ld_g(gen_addr(ce, a)));
#endif
                    const int piece = NP == 1 ? 0 : (e & 1), at = NP == 1 ? e : e >> 1;
                    x[piece] = v_f32_sel_eq_u32_b(lane, (unsigned)at, s, x[piece]);
                  }
                } else {
                  ca[0] = k;
                  LD_PIECES(ca, a, x);
                }
                // Lanes past K read padding: only lanes inside the row count.
                for (int j = 0; j < NP; j++) {
                  const int64 element = piece_element(j) + k;
                  dot = v_f32_mac_b(v_f32_sel_less_i32_b(element, K, x[j], 0.0f),
                                    v_f32_sel_less_i32_b(element, K, w[j], 0.0f), dot);
                }
              }
              dot = v_f32_reduce_add(dot);
              const int e = n - tn * LANES;
              const int piece = NP == 1 ? 0 : (e & 1), at = NP == 1 ? e : e >> 1;
              row[piece] = v_f32_sel_eq_u32_b(lane, (unsigned)at, dot, row[piece]);
            }
            int5 co = batch;
            co[0] = tn * LANES;
            co[1] = m;
#if defined(WITH_BIAS)
            const int5 cbias = {co[0], 0, 0, 0, 0};
            float64 bv[NP];
            LD_PIECES(cbias, bias, bv);
            for (int j = 0; j < NP; j++) row[j] += bv[j];
#endif
            for (int j = 0; j < NP; j++) row[j] = ACTIVATE(row[j]);
            ST_PIECES(co, out, row);
          }
}

#endif
