// Bad uses of the intrinsics: tpc-clang reports FILE:LINE:COL: error: at the call, exits with status 1 and
// writes no object.
#include "itest.h"

namespace itest {
namespace {

class Errors : public IntrinsicsTest {};

struct BadUse {
  const char* body;     // the kernel body's one offending statement (line 4 of the source)
  const char* message;  // part of the diagnostic
};

const BadUse kBadUses[] = {
    {"v_f32_st_tnsr(c, out, v_f32_add_b(x, x, sw));", "argument 'switches' must be a compile-time constant"},
    {"v_f32_st_tnsr(c, out, v_f32_add_b(x, x, 1 << 5));", "switch bits 0x20 are not supported"},
    {"v_f32_st_tnsr(c, k, x);", "the tensor argument must be a tensor parameter"},
    {"c = i_i32_add(c, c, sw, 0, c); v_f32_st_tnsr(c, out, x);", "argument 'dimmask' must be a compile-time constant"},
    {"c = i_i32_add(c, c, 0x20, 0, c); v_f32_st_tnsr(c, out, x);", "dimmask 0x20"},
    {"v_f32_st_tnsr(c, out, v_convert_i32_to_f32_b(v_i32_ld_tnsr_b(c, in), SW_CLIP_FP));",
     "switch bits 0x100000 are not supported"},
    {"v_f32_st_tnsr(c, out, v_f32_form_fp_num_b(x, x, x, SW_SIGN_LSB));", "switch bits 0x1000 are not supported"},
    {"v_f32_st_tnsr(c, out, v_f32_calc_fp_special_b(x, x, sw, x));", "argument 'switches' must be a compile-time constant"},
    {"v_f32_st_tnsr_rmw(c, out, x, RMW_OP_ADD | RMW_SET | RMW_DT_BF16);", "rmw data type"},
    {"v_f32_st_tnsr_rmw(c, out, x, (4 << 4) | RMW_SET | RMW_DT_FP32);", "RMW_OP_MAX_0_ADD"},
    {"v_f32_st_tnsr(c, out, v_f32_mov_dual_group_b(x, 0xFF, 1, 0, 0x3001, x));", "bits 0x1 are not supported"},
    {"v_f32_st_tnsr(c, out, v_f32_mov_dual_group_b(x, sw, 1, 0, 0x3000, x));", "argument 'b' must be a compile-time constant"},
    {"v_f32_st_tnsr(c, out, v_f32_mov_dual_group_b(x, 0xFFFFFFFF, 4, 0, 0x3000, x));", "dual groups are 0..3"},
    {"v_f32_st_tnsr(c, out, v_f32_ld_g(gen_addr(c, in, 0, 0, k > 1)));", "gen_addr: a predicate"},
    {"s_f32_st_l(0, 1.0f, SW_LOCK);", "switch bits 0x2 are not supported"},
    {"s_i16_st_l(0, 1, SW_MMIO);", "SW_MMIO needs a 32-bit type"},
    {"v_f32_st_l_v(0, x, SW_MMIO);", "switch bits 0x1 are not supported"},
    {"v_f32_st_tnsr(c, out, v_f32_ld_l_v_b(256, 0, x, sw > 0, sw));", "argument 'polarity' must be a compile-time constant"},
    {"v_f32_st_tnsr(c, out, v_f32_lookup_1c(v_u32_ld_tnsr_b(c, in), 5, 0, x));", "fid 5 is not a built-in table"},
    {"v_f32_st_tnsr(c, out, v_f32_lookup_1c(v_u32_ld_tnsr_b(c, in), e_bf16_tanh, 0, x));", "fid 257 is not a built-in table"},
    {"v_f32_st_tnsr(c, out, v_f32_lookup(v_u32_ld_tnsr_b(c, in), 4, SW_LUT_PTR, x));", "(table << 2) | 3"},
    {"v_f32_st_tnsr(c, out, v_f32_get_lut_entry_and_interval_start_b(x, 17, SW_LUT_LOG).v2);", "SW_LUT_LOG"},
    {"v_f32_st_tnsr(c, out, v_f32_lookup_1c(v_u32_ld_tnsr_b(c, in), sw, 0, x));", "argument 'fid' must be a compile-time constant"},
    {"v_f32_st_tnsr(c, out, v_f32_get_lut_entry_and_interval_start_b(x, 24).v2);", "shift 24 is out of range"},
    {"v_f32_st_tnsr(c, out, x, SW_PACK);", "SW_PCK_32_TO_16 needs 16-bit elements"},
    {"v_u8_st_tnsr(c, out, v_u8_ld_tnsr_b(c, in), SW_PACK | SW_PCK_8_TO_4);", "SW_PCK_8_TO_4 is not supported"},
    {"v_bf16_st_tnsr_low(c, out, v_bf16_ld_tnsr_b(c, in), SW_PACK);", "SW_PACK is not supported by the half-vector"},
    {"v_f32_st_tnsr(c, out, v_f32_ld_tnsr_b(c, in, SW_UNPACK | SW_UNPCK_8_TO_32));", "SW_UNPCK_8_TO_32 needs 8-bit"},
};

const char* const kBadKernel = R"(void main(tensor in, tensor out, int k, int sw)
{
    int5 c = get_index_space_offset(); float64 x = v_f32_ld_tnsr_b(c, in);
    {BODY}
}
)";

TEST_P(Errors, BadUsesAreCleanErrors) {
  for (const BadUse& b : kBadUses) {
    SCOPED_TRACE(b.body);
    Compiled c = compile(fill(kBadKernel, {{"BODY", b.body}}), GetParam());
    EXPECT_EQ(c.status, 1) << c.diagnostics;
    EXPECT_FALSE(c.objectWritten);
    std::smatch m;
    std::regex diag(R"(^k\.c:(\d+):(\d+): error: (.*)$)");
    std::string first = c.diagnostics.substr(0, c.diagnostics.find('\n'));
    ASSERT_TRUE(std::regex_match(first, m, diag)) << c.diagnostics;
    EXPECT_EQ(m[1].str(), "4") << "the error names the line of the call: " << first;
    EXPECT_NE(m[3].str().find(b.message), std::string::npos) << first;
  }
}

ITEST_INSTANTIATE(Errors);

}  // namespace
}  // namespace itest
