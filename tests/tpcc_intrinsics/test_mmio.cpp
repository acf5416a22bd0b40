// MMIO registers through s_u32_ld_l / s_u32_st_l with SW_MMIO, and converts with SW_CSR that round by the
// mode CONV_ROUND_CSR holds (docs/tpc-c.md, "MMIO registers"). The reference rounds each element on the host
// (itest::roundToInteger), independently of the simulator's semantics.
#include "itest.h"

namespace {

using namespace itest;

class Mmio : public IntrinsicsTest {};

// Each vector is loaded before the CSR is set, so only the ordering of the MMIO store before the convert
// makes the convert use the new mode; a second convert after the restoring store uses the old one.
constexpr const char* kRoundByCsr = R"(
#define CONV_ROUND_CSR 0xCA8
void main(tensor in, tensor out, tensor csr, unsigned int mode)
{
    const int5 start = get_index_space_offset();
    const int5 end = start + get_index_space_size();
    const unsigned int before = s_u32_ld_l(CONV_ROUND_CSR, SW_MMIO);
    int5 c = 0;
    for (int i = start[0]; i < end[0]; i++) {
        c[0] = i * 64;
        c[1] = 0;
        float64 x = v_f32_ld_tnsr_b(c, in);
        float s = s_f32_ld_g((__global__ float*)gen_addr(c, in));
        s_u32_st_l(CONV_ROUND_CSR, mode, SW_MMIO);
        int64 y = v_convert_f32_to_i32_b(x, SW_CSR);
        int first = s_convert_f32_to_i32(s, SW_CSR);
        const unsigned int now = s_u32_ld_l(CONV_ROUND_CSR, SW_MMIO);
        s_u32_st_l(CONV_ROUND_CSR, before, SW_MMIO);
        int64 z = v_convert_f32_to_i32_b(x, SW_CSR);
        v_i32_st_tnsr(c, out, y);
        c[1] = 1;
        v_i32_st_tnsr(c, out, z);
        int5 k = {i, 0, 0, 0, 0};
        s_i32_st_g((__global__ int*)gen_addr(k, csr), first);
        k[1] = 1;
        s_u32_st_g((__global__ unsigned int*)gen_addr(k, csr), now);
        k[1] = 2;
        s_u32_st_g((__global__ unsigned int*)gen_addr(k, csr), s_u32_ld_l(CONV_ROUND_CSR, SW_MMIO));
    }
}
)";

TEST_P(Mmio, ConvertsRoundByConvRoundCsr) {
  auto text = build(kRoundByCsr);
  if (text.empty()) return;
  const int64_t n = 300, nv = vectors(n, 64);
  std::vector<uint32_t> inBits(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    // Halves, quarters and plain fractions of both signs: every mode rounds some of them differently.
    const float v = static_cast<float>((i % 2 ? -1 : 1) * ((i * 37) % 400)) / (i % 3 ? 4.0f : 10.0f);
    inBits[static_cast<size_t>(i)] = bitsOf(v);
  }
  struct Mode {
    uint32_t code;  // the vendor's rounding code written to the CSR
    Rm rm;
  };
  for (Mode m : {Mode{0, Rm::RHNE}, Mode{1, Rm::RZ}, Mode{2, Rm::RU}, Mode{3, Rm::RD}, Mode{6, Rm::RHAZ}}) {
    SCOPED_TRACE("CONV_ROUND_CSR mode " + std::to_string(m.code));
    RunResult r = exec(text, {makeTensor(type("f32"), {n}, inBits), makeTensor(type("i32"), {n, 2}),
                              makeTensor(type("u32"), {nv, 3})},
                       {m.code}, {nv, 1, 1, 1, 1});
    if (r.tensors.empty()) return;
    std::vector<uint32_t> want(static_cast<size_t>(2 * n)), csr(static_cast<size_t>(3 * nv));
    for (int64_t i = 0; i < n; ++i) {
      const double x = floatOf(inBits[static_cast<size_t>(i)]);
      want[static_cast<size_t>(i)] = static_cast<uint32_t>(static_cast<int32_t>(roundToInteger(x, m.rm)));
      want[static_cast<size_t>(n + i)] = static_cast<uint32_t>(static_cast<int32_t>(roundToInteger(x, Rm::RHNE)));
    }
    for (int64_t v = 0; v < nv; ++v) {
      const double first = floatOf(inBits[static_cast<size_t>(v * 64)]);
      csr[static_cast<size_t>(v)] = static_cast<uint32_t>(static_cast<int32_t>(roundToInteger(first, m.rm)));
      csr[static_cast<size_t>(nv + v)] = m.code;  // read back while set
      csr[static_cast<size_t>(2 * nv + v)] = 0;   // restored: the reset value, RHNE
    }
    expectElements(r.tensors[1], want, "v_convert_f32_to_i32_b(SW_CSR) while set, then after the restore");
    expectElements(r.tensors[2], csr, "s_convert_f32_to_i32(SW_CSR), CONV_ROUND_CSR read back, restored");
  }
}

