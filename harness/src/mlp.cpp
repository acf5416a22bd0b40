#include "tpc/harness/mlp.h"

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "tpc/harness/mme.h"
#include "tpc/support/error.h"

namespace tpc::harness {

int64_t MlpSpec::parameters() const {
  int64_t n = 0;
  for (int l = 0; l < layers(); ++l) n += dims[static_cast<size_t>(l)] * dims[static_cast<size_t>(l) + 1] + dims[static_cast<size_t>(l) + 1];
  return n;
}

MlpSpec parseModelSpec(const std::string& text) {
  const std::string expect = "expected mlp:IN,H1,...,OUT with at least two positive sizes (e.g. mlp:64,128,10)";
  if (text.rfind("mlp:", 0) != 0) throw UserError(fmt::format("--model '{}': {}", text, expect));
  MlpSpec spec;
  size_t at = 4;
  while (at <= text.size()) {
    const size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (...) {
      used = 0;
    }
    if (item.empty() || used != item.size() || v < 1 || v > (1 << 20))
      throw UserError(fmt::format("--model '{}': '{}' is not a size from 1 to 1048576; {}", text, item, expect));
    spec.dims.push_back(v);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (spec.dims.size() < 2) throw UserError(fmt::format("--model '{}': {}", text, expect));
  return spec;
}

MlpParams initParams(const MlpSpec& spec, uint64_t seed) {
  MlpParams p;
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 1);
  for (int l = 0; l < spec.layers(); ++l) {
    const int64_t in = spec.dims[static_cast<size_t>(l)], out = spec.dims[static_cast<size_t>(l) + 1];
    std::normal_distribution<float> normal(0.0f, std::sqrt(2.0f / static_cast<float>(in)));
    std::vector<float> w(static_cast<size_t>(in * out));
    for (float& x : w) x = normal(rng);
    p.w.push_back(std::move(w));
    p.b.emplace_back(static_cast<size_t>(out), 0.0f);
  }
  return p;
}

void syntheticBatch(const MlpSpec& spec, uint64_t seed, int step, int64_t global, int64_t first, int64_t rows,
                    std::vector<float>& x, std::vector<int32_t>& labels) {
  const int64_t in = spec.dims.front(), out = spec.dims.back();
  // The teacher.
  std::mt19937_64 trng(seed ^ 0x7eac4e7ull);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> teacher(static_cast<size_t>(in * out));
  for (float& t : teacher) t = normal(trng);
  // The step's global batch, generated row by row up to the rows asked for.
  std::mt19937_64 rng(seed * 1000003ull + static_cast<uint64_t>(step) * 7919ull + 17);
  x.assign(static_cast<size_t>(rows * in), 0.0f);
  for (int64_t r = 0; r < first + rows && r < global; ++r)
    for (int64_t c = 0; c < in; ++c) {
      const float v = normal(rng);
      if (r >= first) x[static_cast<size_t>((r - first) * in + c)] = v;
    }
  std::vector<float> logits(static_cast<size_t>(rows * out));
  mmeGemm(DType::F32, false, false, rows, out, in, x.data(), teacher.data(), logits.data());
  labels.assign(static_cast<size_t>(rows), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int32_t best = 0;
    for (int64_t c = 1; c < out; ++c)
      if (logits[static_cast<size_t>(r * out + c)] > logits[static_cast<size_t>(r * out + best)]) best = static_cast<int32_t>(c);
    labels[static_cast<size_t>(r)] = best;
  }
}

}  // namespace tpc::harness
