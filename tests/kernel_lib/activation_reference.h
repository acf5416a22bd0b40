// Host references of the activations with parameters (kernels/activation.c, activation_bwd.c), written from
// their definitions in long double with the C library's expm1, log1p and erf (never the kernels' algorithms).
#pragma once

#include <cmath>
#include <string>

namespace kltest::ref {

struct ActivationParams {
  long double alpha, beta, gamma;
};

// OP(x) for the forward GUID's operation.
inline long double activation(const std::string& op, long double x, const ActivationParams& p) {
  using std::exp;
  const long double sp = x > 0 ? x + std::log1p(exp(-x)) : std::log1p(exp(x));  // softplus
  const long double hs = std::fmin(1.0L, std::fmax(0.0L, p.alpha * x + p.beta));
  if (std::isnan(x)) return NAN;
  if (op == "elu") return x > 0 ? x : p.alpha * std::expm1(x);
  if (op == "selu") return p.gamma * (x > 0 ? x : p.alpha * std::expm1(x));
  if (op == "celu") return x > 0 ? x : p.alpha * std::expm1(x / p.alpha);
  if (op == "softplus") return sp;
  if (op == "softsign") return std::isinf(x) ? std::copysign(1.0L, x) : x / (1 + std::fabs(x));
  if (op == "hardsigmoid") return hs;
  if (op == "hardswish") return x * hs;
  if (op == "mish") return x * std::tanh(sp);
  if (op == "silu") return x / (1 + exp(-x));
  if (op == "erf") return std::erf(x);
  if (op == "thresholded_relu") return x > p.alpha ? x : 0.0L;
  return NAN;
}

// dy OP'(x).
inline long double activationGrad(const std::string& op, long double dy, long double x, const ActivationParams& p) {
  using std::exp;
  const long double s = 1 / (1 + exp(-x));  // sigmoid
  const long double v = p.alpha * x + p.beta;
  const long double hsSlope = v > 0 && v < 1 ? p.alpha : 0.0L;
  if (op == "elu") return x > 0 ? dy : dy * p.alpha * exp(x);
  if (op == "selu") return p.gamma * (x > 0 ? dy : dy * p.alpha * exp(x));
  if (op == "celu") return x > 0 ? dy : dy * exp(x / p.alpha);
  if (op == "softplus") return dy * s;
  if (op == "softsign") return dy / ((1 + std::fabs(x)) * (1 + std::fabs(x)));
  if (op == "hardsigmoid") return dy * hsSlope;
  if (op == "hardswish") return dy * (std::fmin(1.0L, std::fmax(0.0L, v)) + x * hsSlope);
  if (op == "mish") {
    const long double sp = x > 0 ? x + std::log1p(exp(-x)) : std::log1p(exp(x));
    const long double t = std::tanh(sp);
    return dy * (t + x * (1 - t * t) * s);
  }
  if (op == "silu") return dy * (s + x * s * (1 - s));
  if (op == "erf") return dy * 2 / std::sqrt(3.14159265358979323846264338327950288L) * exp(-x * x);
  if (op == "thresholded_relu") return x > p.alpha ? dy : 0.0L;
  return NAN;
}

// The sum of the magnitudes of the terms dy OP'(x) adds, where they cancel at a zero of the derivative
// (silu near x = -1.28, mish near -1.19, hardswish at -1.5 with the defaults): an f32 evaluation is
// accurate relative to this, not to the result. The result's own magnitude for the others.
inline long double activationGradTerms(const std::string& op, long double dy, long double x, const ActivationParams& p) {
  using std::exp;
  const long double s = 1 / (1 + exp(-x)), m = 1 / (1 + exp(x));
  if (op == "silu") return std::fabs(dy) * (s + std::fabs(x) * s * m);
  if (op == "mish") {
    const long double sp = x > 0 ? x + std::log1p(exp(-x)) : std::log1p(exp(x));
    const long double t = std::tanh(sp);
    return std::fabs(dy) * (std::fabs(t) + std::fabs(x) * (1 - t * t) * s);
  }
  if (op == "hardswish") {
    const long double v = p.alpha * x + p.beta;
    return std::fabs(dy) * (std::fmin(1.0L, std::fmax(0.0L, v)) + (v > 0 && v < 1 ? std::fabs(x * p.alpha) : 0.0L));
  }
  return std::fabs(activationGrad(op, dy, x, p));
}

}  // namespace kltest::ref
