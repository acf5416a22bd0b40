// The C entry points (GetKernelGuids, InstantiateTpcKernel) as a graph compiler calls them: the GUID list,
// the ELF buffer handshake, and every kind of rejection with its precise glue code and a message saying
// what was expected (through tpc::kernels::instantiate, which InstantiateTpcKernel returns the code of).
#include <cstring>
#include <set>

#include "kernel_test.h"
#include "tpc_kernels/library.h"

namespace kltest {
namespace {

using namespace tpc_lib_api;

TEST(EntryPoints, GetKernelGuidsCountsThenLists) {
  for (DeviceId device : {DEVICE_ID_GAUDI, DEVICE_ID_GAUDI2, DEVICE_ID_GAUDI3}) {
    uint32_t count = 0;
    ASSERT_EQ(GetKernelGuids(device, &count, nullptr), GLUE_SUCCESS);
    ASSERT_GT(count, 90u);
    std::vector<GuidInfo> guids(count);
    ASSERT_EQ(GetKernelGuids(device, &count, guids.data()), GLUE_SUCCESS);
    std::set<std::string> names;
    for (const GuidInfo& g : guids) names.insert(g.name);
    EXPECT_EQ(names.size(), count) << "GUIDs repeat";
    for (const char* g : {"relu_fwd_f32", "add_fwd_bf16", "softmax_fwd_f32", "reduce_sum_fwd_bf16", "layernorm_bwd_f32",
                          "gemm_fwd_bf16", "random_normal_fwd_f32", "adamw_fwd_bf16", "cast_f32_to_bf16"})
      EXPECT_TRUE(names.count(g)) << g;
    // gaudi has no f16.
    EXPECT_EQ(names.count("cast_f32_to_f16"), device == DEVICE_ID_GAUDI ? 0u : 1u);
    // Too small an array: the count is set, the call fails.
    uint32_t small = 3;
    std::vector<GuidInfo> few(3);
    EXPECT_EQ(GetKernelGuids(device, &small, few.data()), GLUE_FAILED);
    EXPECT_EQ(small, count);
  }
  uint32_t count = 7;
  EXPECT_EQ(GetKernelGuids(DEVICE_ID_MAX, &count, nullptr), GLUE_SUCCESS);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(GetKernelGuids(DEVICE_ID_GAUDI2, nullptr, nullptr), GLUE_FAILED);
}

// A node of host-tensor shapes (NumPy order) and types, instantiated through the C entry point.
struct Node {
  std::string guid;
  std::vector<HostTensor> inputs, outputs;
  std::vector<unsigned char> params{};  // the {} initializers let tests brace-initialize the first fields only
  uint32_t elfRoom = 1 << 20;
  DeviceId device = DEVICE_ID_GAUDI2;
  // Results
  GlueCodeReturn code = GLUE_FAILED;
  std::string message{};
  HabanaKernelInstantiation inst{};
  std::vector<uint8_t> elf{};

