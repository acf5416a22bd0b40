// The table rows of the families covered here against declarations of the public TPC-C intrinsic
// reference (interface facts: names, parameter types and names in order, defaults), written out here.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tpc/isa/intrinsics.h"

namespace itest {
namespace {

const char* const kReference[] = {
    // local memory
    "float s_f32_ld_l(uint32_t addr, int switches=0, float income={}, bool predicate=1, bool polarity=0)",
    "uint8_t s_u8_ld_l(uint32_t addr, int switches=0, uint8_t income={}, bool predicate=1, bool polarity=0)",
    "bool s_i1_ld_l(uint32_t addr, int switches=0, bool income={}, bool predicate=1, bool polarity=0)",
    "void s_bf16_st_l(uint32_t addr, bf16 value, int switches=0, bool predicate=1, bool polarity=0)",
    "void s_i1_st_l(uint32_t addr, bool value, int switches=0, bool predicate=1, bool polarity=0)",
    "float64 v_f32_ld_l_v_b(uint32_t addr, int switches=0, float64 income={}, bool predicate=1, bool polarity=0)",
    "short128 v_i16_ld_l_v_vb(uint32_t addr, int switches, short128 income, bool128 predicate, bool polarity=0)",
    "void v_u8_st_l_v(uint32_t addr, uchar256 value, int switches=0, bool predicate=1, bool polarity=0)",
    "void v_f32_st_l_v_vb(uint32_t addr, float64 value, int switches, bool64 predicate, bool polarity=0)",
    // global memory
    "__global void* gen_addr(int5 inx, int8_t tensor, int switches=0, __global void* income={}, bool predicate=1, bool polarity=0)",
    "int32_t s_i32_ld_g(__global void* addr, int switches=0, int32_t income={}, bool predicate=1, bool polarity=0)",
    "bfloat128 v_bf16_ld_g(__global void* addr, int switches=0, bfloat128 income={}, bool predicate=1, bool polarity=0)",
    "void s_f32_st_g(__global void* addr, float value, int switches=0, bool predicate=1, bool polarity=0)",
    "void prefetch(__global void* a, int switches=0, bool predicate=1, bool polarity=0)",
    // int5
    "int5 i_i32_add(int5 a, int5 b, const int dimmask, int switches, int5 income, bool predicate=1, bool polarity=0)",
    "int5 i_i32_xor(int5 a, int5 b, const int dimmask, int switches, int5 income, bool predicate=1, bool polarity=0)",
    "int5 i_i32_mov(int5 a, int dimmask, int switches, int5 income, bool predicate=1, bool polarity=0)",
    "int5 set_indx(int value, int5 ndx, const int dimmask, int switches, bool predicate=1, bool polarity=0)",
    "int32_t mov_irf_dim(int5 src, const int8_t dim, int switches, int32_t income={}, bool predicate=1, bool polarity=0)",
    // predicates
    "bool s_i1_and(bool a, bool b, int switches=0, bool income={}, bool predicate=1, bool polarity=0)",
    "bool256 v_i1_and_b(bool256 a, bool256 b, int switches=0, bool256 income={}, bool predicate=1, bool polarity=0)",
    "bool256 v_i1_and_vb(bool256 a, bool256 b, int switches, bool256 income, bool256 predicate, bool polarity=0)",
    "bool256 v_i1_mov_vb(bool256 a, int switches, bool256 income, bool256 predicate, bool polarity=0)",
    "bool256 v_i1_mov_b(bool256 a, int switches=0, bool256 income={}, bool predicate=1, bool polarity=0)",
    "bool256 v_i1_mov_i1_b(bool a, int switches=0, bool256 income={}, bool predicate=1, bool polarity=0)",
    "bool256 v_i1_mov_i1_vb(bool a, int switches, bool256 income, bool256 predicate, bool polarity=0)",
    // converts
    "int32_t s_convert_f32_to_i32(float src, int switches=0, int32_t income={}, bool predicate=1, bool polarity=0)",
    "bf16 s_convert_i8_to_bf16(uint8_t src, int switches=0, bf16 income={}, bool predicate=1, bool polarity=0)",
    "half s_convert_i8_to_f16(uint8_t src, int switches=0, half income={}, bool predicate=1, bool polarity=0)",
    "uint8_t s_convert_u16_to_u8(uint16_t src, int switches=0, uint8_t income={}, bool predicate=1, bool polarity=0)",
    "int64 v_convert_f32_to_i32_b(float64 src, int switches=0, int64 income={}, bool predicate=1, bool polarity=0)",
    "int64 v_convert_f32_to_i32_vb(float64 src, int switches, int64 income, bool64 predicate, bool polarity=0)",
    "half128 v_convert_bf16_to_f16_b(bfloat128 src, int switches=0, half128 income={}, bool predicate=1, bool polarity=0)",
    "char256 v_convert_u8_to_i8_vb(uchar256 src, int switches, char256 income, bool256 predicate, bool polarity=0)",
    "float64 convert_int64_to_float64(int64 a, const int options)",
    "ushort128 convert_short128_to_ushort128(short128 a, const int options)",
    // tensor forms
    "float64 v_f32_ld_tnsr_partial_b(int5 ndx, int8_t tensor, int8_t size, int8_t offset, int switches=0, float64 income={}, bool predicate=1, bool polarity=0)",
    "uchar256 v_u8_ld_tnsr_partial_vb(int5 ndx, int8_t tensor, int8_t size, int8_t offset, int switches, uchar256 income, bool256 predicate, bool polarity=0)",
    "void v_i16_st_tnsr_partial(int5 ndx, int8_t tensor, short128 value, int8_t size, int8_t offset, int switches=0, bool predicate=1, bool polarity=0)",
    "void v_f32_st_tnsr_rmw(int5 ndx, int8_t tensor, float64 value, int rmw, int switches=0, bool predicate=1, bool polarity=0)",
    "void v_bf16_st_tnsr_partial_rmw(int5 ndx, int8_t tensor, bfloat128 value, int rmw, int8_t size, int8_t offset, int switches=0, bool predicate=1, bool polarity=0)",
    "void v_i32_st_tnsr_low(int5 ndx, const int8_t tensor, int64 value, int switches=0, bool predicate=1, bool polarity=0)",
    "void v_u16_st_tnsr_high(int5 ndx, const int8_t tensor, ushort128 value, int switches=0, bool predicate=1, bool polarity=0)",
    "void v_i8_st_tnsr_high_rmw(int5 ndx, int8_t tensor, char256 value, int rmw, int switches=0, bool predicate=1, bool polarity=0)",
    // lane movement and floating-point helpers
    "float64 v_f32_mov_dual_group_b(float64 a, const uint32_t b, const int src_dg, const int dest_dg, int switches, float64 income, bool predicate=1, bool polarity=0)",
    "short128 v_i16_mov_dual_group_vb(short128 a, const uint32_t b, const int src_dg, const int dest_dg, int switches, short128 income, bool128 predicate, bool polarity=0)",
    "uint64 v_u32_mov_dual_group_all_b(uint64 a, const uint32_t b, const int sdg0, const int sdg1, const int sdg2, const int sdg3, int switches, uint64 income, bool predicate=1, bool polarity=0)",
    "float64 v_f32_calc_fp_special_b(float64 src1, float64 src2, int switches, float64 income, bool predicate=1, bool polarity=0)",
    "bfloat128 v_bf16_calc_fp_special_vb(bfloat128 src1, bfloat128 src2, int switches, bfloat128 income, bool128 predicate, bool polarity=0)",
    "float64 v_f32_form_fp_num_b(float64 a, float64 b, float64 c, int switches=0, float64 income={}, bool predicate=1, bool polarity=0)",
    "bfloat128 v_bf16_form_fp_num_vb(bfloat128 a, bfloat128 b, bfloat128 c, int switches, bfloat128 income, bool128 predicate, bool polarity=0)",
};

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// Splits "T name" after the last space or '*'.
std::pair<std::string, std::string> typeAndName(std::string s) {
  s = trim(s);
  size_t k = s.find_last_of(" *");
  return {trim(s.substr(0, k + 1)), trim(s.substr(k + 1))};
}

TEST(Signatures, NewFamiliesMatchTheReference) {
  for (const char* decl : kReference) {
    std::string d = decl;
    size_t open = d.find('('), close = d.rfind(')');
    auto [ret, name] = typeAndName(d.substr(0, open));
    SCOPED_TRACE(name);
    const tpc::isa::IntrinsicInfo* in = tpc::isa::findIntrinsic(name);
    ASSERT_NE(in, nullptr) << "missing";
    EXPECT_EQ(in->returnType, ret);
    std::stringstream body(d.substr(open + 1, close - open - 1));
    std::string part;
    size_t i = 0;
    while (std::getline(body, part, ',')) {
      std::string def;
      if (size_t eq = part.find('='); eq != std::string::npos) {
        def = trim(part.substr(eq + 1));
        part = part.substr(0, eq);
      }
      auto [type, pname] = typeAndName(part);
      ASSERT_LT(i, in->params.size());
      EXPECT_EQ(in->params[i].type, type) << "parameter " << i;
      EXPECT_EQ(in->params[i].name, pname) << "parameter " << i;
      EXPECT_EQ(in->params[i].defaultValue.value_or(""), def) << "parameter " << i;
      ++i;
    }
    EXPECT_EQ(i, in->params.size());
  }
}

}  // namespace
}  // namespace itest
