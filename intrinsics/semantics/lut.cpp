#include "lut.h"

#include <cmath>

#include "fp.h"

namespace tpc::sem {

uint32_t lutEntry(uint32_t x, unsigned shift) {
  uint32_t sign = x >> 31, exponent = (x >> 23) & 0xffu, mantissa = x & 0x7fffffu;
  if (exponent == 0) mantissa = 0;  // denormals are zero
  return (sign << (8 + shift)) | (exponent << shift) | (shift ? mantissa >> (23 - shift) : 0u);
}

uint32_t lutStart(uint32_t x, unsigned shift) {
  if ((x & 0x7f800000u) == 0) return x & 0x80000000u;
  uint32_t keep = shift >= 23 ? 0xffffffffu : ~((1u << (23 - shift)) - 1u);
  return x & keep;
}

namespace {

double startOf(uint32_t entry, unsigned shift) {
  uint32_t sign = (entry >> (8 + shift)) & 1u, exponent = (entry >> shift) & 0xffu;
  uint32_t mantissa = shift ? (entry & ((1u << shift) - 1u)) << (23 - shift) : 0u;
  return static_cast<double>(asFloat((sign << 31) | (exponent << 23) | mantissa));
}

uint32_t toF32(double v) { return asBits(f32Result(static_cast<float>(v))); }

}  // namespace

uint32_t lutValue(isa::LutFunction f, uint32_t entry, unsigned shift) {
  double x = startOf(entry, shift);
  switch (f) {
    case isa::LutFunction::Recip: return toF32(1.0 / x);
    case isa::LutFunction::Rsqrt: return toF32(1.0 / std::sqrt(x));
    case isa::LutFunction::Sqrt: return toF32(std::sqrt(x));
    case isa::LutFunction::Log2: return toF32(std::log2(x));
    case isa::LutFunction::Exp2: return toF32(std::exp2(x));
    case isa::LutFunction::Sin: return toF32(std::sin(x));
    case isa::LutFunction::Cos: return toF32(std::cos(x));
    case isa::LutFunction::Tanh: return toF32(std::tanh(x));
  }
  return 0;
}

uint32_t lutSlope(isa::LutFunction f, uint32_t entry, unsigned shift) {
  double x = startOf(entry, shift);
  switch (f) {
    case isa::LutFunction::Recip: return toF32(-1.0 / (x * x));
    case isa::LutFunction::Rsqrt: return toF32(-0.5 / (x * std::sqrt(x)));
    case isa::LutFunction::Sqrt: return toF32(0.5 / std::sqrt(x));
    case isa::LutFunction::Log2: return toF32(1.0 / (x * std::log(2.0)));
    case isa::LutFunction::Exp2: return toF32(std::exp2(x) * std::log(2.0));
    case isa::LutFunction::Sin: return toF32(std::cos(x));
    case isa::LutFunction::Cos: return toF32(-std::sin(x));
    case isa::LutFunction::Tanh: {
      double t = std::tanh(x);
      return toF32(1.0 - t * t);
    }
  }
  return 0;
}

}  // namespace tpc::sem
