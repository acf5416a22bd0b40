// Helpers of the kernel-library tests: host tensors from values, the core's rounding (f32 and bf16 with
// denormals flushed, NaN canonical), distances in units in the last place, and a node run through the
// library's glue and the simulator (tpc_kernels/run.h).
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tpc_kernels/params.h"
#include "tpc_kernels/run.h"

namespace kltest {

using tpc::DType;
using tpc::HostTensor;

constexpr int64_t kNoMatch = std::numeric_limits<int64_t>::max();

inline uint32_t bitsOf(float f) { return std::bit_cast<uint32_t>(f); }
inline float floatOf(uint32_t b) { return std::bit_cast<float>(b); }
inline bool isNan32(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
inline uint32_t ftz32(uint32_t b) { return (b & 0x7f800000u) ? b : (b & 0x80000000u); }

// A value rounded to f32 as the core holds it: nearest even, denormals flushed to signed zero, NaN canonical.
inline uint32_t toF32(long double v) {
  if (std::isnan(v)) return 0x7fc00000u;
  return ftz32(bitsOf(static_cast<float>(v)));
}
// The same to bf16 (8 significant bits), returned as the 16 bits.
inline uint16_t toBF16(long double v) {
  if (std::isnan(v)) return 0x7fc0u;
  if (std::isinf(v) || v == 0) return static_cast<uint16_t>(bitsOf(static_cast<float>(v)) >> 16);
  int e;
  const long double m = std::frexp(v, &e);
  const long double q = std::ldexp(std::nearbyint(std::ldexp(m, 8)), e - 8);
  return static_cast<uint16_t>(ftz32(bitsOf(static_cast<float>(q))) >> 16);
}
// An input element as the core reads it: denormals are zeros.
inline long double valueOfF32(uint32_t b) { return floatOf(ftz32(b)); }
inline long double valueOfBF16(uint16_t h) { return valueOfF32(static_cast<uint32_t>(h) << 16); }

// The size of one unit in the last place of |v| in f32 (24 significant bits) and bf16 (8), normal range.
inline long double ulpOfF32(long double v) {
  if (v == 0 || !std::isfinite(v)) return std::ldexp(1.0L, -149);
  int e;
  std::frexp(v, &e);
  return std::ldexp(1.0L, std::max(e, -125) - 24);
}
inline long double ulpOfBF16(long double v) { return ulpOfF32(v) * 65536.0L; }

inline int64_t ordered(uint32_t b) { return (b & 0x80000000u) ? -static_cast<int64_t>(b & 0x7fffffffu) : b; }
// Units in the last place between two f32 results (+0 and -0 are one place); NaN matches only NaN.
inline int64_t ulps32(uint32_t a, uint32_t b) {
  if (isNan32(a) || isNan32(b)) return isNan32(a) && isNan32(b) ? 0 : kNoMatch;
  return std::llabs(ordered(a) - ordered(b));
}
inline int64_t ulps16(uint16_t a, uint16_t b) { return ulps32(static_cast<uint32_t>(a) << 16, static_cast<uint32_t>(b) << 16) >> 16; }

// ------------------------------------------------------------------------------------------ tensors

inline size_t count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t s : shape) n *= static_cast<size_t>(s);
  return n;
}

