// Tensor arguments chosen at run time: `c ? x : y` in the source, an if/else that assigns a tensor
// variable, a tensor variable carried around a loop, and if/else arms that call the same intrinsic on
// different tensors (which LLVM merges into one call of a select between tensors, tests/regressions/
// seed91788). Each compiles at -O0 and -O2 and accesses the tensor the run chose.
#include "itest.h"

namespace itest {
namespace {

class TensorChoices : public IntrinsicsTest {};

const char* const kChoices = R"(
void main(tensor x, tensor y, tensor out0, tensor out1, int pick)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    tensor src = (pick & 1) ? x : y;
    tensor dst = out0;
    if (pick & 2) dst = out1;
    tensor t = x;
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        int n;
        if (pick & 4) n = get_dim_size(x, 0);
        else n = get_dim_size(y, 0);
        v_f32_st_tnsr(c, dst, v_f32_ld_tnsr_b(c, src) + (float)n);
        float64 b = v_f32_ld_tnsr_b(c, t);
        c[1] = 1;
        v_f32_st_tnsr(c, dst, b);
        t = (v & 1) ? x : y;
    }
}
)";

TEST_P(TensorChoices, TheChosenTensorIsAccessed) {
  const Type& f32 = type("f32");
  auto text = build(kChoices);
  if (text.empty()) return;
  const int64_t nx = 200, ny = 190;  // ragged, and y shorter: its loads past 190 read the padding (0)
  auto xs = sampleBits(f32, nx, 31), ys = sampleBits(f32, ny, 32);
  for (uint32_t pick = 0; pick < 8; ++pick) {
    SCOPED_TRACE("pick " + std::to_string(pick));
    RunResult r = exec(text, {makeTensor(f32, {nx}, xs), makeTensor(f32, {ny}, ys), makeTensor(f32, {nx, 2}),
                              makeTensor(f32, {nx, 2})},
                       {pick}, {vectors(nx, 64), 1, 1, 1, 1}, /*cores=*/1);
    if (r.tensors.empty()) continue;
    auto element = [&](const std::vector<uint32_t>& v, int64_t i) { return i < static_cast<int64_t>(v.size()) ? v[static_cast<size_t>(i)] : 0u; };
    const float n = (pick & 4) ? nx : ny;
    std::vector<uint32_t> want(static_cast<size_t>(2 * nx)), zero(want.size(), 0);
    for (int64_t i = 0; i < nx; ++i) {
      const uint32_t a = element((pick & 1) ? xs : ys, i);
      want[static_cast<size_t>(i)] = bitsOf(floatOf(a) + n);
      const int64_t v = i / 64;  // vector v reads x first, then x after an odd vector, y after an even one
      want[static_cast<size_t>(nx + i)] = element(v == 0 || ((v - 1) & 1) ? xs : ys, i);
    }
    expectElements(r.tensors[(pick & 2) ? 3 : 2], want, "the chosen output");
    expectElements(r.tensors[(pick & 2) ? 2 : 3], zero, "the other output");
  }
}

ITEST_INSTANTIATE(TensorChoices);

}  // namespace
}  // namespace itest
