// Padded tensors: the library's kernels through the test core (tpc_tests::RunSimulation) on tensors whose
// rows and planes are further apart than their sizes (strides of a padded layout), against the same node
// run dense by runNode (a second execution path): the same bits in every element, and the padding between
// rows left as it was.
#include <array>
#include <cstring>

#include "kernel_test.h"
#include "tpc_kernels/library.h"
#include "tpc_test_core_api.h"

namespace kltest {
namespace {

using namespace tpc_lib_api;

// A host tensor laid out with padding: dimension d's stride is the dense one plus extra[d] elements per
// step of the dimension above, the padding filled with a marker.
struct Padded {
  HostTensor dense;
  std::vector<uint8_t> memory;
  std::array<uint32_t, 5> sizes{1, 1, 1, 1, 1}, strides{1, 1, 1, 1, 1};
  uint32_t elementSize = 4;

  Padded(const HostTensor& t, uint8_t marker) : dense(t) {
    elementSize = static_cast<uint32_t>(tpc::dtypeSize(t.dtype));
    const size_t rank = t.shape.size();
    for (size_t d = 0; d < rank; ++d) sizes[d] = static_cast<uint32_t>(t.shape[rank - 1 - d]);
    uint32_t stride = 1;
    for (size_t d = 0; d < 5; ++d) {
      strides[d] = stride;
      stride = stride * sizes[d] + (d == 0 ? 13 : d == 1 ? 2 : 0) * stride;  // rows 13 elements apart, planes 2 rows
    }
    memory.assign(static_cast<size_t>(stride) * elementSize, marker);
    forEach([&](size_t flat, size_t at) { std::memcpy(&memory[at], &dense.data[flat * elementSize], elementSize); });
  }
  // f(flat index in the dense tensor, byte offset in the padded memory) for every element.
  template <class F> void forEach(F f) const {
    size_t flat = 0;
    for (uint32_t i4 = 0; i4 < sizes[4]; ++i4)
      for (uint32_t i3 = 0; i3 < sizes[3]; ++i3)
        for (uint32_t i2 = 0; i2 < sizes[2]; ++i2)
          for (uint32_t i1 = 0; i1 < sizes[1]; ++i1)
            for (uint32_t i0 = 0; i0 < sizes[0]; ++i0, ++flat)
              f(flat, (size_t(i0) * strides[0] + size_t(i1) * strides[1] + size_t(i2) * strides[2] +
                       size_t(i3) * strides[3] + size_t(i4) * strides[4]) * elementSize);
  }
  tpc_tests::TensorDesc2 descriptor() {
    tpc_tests::TensorDesc2 d;
    std::memset(&d, 0, sizeof d);
    d.baseAddrUnion.baseAddr = reinterpret_cast<uint64_t>(memory.data());
    const uint32_t code = elementSize == 4 ? 2 : elementSize == 2 ? 1 : 0;
    d.configuration = TPC_DESC_CONFIGURATION(code, 0x1fu, 4u);
    for (size_t k = 0; k < 5; ++k) d.dimDescriptors[k] = {sizes[k], strides[k]};
    return d;
  }
};

void checkPadded(const std::string& guid, std::vector<HostTensor> inputs,
                 const std::vector<std::pair<DType, std::vector<int64_t>>>& outputs, std::vector<unsigned char> params = {}) {
  SCOPED_TRACE(guid);
  // The dense run.
  const auto dense = runKernel(guid, inputs, outputs, params);
  ASSERT_FALSE(dense.empty());
  // The same node through the C entry point and the test core, on padded tensors.
  std::vector<Padded> tensors;
  for (const HostTensor& t : inputs) tensors.emplace_back(t, 0x5a);
  for (const auto& [type, shape] : outputs) tensors.emplace_back(tpc::makeZeroTensor(type, shape), 0xa5);
  std::vector<Tensor> glue;
  for (const Padded& p : tensors) glue.push_back(tpc::kernels::glueTensor(p.dense));
  HabanaKernelParams hp{};
  hp.deviceId = DEVICE_ID_GAUDI2;
  std::snprintf(hp.guid.name, sizeof hp.guid.name, "%s", guid.c_str());
  hp.inputTensors = glue.data();
  hp.inputTensorNr = static_cast<uint32_t>(inputs.size());
  hp.outputTensors = glue.data() + inputs.size();
  hp.outputTensorNr = static_cast<uint32_t>(outputs.size());
  hp.nodeParams.nodeParams = params.empty() ? nullptr : params.data();
  hp.nodeParams.nodeParamsSize = static_cast<uint32_t>(params.size());
  std::vector<TensorAccessPattern> in(inputs.size() + 1), out(outputs.size() + 1);
  HabanaKernelInstantiation inst{};
  inst.inputTensorAccessPattern = in.data();
  inst.outputTensorAccessPattern = out.data();
  ASSERT_EQ(InstantiateTpcKernel(&hp, &inst), GLUE_INSUFFICIENT_ELF_BUFFER);
  std::vector<char> elf(inst.kernel.elfSize);
  inst.kernel.kernelElf = elf.data();
  ASSERT_EQ(InstantiateTpcKernel(&hp, &inst), GLUE_SUCCESS);
  std::vector<tpc_tests::TensorDesc2> descriptors;
  for (Padded& p : tensors) descriptors.push_back(p.descriptor());
  VPEStats stats{};
  tpc_tests::RunSimulation(hp, inst, descriptors, stats);
  ASSERT_EQ(stats.status, 0) << stats.errorMessage;
  // Outputs: the dense run's bits in every element; the padding untouched.
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Padded& p = tensors[inputs.size() + k];
    std::vector<bool> isElement(p.memory.size(), false);
    int bad = 0;
    p.forEach([&](size_t flat, size_t at) {
      for (uint32_t b = 0; b < p.elementSize; ++b) isElement[at + b] = true;
      if (std::memcmp(&p.memory[at], &dense[k].data[flat * p.elementSize], p.elementSize) != 0 && bad++ < 5)
        ADD_FAILURE() << "output " << k << " element " << flat << " differs from the dense run";
    });
    for (size_t b = 0; b < p.memory.size(); ++b)
      if (!isElement[b] && p.memory[b] != 0xa5 && bad++ < 5) ADD_FAILURE() << "output " << k << ": padding byte " << b << " written";
  }
}

TEST(Padded, KernelsReadAndWriteThroughTheStrides) {
  const std::vector<int64_t> shape = {3, 5, 130};
  const auto x = tensorOf(DType::F32, shape, randomValues(count(shape), -3, 3, 1));
  const auto y = tensorOf(DType::F32, {5, 1}, randomValues(5, -3, 3, 2));
  const auto xb = tensorOf(DType::BF16, shape, randomValues(count(shape), -3, 3, 3));
  checkPadded("relu_fwd_f32", {x}, {{DType::F32, shape}});
  checkPadded("gelu_fwd_bf16", {xb}, {{DType::BF16, shape}});
  checkPadded("add_fwd_f32", {x, y}, {{DType::F32, shape}});
  checkPadded("cast_f32_to_bf16", {x}, {{DType::BF16, shape}});
  for (int dim : {0, 1, 2}) {
    checkPadded("reduce_sum_fwd_f32", {x}, {{DType::F32, reducedShapeOf(shape, dim)}}, paramsOf(tpc_kernels_reduce_params{dim, 0, 0}));
    checkPadded("softmax_fwd_bf16", {xb}, {{DType::BF16, shape}}, paramsOf(tpc_kernels_reduce_params{dim, 0, 0}));
  }
  checkPadded("argmax_fwd_bf16", {xb}, {{DType::I32, reducedShapeOf(shape, 1)}}, paramsOf(tpc_kernels_reduce_params{1, 0, 0}));
  const auto gamma = tensorOf(DType::F32, {130}, randomValues(130, -1, 1, 4));
  checkPadded("layernorm_fwd_f32", {x, gamma, gamma},
              {{DType::F32, shape}, {DType::F32, reducedShapeOf(shape, 0)}, {DType::F32, reducedShapeOf(shape, 0)}});
  const auto a = tensorOf(DType::F32, {2, 9, 70}, randomValues(2 * 9 * 70, -1, 1, 5));
  const auto b = tensorOf(DType::F32, {2, 70, 33}, randomValues(2 * 70 * 33, -1, 1, 6));
  checkPadded("gemm_fwd_f32", {a, b}, {{DType::F32, {2, 9, 33}}});
  tpc_kernels_random_params rp{5, 0, 0.0f, 1.0f, 0.0f, 1.0f, 0.3f};
  checkPadded("random_uniform_fwd_f32", {}, {{DType::F32, shape}}, paramsOf(rp));
  checkPadded("dropout_fwd_f32", {x}, {{DType::F32, shape}, {DType::U8, shape}}, paramsOf(rp));
}

}  // namespace
}  // namespace kltest