// aso counts SEMAPHORE (SW_INC up, SW_DEC down; SW_SPU/SW_VPU only name a pipeline stage), and the
// semaphore accessors read and write it. The loop is the vendor's store fence: store, aso, spin until the
// count moves; it must end, and every read must see the aso before it.
TEST_P(Mmio, AsoCountsTheSemaphore) {
  auto text = build(R"(
void main(tensor in, tensor out, tensor counts)
{
    int5 k = 0;
    set_semaphore_value(5);
    unsigned int v[4];
    v[0] = get_semaphore_value();
    aso(SW_INC);
    v[1] = get_semaphore_value();
    aso(SW_INC | SW_VPU);
    v[2] = get_semaphore_value();
    aso(SW_DEC | SW_SPU);
    v[3] = get_semaphore_value();
    for (int j = 0; j < 4; j++) {
        k[0] = j;
        s_u32_st_g((__global__ unsigned int*)gen_addr(k, counts), v[j]);
    }
    int count = get_semaphore_value();
    int5 c = 0;
    for (int i = 0; i < 3; i++) {
        c[0] = i * 64;
        v_f32_st_tnsr(c, out, v_f32_ld_tnsr_b(c, in) * 2.0f);
        aso(SW_INC | SW_VPU);
        volatile int a = get_semaphore_value();
        while (a == count) a = get_semaphore_value();
        count++;
    }
    k[0] = 4;
    s_u32_st_g((__global__ unsigned int*)gen_addr(k, counts), get_semaphore_value());
}
)");
  if (text.empty()) return;
  std::vector<uint32_t> in(192), twice(192);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = bitsOf(static_cast<float>(i) - 50.5f);
    twice[i] = bitsOf((static_cast<float>(i) - 50.5f) * 2.0f);
  }
  RunResult r = exec(text, {makeTensor(type("f32"), {192}, in), makeTensor(type("f32"), {192}),
                            makeTensor(type("u32"), {5})},
                     {}, {1, 1, 1, 1, 1}, 1);
  if (r.tensors.empty()) return;
  expectElements(r.tensors[2], {5, 6, 7, 6, 9}, "SEMAPHORE after set, aso inc, inc, dec, three fenced stores");
  expectElements(r.tensors[1], twice, "the stores the aso fences");
}

// An MMIO offset the architecture does not model is a fault that names it, not a silent value.
TEST_P(Mmio, UnmodelledOffsetFaults) {
  auto text = build(R"(
void main(tensor out)
{
    int5 c = 0;
    s_u32_st_g((__global__ unsigned int*)gen_addr(c, out), s_u32_ld_l(0xD68, SW_MMIO));
}
)");
  if (text.empty()) return;
  RunResult r = run(text, {makeTensor(type("u32"), {1})}, {}, {1, 1, 1, 1, 1}, 1);
  EXPECT_NE(r.fault.find("MMIO offset 0xd68"), std::string::npos) << r.fault;
  EXPECT_NE(r.fault.find("CONV_ROUND_CSR is 0xca8, SEMAPHORE 0xd74"), std::string::npos) << r.fault;
}

ITEST_INSTANTIATE(Mmio);

}  // namespace
