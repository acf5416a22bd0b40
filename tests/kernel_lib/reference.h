// Host references of the kernel library's operations, written from the mathematical definitions in long
// double (never the kernels' algorithms): the tests round them once to the output type.
#pragma once

#include <cmath>
#include <string>

namespace kltest::ref {

using R = long double;
constexpr R kNaN = NAN;

inline R relu(R x) { return std::isnan(x) ? kNaN : x > 0 ? x : 0.0L; }
inline R relu6(R x) { return std::isnan(x) ? kNaN : x > 6 ? 6.0L : x > 0 ? x : 0.0L; }
inline R leakyRelu(R x, R alpha) { return std::isnan(x) ? kNaN : x < 0 ? x * alpha : x; }
// The normal distribution's CDF.
inline R phi(R x) { return 0.5L * std::erfc(-x / std::sqrt(2.0L)); }
inline R geluExact(R x) { return x * phi(x); }
// 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)): the same value without 1 + tanh(u)'s cancellation, which even
// in long double loses every digit for x below -7.
inline R geluTanhArgument(R x) {
  const R k = std::sqrt(2.0L / 3.14159265358979323846264338327950288L);
  return k * (x + 0.044715L * x * x * x);
}
inline R geluTanh(R x) { return x / (1.0L + std::exp(-2.0L * geluTanhArgument(x))); }
inline R sigmoid(R x) { return 1.0L / (1.0L + std::exp(-x)); }

// Derivatives, as the backward kernels take them: of x for relu, leaky_relu and gelu, of y for sigmoid and tanh.
inline R reluGrad(R dy, R x) { return x > 0 ? dy : 0.0L; }
inline R leakyReluGrad(R dy, R x, R alpha) { return x > 0 ? dy : dy * alpha; }
inline R geluExactGrad(R dy, R x) {
  return dy * (phi(x) + x * std::exp(-x * x / 2) / std::sqrt(2 * 3.14159265358979323846264338327950288L));
}
// 0.5 (1 + tanh(u)) = sigmoid(2u) and 1 - tanh(u)^2 = 4 sigmoid(2u) sigmoid(-2u), for the same reason.
inline R geluTanhGrad(R dy, R x) {
  const R k = std::sqrt(2.0L / 3.14159265358979323846264338327950288L);
  const R u = geluTanhArgument(x);
  const R s = 1.0L / (1.0L + std::exp(-2.0L * u)), m = 1.0L / (1.0L + std::exp(2.0L * u));
  return dy * (s + 2.0L * x * s * m * k * (1 + 3 * 0.044715L * x * x));
}
// |dy| times the sum of the magnitudes of the two terms gelu's derivative adds: its zero near x = -0.75
// comes from their cancellation, so an f32 evaluation is accurate relative to this, not to the result.
inline R geluGradTermsMagnitude(R dy, R x, bool approximate) {
  if (approximate) {
    const R k = std::sqrt(2.0L / 3.14159265358979323846264338327950288L);
    const R u = geluTanhArgument(x);
    const R s = 1.0L / (1.0L + std::exp(-2.0L * u)), m = 1.0L / (1.0L + std::exp(2.0L * u));
    return std::fabs(dy) * (s + std::fabs(2.0L * x * s * m * k * (1 + 3 * 0.044715L * x * x)));
  }
  return std::fabs(dy) * (phi(x) + std::fabs(x) * std::exp(-x * x / 2) / std::sqrt(2 * 3.14159265358979323846264338327950288L));
}
inline R sigmoidGrad(R dy, R y) { return dy * y * (1 - y); }
inline R tanhGrad(R dy, R y) { return dy * (1 - y * y); }

// The unary operation of a GUID prefix ("exp", "gelu", ...) at x.
inline R unary(const std::string& op, R x, R alpha, bool approximate) {
  if (op == "relu") return relu(x);
  if (op == "relu6") return relu6(x);
  if (op == "leaky_relu") return leakyRelu(x, alpha);
  if (op == "gelu") return approximate ? geluTanh(x) : geluExact(x);
  if (op == "sigmoid") return sigmoid(x);
  if (op == "tanh") return std::tanh(x);
  if (op == "exp") return std::exp(x);
  if (op == "log") return std::log(x);
  if (op == "sqrt") return std::sqrt(x);
  if (op == "rsqrt") return 1.0L / std::sqrt(x);
  if (op == "reciprocal") return 1.0L / x;
  if (op == "abs") return std::fabs(x);
  if (op == "neg") return -x;
  return kNaN;
}

inline R unaryGrad(const std::string& op, R dy, R v, R alpha, bool approximate) {
  if (op == "relu") return reluGrad(dy, v);
  if (op == "leaky_relu") return leakyReluGrad(dy, v, alpha);
  if (op == "gelu") return approximate ? geluTanhGrad(dy, v) : geluExactGrad(dy, v);
  if (op == "sigmoid") return sigmoidGrad(dy, v);
  if (op == "tanh") return tanhGrad(dy, v);
  return kNaN;
}

// max/min as the core orders them: NaN wins, +0 is above -0.
inline R maximum(R a, R b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline R minimum(R a, R b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

inline R binary(const std::string& op, R a, R b) {
  if (op == "add") return a + b;
  if (op == "sub") return a - b;
  if (op == "mul") return a * b;
  if (op == "div") return a / b;
  if (op == "max") return maximum(a, b);
  if (op == "min") return minimum(a, b);
  return kNaN;
}

}  // namespace kltest::ref
