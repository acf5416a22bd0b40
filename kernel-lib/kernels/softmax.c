// Along dimension `dim` (n elements; rows.h), in f32:
//   -DOP_SOFTMAX      out = exp(x - m) / s, m the row's maximum and s = sum exp(x - m)
//   -DOP_LOG_SOFTMAX  out = (x - m) - log(s)
//   -DOP_SOFTMAX_BWD  dx = y (dy - sum(dy y)), from the output gradient dy and the forward output y
// Three passes over the row (maximum, sum, write) for the forward, two for the backward; the row's
// statistics stay in registers.
#include "rows.h"

#if defined(OP_SOFTMAX) || defined(OP_LOG_SOFTMAX)

void main(tensor x, tensor out, int dim, int n)
{
  int5 c = 0;
#if defined(AXIS_OUTER)
  const int5 unit = UNIT_INT5(dim);
#endif
  FOR_EACH_POINT(c,
    float64 m[NP], s[NP], mc[ROW_CHAINS][NP], sc[ROW_CHAINS][NP];
    for (int j = 0; j < ROW_CHAINS; j++)
      for (int k = 0; k < NP; k++) mc[j][k] = -__builtin_inff(), sc[j][k] = 0.0f;
    FOR_ROW(c, x, n, p, -__builtin_inff(),
      for (int k = 0; k < NP; k++) mc[j][k] = v_f32_max_b(mc[j][k], p[k]);)
    for (int k = 0; k < NP; k++) m[k] = COMBINE_CHAINS(v_f32_max_b, mc, k);
#if defined(AXIS_LANES)
    const float64 rowMax = ROW_MAX(NP == 1 ? m[0] : v_f32_max_b(m[0], m[NP - 1]));
    for (int k = 0; k < NP; k++) m[k] = rowMax;
#endif
    FOR_ROW(c, x, n, p, -__builtin_inff(),
      for (int k = 0; k < NP; k++) sc[j][k] += v_exp_f32(p[k] - m[k]);)
    for (int k = 0; k < NP; k++) s[k] = COMBINE_CHAINS(ADD_F32, sc, k);
#if defined(AXIS_LANES)
    const float64 rowSum = ROW_SUM(NP == 1 ? s[0] : s[0] + s[NP - 1]);
    for (int k = 0; k < NP; k++) s[k] = rowSum;
#endif
#if defined(OP_SOFTMAX)
    float64 r[NP];
    for (int k = 0; k < NP; k++) r[k] = v_reciprocal_f32(s[k]);
    FOR_ROW_WRITE(c, x, n, p,
      for (int k = 0; k < NP; k++) p[k] = v_exp_f32(p[k] - m[k]) * r[k];
      ST_PIECES(c, out, p);)
#else
    float64 l[NP];
    for (int k = 0; k < NP; k++) l[k] = v_log_f32(s[k]);
    FOR_ROW_WRITE(c, x, n, p,
      for (int k = 0; k < NP; k++) p[k] = (p[k] - m[k]) - l[k];
      ST_PIECES(c, out, p);)
#endif
  )
}

#elif defined(OP_SOFTMAX_BWD)

void main(tensor dy, tensor y, tensor dx, int dim, int n)
{
  int5 c = 0;
#if defined(AXIS_OUTER)
  const int5 unit = UNIT_INT5(dim);
#endif
  FOR_EACH_POINT(c,
    float64 s[NP], sc[ROW_CHAINS][NP];
    for (int j = 0; j < ROW_CHAINS; j++)
      for (int k = 0; k < NP; k++) sc[j][k] = 0.0f;
    FOR_ROW2(c, dy, g, y, p, n, 0.0f,
      for (int k = 0; k < NP; k++) sc[j][k] = v_f32_mac_b(g[k], p[k], sc[j][k]);)
    for (int k = 0; k < NP; k++) s[k] = COMBINE_CHAINS(ADD_F32, sc, k);
#if defined(AXIS_LANES)
    const float64 rowSum = ROW_SUM(NP == 1 ? s[0] : s[0] + s[NP - 1]);
    for (int k = 0; k < NP; k++) s[k] = rowSum;
#endif
    FOR_ROW2(c, dy, g, y, p, n, 0.0f,
      for (int k = 0; k < NP; k++) p[k] = p[k] * (g[k] - s[k]);
      ST_PIECES(c, dx, p);)
  )
}

#else
#error "compile with -DOP_SOFTMAX, -DOP_LOG_SOFTMAX or -DOP_SOFTMAX_BWD"
#endif
