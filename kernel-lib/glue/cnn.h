// Geometry shared by the CNN families (pooling.cpp, conv.cpp): 4-D tensors in NCHW or NHWC and the size of
// a windowed dimension.
#pragma once

#include <cstddef>
#include <cstdint>

#include <fmt/format.h>

#include "glue.h"

namespace tpc::kernels::cnn {

// TPC dimensions of H, W and C in a layout (0 NCHW [W, H, C, N], 1 NHWC [C, W, H, N]).
struct Dims {
  size_t h, w, c;
};
inline Dims dimsOf(int32_t layout) { return layout == 1 ? Dims{2, 1, 0} : Dims{1, 0, 2}; }

inline const char* layoutSuffix(int32_t layout) { return layout == 1 ? ".nhwc" : ".nchw"; }

inline GlueResult expectLayout(const Node& node, int32_t layout) {
  if (layout != 0 && layout != 1)
    return fail(tpc_lib_api::GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                fmt::format("{}: layout must be 0 (NCHW) or 1 (NHWC), not {}", node.guid, layout));
  return {};
}

inline GlueResult expect4d(const Node& node, bool output, size_t index) {
  const TensorView& t = (output ? node.outputs : node.inputs)[index];
  if (t.dims != 4)
    return fail(output ? tpc_lib_api::GLUE_INCOMPATIBLE_OUTPUT_SIZE : tpc_lib_api::GLUE_INCOMPATIBLE_INPUT_SIZE,
                fmt::format("{}: {} {} must be 4-D (N, C, H, W or N, H, W, C), not {}", node.guid,
                            output ? "output" : "input", index, shapeText(t)));
  return {};
}

// The windowed size of n: floor or ceil of (n + pads - extent) / stride, plus 1; in ceil mode a last window
// that would start in the far padding is dropped (PyTorch's and ONNX's rule). 0 when no window fits.
inline int64_t pooledSize(int64_t n, int64_t before, int64_t after, int64_t k, int64_t s, int64_t d, bool ceil) {
  const int64_t span = n + before + after - ((k - 1) * d + 1);
  if (span < 0) return 0;
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (out - 1) * s >= n + before) --out;
  return out;
}

}  // namespace tpc::kernels::cnn