// A tensor of raw element bits (the low 16 or 8 bits for narrow types).
inline HostTensor tensorOfBits(DType t, const std::vector<int64_t>& shape, const std::vector<uint32_t>& bits) {
  HostTensor h = tpc::makeZeroTensor(t, shape);
  const size_t size = tpc::dtypeSize(t);
  for (size_t i = 0; i < bits.size() && i < h.numElements(); ++i) std::memcpy(h.data.data() + i * size, &bits[i], size);
  return h;
}
inline std::vector<uint32_t> bitsOfTensor(const HostTensor& h) {
  const size_t size = tpc::dtypeSize(h.dtype);
  std::vector<uint32_t> out(h.numElements(), 0);
  for (size_t i = 0; i < out.size(); ++i) std::memcpy(&out[i], h.data.data() + i * size, size);
  return out;
}
// Values rounded to the type (floats as the core rounds; integers as given).
inline HostTensor tensorOf(DType t, const std::vector<int64_t>& shape, const std::vector<double>& values) {
  std::vector<uint32_t> bits;
  for (double v : values) {
    switch (t) {
      case DType::F32: bits.push_back(toF32(v)); break;
      case DType::BF16: bits.push_back(toBF16(v)); break;
      default: bits.push_back(static_cast<uint32_t>(static_cast<int64_t>(v))); break;
    }
  }
  return tensorOfBits(t, shape, bits);
}
// The elements as the core reads them.
inline std::vector<long double> valuesOf(const HostTensor& h) {
  std::vector<long double> out;
  for (uint32_t b : bitsOfTensor(h)) {
    switch (h.dtype) {
      case DType::F32: out.push_back(valueOfF32(b)); break;
      case DType::BF16: out.push_back(valueOfBF16(static_cast<uint16_t>(b))); break;
      case DType::I32: out.push_back(static_cast<int32_t>(b)); break;
      case DType::U8: out.push_back(b & 0xffu); break;
      default: out.push_back(b); break;
    }
  }
  return out;
}

// Random values in [lo, hi) (f32 before rounding to the type).
inline std::vector<double> randomValues(size_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = static_cast<float>(u(rng));
  return v;
}

// The shapes every elementwise kernel is tried on: ranks 1-5, sizes 1 and primes, dimension 0 below,
// at and above a vector's width (64 f32 or 128 bf16 elements).
inline std::vector<std::vector<int64_t>> elementwiseShapes() {
  return {{1}, {7}, {64}, {127}, {1000}, {3, 130}, {5, 1}, {1, 129}, {2, 3, 67}, {2, 2, 3, 65}, {2, 1, 3, 2, 131}};
}

// Shapes for the kernels that walk a core's part in one loop of 16 vectors per iteration (common.h,
// FOR_EACH_POINT_FLAT): rows of exactly two groups, of groups and a tail of three vectors and a partial
// one, of less than a group, several of them per core, and dimensions 2 and 3 above one.
inline std::vector<std::vector<int64_t>> flatLoopShapes(DType t) {
  const int64_t lanes = t == DType::F32 ? 64 : 128;
  return {{5, 32 * lanes}, {7, 35 * lanes + 9}, {9, 3 * lanes}, {2, 3, 17 * lanes}, {3, 2, 2, 16 * lanes + 1}};
}
// Shapes for the kernels that walk parts of 16 rows or more in bands of rows (common.h,
// FOR_EACH_POINT_BANDED) on one core: 31 rows (a band of each size: 16, 8, 4, 2, 1), 47 rows of one
// partial vector, 16 rows exactly, and 23 rows in each of two planes of dimension 2.
inline std::vector<std::vector<int64_t>> bandedShapes(DType t) {
  const int64_t lanes = t == DType::F32 ? 64 : 128;
  return {{31, 3 * lanes + 5}, {47, 7}, {16, lanes}, {2, 23, 2 * lanes}};
}
// Parts of one to three rows, which relu, abs and neg walk as one band of exactly that many rows, U
// vectors of each row per iteration (common.h, FEW_BAND_; U is 4, 8 and 16 for 3, 2 and 1 rows): whole
// iterations and the vectors left (the last one partial), fewer vectors than U (the flat loop), two
// planes of three rows, on one core; and 24 cores on 50 rows (parts of 2 and 3).
inline std::vector<std::pair<std::vector<int64_t>, int>> fewRowShapes(DType t) {
  const int64_t lanes = t == DType::F32 ? 64 : 128;
  return {{{3, lanes * 23 - 9}, 1}, {{3, lanes * 2 + 7}, 1},  {{2, lanes * 21 + 1}, 1}, {{2, lanes * 8}, 1},
          {{1, lanes * 31 - 1}, 1}, {{1, lanes * 16}, 1},     {{1, lanes * 5}, 1},      {{2, 3, lanes * 9}, 1},
          {{50, lanes * 7 + 3}, 24}};
}

