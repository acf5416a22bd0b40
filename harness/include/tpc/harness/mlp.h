// The model of the pipeline: a multilayer perceptron given as mlp:IN,H1,...,OUT (ReLU between layers,
// softmax cross-entropy on the last), its parameters and their deterministic initialization.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tpc::harness {

struct MlpSpec {
  std::vector<int64_t> dims;  // IN, H1, ..., OUT: at least two
  int layers() const { return static_cast<int>(dims.size()) - 1; }
  int64_t parameters() const;
};

// Parses "mlp:1024,4096,4096,1024"; throws UserError naming --model and what was expected.
MlpSpec parseModelSpec(const std::string& text);

// Layer l's weights W [dims[l], dims[l+1]] (y = x W + b) and bias b [dims[l+1]].
struct MlpParams {
  std::vector<std::vector<float>> w, b;
};

// He-initialized weights from the seed (the same on every device and process), zero biases.
MlpParams initParams(const MlpSpec& spec, uint64_t seed);

// The synthetic task: inputs from N(0, 1) and labels the argmax of a fixed teacher network's logits
// (a linear map IN -> OUT drawn from the seed). Step s's global batch of `global` samples is the same for
// any device count; rows [first, first + rows) of it are returned.
void syntheticBatch(const MlpSpec& spec, uint64_t seed, int step, int64_t global, int64_t first, int64_t rows,
                    std::vector<float>& x, std::vector<int32_t>& labels);

}  // namespace tpc::harness