  void instantiate() {
    std::vector<Tensor> tensors;
    for (const HostTensor& t : inputs) tensors.push_back(tpc::kernels::glueTensor(t));
    for (const HostTensor& t : outputs) tensors.push_back(tpc::kernels::glueTensor(t));
    HabanaKernelParams hp{};
    hp.deviceId = device;
    std::snprintf(hp.guid.name, sizeof hp.guid.name, "%s", guid.c_str());
    hp.inputTensors = tensors.data();
    hp.inputTensorNr = static_cast<uint32_t>(inputs.size());
    hp.outputTensors = tensors.data() + inputs.size();
    hp.outputTensorNr = static_cast<uint32_t>(outputs.size());
    hp.nodeParams.nodeParams = params.empty() ? nullptr : params.data();
    hp.nodeParams.nodeParamsSize = static_cast<uint32_t>(params.size());
    static std::vector<TensorAccessPattern> in(8), out(8);
    elf.assign(elfRoom, 0);
    inst = HabanaKernelInstantiation{};
    inst.inputTensorAccessPattern = in.data();
    inst.outputTensorAccessPattern = out.data();
    inst.kernel.kernelElf = elf.data();
    inst.kernel.elfSize = elfRoom;
    // The C entry point on a copy (the call sets elfSize), then the C++ call that gives the message.
    HabanaKernelInstantiation viaC = inst;
    const GlueCodeReturn cCode = InstantiateTpcKernel(&hp, &viaC);
    const tpc::kernels::GlueResult r = tpc::kernels::instantiate(hp, inst);
    EXPECT_EQ(cCode, r.code) << "the C entry point and the C++ call disagree";
    code = r.code;
    message = r.message;
  }
};

HostTensor f32(std::vector<int64_t> shape) { return tpc::makeZeroTensor(DType::F32, shape); }
HostTensor of(DType t, std::vector<int64_t> shape) { return tpc::makeZeroTensor(t, shape); }

// Expects the glue code and a message mentioning each of `words`.
void expectRejection(Node n, GlueCodeReturn code, std::vector<std::string> words) {
  n.instantiate();
  EXPECT_EQ(n.code, code) << n.guid << ": " << tpc::kernels::glueCodeName(n.code) << ": " << n.message;
  for (const std::string& w : words) EXPECT_NE(n.message.find(w), std::string::npos) << n.guid << ": '" << n.message << "' lacks '" << w << "'";
}

TEST(Glue, RejectionsNameTheCodeAndWhatWasExpected) {
  expectRejection({"nonexistent_fwd_f32", {f32({4})}, {f32({4})}}, GLUE_NODE_NOT_FOUND, {"nonexistent_fwd_f32", "tpc-kernels list"});
  expectRejection({"cast_f32_to_f16", {f32({4})}, {of(DType::F16, {4})}, {}, 1 << 20, DEVICE_ID_GAUDI}, GLUE_NODE_NOT_FOUND, {"gaudi"});
  expectRejection({"relu_fwd_f32", {f32({4}), f32({4})}, {f32({4})}}, GLUE_INCOMPATIBLE_INPUT_COUNT, {"1 input", "not 2"});
  expectRejection({"relu_fwd_f32", {f32({4})}, {}}, GLUE_INCOMPATIBLE_OUTPUT_COUNT, {"1 output", "not 0"});
  expectRejection({"relu_fwd_f32", {of(DType::BF16, {4})}, {f32({4})}}, GLUE_INCOMPATIBLE_DATA_TYPE, {"input 0", "f32", "bf16"});
  expectRejection({"add_fwd_f32", {f32({3, 4}), f32({5, 4})}, {f32({3, 4})}}, GLUE_INCOMPATIBLE_INPUT_SIZE, {"do not broadcast", "(3, 4)", "(5, 4)"});
  expectRejection({"add_fwd_f32", {f32({3, 4}), f32({1, 4})}, {f32({3, 5})}}, GLUE_INCOMPATIBLE_OUTPUT_SIZE, {"(3, 4)", "(3, 5)"});
  expectRejection({"reduce_sum_fwd_f32", {f32({3, 4})}, {f32({3, 1})}, paramsOf(tpc_kernels_reduce_params{2, 0, 0})},
                  GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, {"dim", "0 to 1", "not 2"});
  expectRejection({"reduce_sum_fwd_f32", {f32({3, 4})}, {f32({3, 4})}, paramsOf(tpc_kernels_reduce_params{0, 0, 0})},
                  GLUE_INCOMPATIBLE_OUTPUT_SIZE, {"(3, 1)"});
  expectRejection({"softmax_fwd_f32", {f32({3, 4})}, {f32({3, 4})}, paramsOf(tpc_kernels_reduce_params{-1, 0, 0})},
                  GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, {"dim"});
  auto dropoutP = [](float p) {
    tpc_kernels_random_params r{1, 0, 0.0f, 1.0f, 0.0f, 1.0f, p};
    return paramsOf(r);
  };
  for (float p : {1.0f, -0.5f, NAN})
    expectRejection({"dropout_fwd_f32", {f32({8})}, {f32({8}), of(DType::U8, {8})}, dropoutP(p)}, GLUE_KERNEL_INVALID_SCALAR_ARGUMENT,
                    {"p", "[0, 1)"});
  for (float eps : {NAN, -1e-5f})
    expectRejection({"layernorm_fwd_f32", {f32({2, 8}), f32({8}), f32({8})}, {f32({2, 8}), f32({2, 1}), f32({2, 1})},
                     paramsOf(tpc_kernels_norm_params{0, eps})},
                    GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, {"eps"});
  expectRejection({"layernorm_fwd_f32", {f32({2, 8}), f32({7}), f32({8})}, {f32({2, 8}), f32({2, 1}), f32({2, 1})}},
                  GLUE_INCOMPATIBLE_INPUT_SIZE, {"input 1", "(8,)", "(7,)"});
  expectRejection({"gemm_fwd_f32", {f32({3, 4}), f32({5, 6})}, {f32({3, 6})}}, GLUE_INCOMPATIBLE_INPUT_SIZE, {"inner sizes differ"});
  expectRejection({"gemm_fwd_f32", {f32({2, 2, 2, 3, 4}), f32({4, 6})}, {f32({2, 2, 2, 3, 6})}}, GLUE_UNSUPPORTED_5D_TENSORS, {"5 dimensions"});
  expectRejection({"cross_entropy_fwd_f32", {f32({3, 10}), of(DType::I32, {4})}, {f32({4})}}, GLUE_INCOMPATIBLE_INPUT_SIZE, {"labels", "(3, 1)", "(3,)"});
  expectRejection({"cross_entropy_fwd_f32", {f32({3, 10}), f32({3})}, {f32({3})}}, GLUE_INCOMPATIBLE_DATA_TYPE, {"i32"});
  expectRejection({"clamp_fwd_f32", {f32({4})}, {f32({4})}, paramsOf(tpc_kernels_clamp_params{2.0f, 1.0f})},
                  GLUE_KERNEL_INVALID_SCALAR_ARGUMENT, {"low <= high"});
  // Node parameters of another family's size.
  expectRejection({"softmax_fwd_f32", {f32({4})}, {f32({4})}, paramsOf(tpc_kernels_norm_params{0, 1e-5f})},
                  GLUE_UNSUPPORTED_LAYER_CONFIGURATION, {"bytes"});
}

TEST(Glue, EmptyTensorsAreAnEmptyLaunchForElementwiseKernelsAndARejectionForReductions) {
  Node relu{"relu_fwd_f32", {f32({0, 5})}, {f32({0, 5})}};
  relu.instantiate();
  ASSERT_EQ(relu.code, GLUE_SUCCESS) << relu.message;
  uint64_t points = 1;
  for (uint32_t d = 0; d < relu.inst.indexSpaceRank; ++d) points *= relu.inst.indexSpaceGeometry[d];
  EXPECT_EQ(points, 0u);
  // And it runs: nothing to do, nothing written.
  EXPECT_EQ(runKernel("relu_fwd_f32", {f32({0, 5})}, {{DType::F32, {0, 5}}}).size(), 2u);
  expectRejection({"reduce_sum_fwd_f32", {f32({0, 5})}, {f32({0, 1})}}, GLUE_INCOMPATIBLE_INPUT_SIZE, {"empty"});
  expectRejection({"gemm_fwd_f32", {f32({3, 0}), f32({0, 6})}, {f32({3, 6})}}, GLUE_INCOMPATIBLE_INPUT_SIZE, {"at least 1"});
}

TEST(Glue, TooSmallAnElfBufferGetsTheSizeItNeeds) {
  Node n{"gemm_fwd_f32", {f32({8, 8}), f32({8, 8})}, {f32({8, 8})}};
  n.elfRoom = 16;
  n.instantiate();
  EXPECT_EQ(n.code, GLUE_INSUFFICIENT_ELF_BUFFER);
  EXPECT_NE(n.message.find("bytes"), std::string::npos) << n.message;
  const uint32_t needed = n.inst.kernel.elfSize;
  EXPECT_GT(needed, 1000u);
  n.elfRoom = needed;
  n.instantiate();
  EXPECT_EQ(n.code, GLUE_SUCCESS) << n.message;
  EXPECT_EQ(n.inst.kernel.elfSize, needed);
  EXPECT_EQ(std::memcmp(n.elf.data(), "\x7f" "ELF", 4), 0);
}

TEST(Glue, PlansDescribeTheLaunch) {
  // relu over (3, 130) f32: 3 vectors of 64 along dimension 0, 3 rows; each point touches its 64 elements.
  Node n{"relu_fwd_f32", {f32({3, 130})}, {f32({3, 130})}};
  n.instantiate();
  ASSERT_EQ(n.code, GLUE_SUCCESS);
  EXPECT_EQ(n.inst.indexSpaceRank, 2u);
  EXPECT_EQ(n.inst.indexSpaceGeometry[0], 3u);
  EXPECT_EQ(n.inst.indexSpaceGeometry[1], 3u);
  const TensorAccessPattern& in = n.inst.inputTensorAccessPattern[0];
  EXPECT_EQ(in.mapping[0].a, 64.0f);
  EXPECT_EQ(in.mapping[0].end_b, 63.0f);
  EXPECT_EQ(in.mapping[1].a, 1.0f);
  // Split the rows first (the interface's d + 1): cores get whole rows, along which the kernel loops.
  EXPECT_EQ(n.inst.preferredSplitDim, 2u);
  // layernorm_bwd zeroes dgamma and dbeta before the launch (they are summed into).
  Node ln{"layernorm_bwd_f32", {f32({2, 8}), f32({2, 8}), f32({8}), f32({2, 1}), f32({2, 1})}, {f32({2, 8}), f32({8}), f32({8})}};
  ln.instantiate();
  ASSERT_EQ(ln.code, GLUE_SUCCESS) << ln.message;
  EXPECT_FALSE(ln.inst.outputTensorAccessPattern[0].memsetBeforeExecution);
  EXPECT_TRUE(ln.inst.outputTensorAccessPattern[1].memsetBeforeExecution);
  EXPECT_TRUE(ln.inst.outputTensorAccessPattern[2].memsetBeforeExecution);
  // adamw's outputs may reuse their inputs (in place).
  Node adam{"adamw_fwd_f32", {f32({8}), f32({8}), f32({8}), f32({8})}, {f32({8}), f32({8}), f32({8})}};
  adam.instantiate();
  ASSERT_EQ(adam.code, GLUE_SUCCESS) << adam.message;
  EXPECT_EQ(adam.inst.outputTensorAccessPattern[0].inputsReusability, 1u);
  EXPECT_EQ(adam.inst.outputTensorAccessPattern[1].inputsReusability, 4u);
  EXPECT_EQ(adam.inst.outputTensorAccessPattern[2].inputsReusability, 8u);
}

}  // namespace
}  // namespace kltest