// The rows along TPC dimension `dim` (NumPy axis rank-1-dim) of a row-major tensor: for each element of
// the reduced shape (that axis of size 1), in row-major order, the flat indices of its row in order.
inline std::vector<std::vector<size_t>> rowsOf(const std::vector<int64_t>& shape, int dim) {
  const size_t rank = shape.size(), axis = rank - 1 - static_cast<size_t>(dim);
  size_t inner = 1;
  for (size_t k = axis + 1; k < rank; ++k) inner *= static_cast<size_t>(shape[k]);
  const size_t n = static_cast<size_t>(shape[axis]), outer = count(shape) / (n * inner);
  std::vector<std::vector<size_t>> rows;
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) {
      std::vector<size_t> row(n);
      for (size_t k = 0; k < n; ++k) row[k] = (o * n + k) * inner + i;
      rows.push_back(std::move(row));
    }
  return rows;
}
inline std::vector<int64_t> reducedShapeOf(std::vector<int64_t> shape, int dim) {
  shape[shape.size() - 1 - static_cast<size_t>(dim)] = 1;
  return shape;
}
// The shapes the kernels along a dimension are tried on, each with every dimension: ranks 1-5, sizes 1
// and primes, rows shorter and longer than a vector and not multiples of one. Along dimension 0 a core
// takes its rows in batches of 8 (kernels/rows.h): {203, 67} gives the 24 cores 8 and 9 rows (a whole
// batch, and one more), {2, 201, 3} 16 and 17, {2, 83, 5} 6 and 7 (loops of four rows, then the two or
// three left in one loop).
inline std::vector<std::vector<int64_t>> rowShapes() {
  return {{1}, {7}, {130}, {3, 130}, {129, 3}, {5, 1}, {2, 3, 67}, {2, 70, 3}, {203, 67}, {2, 201, 3}, {2, 83, 5},
          {2, 2, 3, 65}, {2, 1, 3, 2, 131}};
}
// f32's unit roundoff.
constexpr long double kU32 = 0x1p-24L;

// ------------------------------------------------------------------------------------------ runs

template <class P> std::vector<unsigned char> paramsOf(const P& p) {
  std::vector<unsigned char> v(sizeof p);
  std::memcpy(v.data(), &p, sizeof p);
  return v;
}

// Runs a GUID on inputs, with outputs of the given types and shapes; fails the test when the glue
// rejects the node or the kernel faults.
inline std::vector<HostTensor> runKernel(const std::string& guid, std::vector<HostTensor> inputs,
                                         const std::vector<std::pair<DType, std::vector<int64_t>>>& outputs,
                                         std::vector<unsigned char> params = {}, int cores = 0,
                                         tpc::kernels::NodeRunResult* result = nullptr) {
  tpc::kernels::NodeRun node;
  node.guid = guid;
  node.inputs = std::move(inputs);
  for (const auto& [t, shape] : outputs) node.outputs.push_back(tpc::makeZeroTensor(t, shape));
  node.params = std::move(params);
  node.cores = cores;
  node.strictHazards = true;
  tpc::kernels::NodeRunResult r = tpc::kernels::runNode(node);
  EXPECT_TRUE(r.glue.ok()) << guid << ": " << tpc::kernels::glueCodeName(r.glue.code) << ": " << r.glue.message;
  EXPECT_FALSE(r.fault.has_value()) << guid << ": " << (r.fault ? r.fault->describe() : "");
  if (result) *result = r;
  if (!r.ok()) return {};
  std::vector<HostTensor> out = node.outputs;
  for (HostTensor& in : node.inputs) out.push_back(in);  // inputs after the outputs (in-place kernels)
  return out;
}

inline std::string shapeName(const std::vector<int64_t>& s) { return tpc::formatShape(s); }

}  // namespace kltest
