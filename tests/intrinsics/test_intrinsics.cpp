// The intrinsic table (tpc::isa::allIntrinsics) against facts written here, independently of the table code:
// signatures of the public TPC-C intrinsic reference (return type, parameter types and names in order,
// defaults), consistency with the ISA tables, and that the generated tpc-intrinsics.h compiles with
// tpc-defs.h in C and in C++ and accepts calls that rely on default arguments.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "tpc/isa/intrinsics.h"
#include "tpc/isa/isa.h"

namespace tpc::isa {
namespace {

// ------------------------------------------------------------------------------------------ known answers

// Declarations as the reference spells them (interface facts: names, types, order, defaults).
const char* const kKnownSignatures[] = {
    // vector binary, every type family
    "float64 v_f32_add_b(float64 a, float64 b, int switches=0, float64 income={}, bool predicate=1, bool polarity=0)",
    "float64 v_f32_add_vb(float64 a, float64 b, int switches, float64 income, bool64 predicate, bool polarity=0)",
    "bfloat128 v_bf16_sub_b(bfloat128 a, bfloat128 b, int switches=0, bfloat128 income={}, bool predicate=1, bool polarity=0)",
    "half128 v_f16_mul_vb(half128 a, half128 b, int switches, half128 income, bool128 predicate, bool polarity=0)",
    "int64 v_i32_max_vb(int64 a, int64 b, int switches, int64 income, bool64 predicate, bool polarity=0)",
    "uchar256 v_u8_min_b(uchar256 a, uchar256 b, int switches=0, uchar256 income={}, bool predicate=1, bool polarity=0)",
    "short128 v_i16_and_b(short128 a, short128 b, int switches=0, short128 income={}, bool predicate=1, bool polarity=0)",
    "ushort128 v_u16_or_vb(ushort128 a, ushort128 b, int switches, ushort128 income, bool128 predicate, bool polarity=0)",
    "char256 v_i8_xor_b(char256 a, char256 b, int switches=0, char256 income={}, bool predicate=1, bool polarity=0)",
    // vector unary: abs has income=0, not/mov/fclass income={}
    "float64 v_f32_abs_b(float64 a, int switches=0, float64 income=0, bool predicate=1, bool polarity=0)",
    "char256 v_i8_abs_vb(char256 a, int switches, char256 income, bool256 predicate, bool polarity=0)",
    "float64 v_f32_not_b(float64 a, int switches=0, float64 income={}, bool predicate=1, bool polarity=0)",
    "uint64 v_u32_mov_vb(uint64 a, int switches, uint64 income, bool64 predicate, bool polarity=0)",
    "bfloat128 v_bf16_mov_b(bfloat128 a, int switches=0, bfloat128 income={}, bool predicate=1, bool polarity=0)",
    "float64 v_f32_fclass_b(float64 a, int switches=0, float64 income={}, bool predicate=1, bool polarity=0)",
    // mac / madd
    "float64 v_f32_mac_b(float64 a, float64 b, float64 accumulator, int switches=0, bool predicate=1, bool polarity=0)",
    "bfloat128 v_bf16_mac_vb(bfloat128 a, bfloat128 b, bfloat128 accumulator, int switches, bool128 predicate, bool polarity=0)",
    "half128 v_f16_madd_b(half128 a, half128 b, half128 c, int switches=0, half128 income={}, bool predicate=1, bool polarity=0)",
    // shifts: the shift amount is a signed vector of the lane width
    "int64 v_i32_shl_b(int64 a, int64 b, int switches=0, int64 income={}, bool predicate=1, bool polarity=0)",
    "uint64 v_u32_shr_b(uint64 a, int64 b, int switches=0, uint64 income={}, bool predicate=1, bool polarity=0)",
    "ushort128 v_u16_shr_vb(ushort128 a, short128 b, int switches, ushort128 income, bool128 predicate, bool polarity=0)",
    "uchar256 v_u8_shl_b(uchar256 a, char256 b, int switches=0, uchar256 income={}, bool predicate=1, bool polarity=0)",
    // comparisons
    "bool64 v_f32_cmp_eq_b(float64 a, float64 b, int switches=0, bool64 income={}, bool predicate=1, bool polarity=0)",
    "bool128 v_bf16_cmp_less_vb(bfloat128 a, bfloat128 b, int switches, bool128 income, bool128 predicate, bool polarity=0)",
    "bool256 v_u8_cmp_geq_b(uchar256 a, uchar256 b, int switches=0, bool256 income={}, bool predicate=1, bool polarity=0)",
    "bool128 v_f16_cmp_neq_b(half128 a, half128 b, int switches=0, bool128 income={}, bool predicate=1, bool polarity=0)",
    // select
    "float64 v_f32_sel_grt_u32_b(uint64 a, uint64 b, float64 c, float64 d, int switches=0, float64 income={}, bool predicate=1, bool polarity=0)",
    "short128 v_i16_sel_eq_bf16_vb(bfloat128 a, bfloat128 b, short128 c, short128 d, int switches, short128 income, bool128 predicate, bool polarity=0)",
    "uchar256 v_u8_sel_less_i8_b(char256 a, char256 b, uchar256 c, uchar256 d, int switches=0, uchar256 income={}, bool predicate=1, bool polarity=0)",
    // integer mul and mac widen: pairs (int128, uint128) or quads (int256, uint256)
    "int128 v_i32_mul_b(int64 a, int64 b, int switches=0, int128 income={}, bool predicate=1, bool polarity=0)",
    "uint128 v_u32_mul_vb(uint64 a, uint64 b, int switches, uint128 income, bool64 predicate, bool polarity=0)",
    "int128 v_i16_mul_vb(short128 a, short128 b, int switches, int128 income, bool128 predicate, bool polarity=0)",
    "uint256 v_u8_mul_b(uchar256 a, uchar256 b, int switches=0, uint256 income={}, bool predicate=1, bool polarity=0)",
    "int128 v_i16_mac_b(short128 a, short128 b, int128 accumulator, int switches=0, bool predicate=1, bool polarity=0)",
    "int256 v_i8_mac_vb(char256 a, char256 b, int256 accumulator, int switches, bool256 predicate, bool polarity=0)",
    // up-converts: no lane
    "float64 v_convert_i16_to_f32_b(short128 src, int switches=0, float64 income={}, bool predicate=1, bool polarity=0)",
    "short128 v_convert_i8_to_i16_vb(char256 src, int switches, short128 income, bool128 predicate, bool polarity=0)",
    "uint64 v_convert_i8_to_u32_vb(char256 src, int switches, uint64 income, bool64 predicate, bool polarity=0)",
    // down-converts with a lane: no defaults before the predicate
    "short128 v_convert_f32_to_i16_b(float64 src, const int lane, int switches, short128 income, bool predicate=1, bool polarity=0)",
    "char256 v_convert_f32_to_i8_vb(float64 src, const int lane, int switches, char256 income, bool256 predicate, bool polarity=0)",
    "bfloat128 v_convert_i32_to_bf16_vb(int64 src, const int lane, int switches, bfloat128 income, bool64 predicate, bool polarity=0)",
    "uchar256 v_convert_i16_to_u8_b(short128 src, const int lane, int switches, uchar256 income, bool predicate=1, bool polarity=0)",
    "char256 v_convert_i16_to_i8_vb(short128 src, const int lane, int switches, char256 income, bool128 predicate, bool polarity=0)",
    "int32_t s_i16_mul(int16_t a, int16_t b, int switches=0, int32_t income={}, bool predicate=1, bool polarity=0)",
    "uint32_t s_u8_mac(uint8_t a, uint8_t b, uint32_t accumulator, int switches=0, bool predicate=1, bool polarity=0)",
    // tensor access: ld_tnsr_b takes a const int8_t tensor except for bf16/f16; _vb and st_tnsr as below
    "float64 v_f32_ld_tnsr_b(int5 ndx, const int8_t tensor, int switches=0, float64 income={}, bool predicate=1, bool polarity=0)",
    "bfloat128 v_bf16_ld_tnsr_b(int5 ndx, int8_t tensor, int switches=0, bfloat128 income={}, bool predicate=1, bool polarity=0)",
    "int64 v_i32_ld_tnsr_vb(int5 ndx, int8_t tensor, int switches, int64 income, bool64 predicate, bool polarity=0)",
    "void v_f16_st_tnsr(int5 ndx, const int8_t tensor, half128 value, int switches=0, bool predicate=1, bool polarity=0)",
    "void v_u8_st_tnsr(int5 ndx, const int8_t tensor, uchar256 value, int switches=0, bool predicate=1, bool polarity=0)",
    // lane ids
    "uint64 read_lane_id_4b_b(uint64 income={}, bool predicate=1, bool polarity=0)",
    "uchar256 read_lane_id_1b_vb(uchar256 income, bool256 predicate, bool polarity=0)",
    // scalar
    "int32_t s_i32_add(int32_t a, int32_t b, int switches=0, int32_t income={}, bool predicate=1, bool polarity=0)",
    "float s_f32_sub(float a, float b, int switches=0, float income={}, bool predicate=1, bool polarity=0)",
    "bf16 s_bf16_mul(bf16 a, bf16 b, int switches=0, bf16 income={}, bool predicate=1, bool polarity=0)",
    "uint32_t s_u32_mul(uint32_t a, uint32_t b, int switches=0, uint32_t income={}, bool predicate=1, bool polarity=0)",
    "half s_f16_xor(half a, half b, int switches=0, bf16 income={}, bool predicate=1, bool polarity=0)",
    "int16_t s_i16_shl(int16_t a, int8_t b, int switches=0, int16_t income={}, bool predicate=1, bool polarity=0)",
    "uint8_t s_u8_shr(uint8_t a, int8_t b, int switches=0, uint8_t income={}, bool predicate=1, bool polarity=0)",
    "float s_f32_abs(float a, int switches=0, float income=0, bool predicate=1, bool polarity=0)",
    "int8_t s_i8_not(int8_t a, int switches=0, int8_t income={}, bool predicate=1, bool polarity=0)",
    "uint16_t s_u16_mov(uint16_t a, int switches=0, uint16_t income={}, bool predicate=1, bool polarity=0)",
    "bool s_f32_cmp_leq(float a, float b, int switches=0, bool income={}, bool predicate=1, bool polarity=0)",
    "bool s_u32_cmp_neq(uint32_t a, uint32_t b, int switches=0, bool income={}, bool predicate=1, bool polarity=0)",
    "float s_f32_mac(float a, float b, float accumulator, int switches=0, bool predicate=1, bool polarity=0)",
    "bf16 s_bf16_mac(bf16 a, bf16 b, bf16 accumulator, int switches=0, bool predicate=1, bool polarity=0)",
    "int32_t s_i32_max(int32_t a, int32_t b, int switches=0, int32_t income={}, bool predicate=1, bool polarity=0)",
    "uint8_t s_u8_min(uint8_t a, uint8_t b, int switches=0, uint8_t income={}, bool predicate=1, bool polarity=0)",
};

// Intrinsics the reference does not have: they must not be rows.
const char* const kAbsent[] = {
    "v_i32_mac_b", "v_u32_mac_b",                                  // not in the reference
    "v_u32_abs_b", "v_u16_abs_vb", "v_u8_abs_b", "s_u32_abs",      // not in the reference
};

struct Param {
  std::string type, name, def;
};
struct Signature {
  std::string ret, name;
  std::vector<Param> params;
};

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// "ret name(type name[=default], ...)"
Signature parseDecl(const std::string& decl) {
  Signature s;
  size_t open = decl.find('('), close = decl.rfind(')');
  std::string head = trim(decl.substr(0, open));
  size_t sp = head.find_last_of(' ');
  s.ret = trim(head.substr(0, sp));
  s.name = trim(head.substr(sp + 1));
  std::stringstream body(decl.substr(open + 1, close - open - 1));
  std::string part;
  while (std::getline(body, part, ',')) {
    Param p;
    size_t eq = part.find('=');
    if (eq != std::string::npos) {
      p.def = trim(part.substr(eq + 1));
      part = part.substr(0, eq);
    }
    part = trim(part);
    size_t psp = part.find_last_of(' ');
    p.type = trim(part.substr(0, psp));
    p.name = trim(part.substr(psp + 1));
    s.params.push_back(p);
  }
  return s;
}

TEST(Intrinsics, KnownSignaturesOfTheReference) {
  ASSERT_GE(std::size(kKnownSignatures), 40u);
  for (const char* decl : kKnownSignatures) {
    Signature want = parseDecl(decl);
    SCOPED_TRACE(want.name);
    const IntrinsicInfo* in = findIntrinsic(want.name);
    ASSERT_NE(in, nullptr) << "missing intrinsic";
    EXPECT_EQ(in->returnType, want.ret);
    ASSERT_EQ(in->params.size(), want.params.size());
    for (size_t i = 0; i < want.params.size(); ++i) {
      SCOPED_TRACE("parameter " + std::to_string(i));
      EXPECT_EQ(in->params[i].type, want.params[i].type);
      EXPECT_EQ(in->params[i].name, want.params[i].name);
      EXPECT_EQ(in->params[i].defaultValue.value_or(""), want.params[i].def);
    }
  }
}

TEST(Intrinsics, NoRowsForSignaturesWeCannotHonour) {
  for (const char* name : kAbsent) EXPECT_EQ(findIntrinsic(name), nullptr) << name;
}

TEST(Intrinsics, NamesAreUnique) {
  std::set<std::string> seen;
  for (const IntrinsicInfo& in : allIntrinsics()) EXPECT_TRUE(seen.insert(in.name).second) << "duplicate " << in.name;
  EXPECT_GT(seen.size(), 800u);
}

// ------------------------------------------------------------------------------------------ ISA consistency

bool isIndexSpace(const IntrinsicInfo& in) {
  return in.lowering == Lowering::IndexSpaceOffset || in.lowering == Lowering::IndexSpaceSize;
}

TEST(Intrinsics, RowsAgreeWithTheirInstruction) {
  for (const IntrinsicInfo& in : allIntrinsics()) {
    if (isIndexSpace(in)) continue;
    SCOPED_TRACE(in.name);
    const InsnInfo& insn = insnInfo(in.insn);
    if (insn.hasDType()) {
      EXPECT_TRUE(insn.allowsType(in.dtype)) << insn.mnemonic << " does not allow the row's data type";
    }
    if (insn.allowsField(SwitchField::Dt2)) {
      EXPECT_TRUE(insn.allowsType(in.dt2));
      // Vector select and convert rows keep the lane count (scalar converts may change the width), except
      // the pair converts, which move between a pair and one register of half the lane width.
      bool pair = in.lowering == Lowering::ConvertAllNarrow || in.lowering == Lowering::ConvertAllWiden;
      if (in.paramIndex("lane") >= 0) {  // down-converts into every r-th lane
        EXPECT_GT(dtypeSize(in.dtype), dtypeSize(in.dt2));
      } else if (in.lowering == Lowering::ConvertWiden) {  // up-converts from every r-th lane
        EXPECT_LT(dtypeSize(in.dtype), dtypeSize(in.dt2));
      } else if (pair) {
        EXPECT_EQ(dtypeSize(in.lowering == Lowering::ConvertAllNarrow ? in.dtype : in.dt2),
                  2 * dtypeSize(in.lowering == Lowering::ConvertAllNarrow ? in.dt2 : in.dtype));
      } else if (insn.slot == Slot::Vpu) {
        EXPECT_EQ(dtypeSize(in.dtype), dtypeSize(in.dt2)) << "select and convert rows keep the lane width";
      }
    } else {
      EXPECT_EQ(in.dtype, in.dt2);
    }
    // Parameters the lowering reads: a, b, c, d, or the names the reference gives the sources of some
    // instructions (src; src1, src2; addr; value).
    int sources = 0;
    for (const auto& names : std::vector<std::vector<const char*>>{
             {"a", "b", "c", "d"}, {"src1", "src2"}, {"src"}, {"addr"}, {"value", "shift"}}) {
      for (const char* s : names) sources += in.paramIndex(s) >= 0;
      if (sources) break;
    }
    bool predicated = true;  // the trailing predicate, polarity of the reference
    switch (in.lowering) {
      case Lowering::Op:
        EXPECT_EQ(sources, insn.numSources());
        EXPECT_EQ(insn.hasDst(), in.returnType != "void");
        // The high-level convert_* helpers have no predicate, nor do our own __ helpers.
        predicated = in.paramIndex("options") < 0 && in.name.rfind("__", 0) != 0;
        break;
      case Lowering::TensorDimSize:
      case Lowering::TensorDimStride:
      case Lowering::TensorHwprefStride:
      case Lowering::TensorPadBits:
        EXPECT_EQ(in.insn, InsnId::LdTdesc);
        EXPECT_GE(in.paramIndex("a"), 0);
        EXPECT_EQ(in.paramIndex("dim") >= 0, tensorQueryField(in.lowering) <= 1) << in.name;
        EXPECT_TRUE(insn.allowsField(SwitchField::Dim));
        predicated = false;
        break;
      case Lowering::Store:
        EXPECT_GE(in.paramIndex("addr"), 0);
        EXPECT_GE(in.paramIndex("value"), 0);
        EXPECT_EQ(insn.numSources(), 2);
        EXPECT_FALSE(insn.hasDst());
        EXPECT_EQ(in.returnType, "void");
        break;
      case Lowering::LdGBroadcast:
        EXPECT_EQ(in.insn, InsnId::LdG);
        EXPECT_GE(in.paramIndex("addr"), 0);
        EXPECT_GE(in.paramIndex("income"), 0);
        break;
      case Lowering::Reinterpret:
        EXPECT_EQ(in.params.size(), 1u);
        EXPECT_GE(in.paramIndex("a"), 0);
        predicated = false;
        break;
      case Lowering::MovDualGroup:
      case Lowering::MovDualGroupAll:
        EXPECT_EQ(in.insn, InsnId::VpuMovDualGroup);
        for (const char* p : {"a", "b", "switches", "income"}) EXPECT_GE(in.paramIndex(p), 0) << p;
        break;
      case Lowering::ConvertAllNarrow:
      case Lowering::ConvertAllWiden:
        EXPECT_EQ(in.insn, InsnId::VpuConvert);
        EXPECT_TRUE(insn.allowsField(SwitchField::Layout));
        EXPECT_TRUE(in.paramIndex("src") >= 0 || in.paramIndex("a") >= 0);
        predicated = in.paramIndex("options") < 0;
        break;
      case Lowering::ConvertWiden:
        EXPECT_EQ(in.insn, InsnId::VpuConvert);
        EXPECT_GE(in.paramIndex("src"), 0);
        EXPECT_GE(in.paramIndex("income"), 0);
        break;
      case Lowering::WideProduct:
        // The result has twice (16/32-bit) or four times (8-bit) the source's bits: int128 or int256.
        EXPECT_TRUE(in.insn == InsnId::VpuMulWide || in.insn == InsnId::VpuMacWide);
        EXPECT_EQ(sources, insn.numSources());
        EXPECT_EQ(in.returnType.substr(in.returnType.size() - 3), dtypeSize(in.dtype) == 1 ? "256" : "128");
        EXPECT_GE(in.paramIndex(in.insn == InsnId::VpuMacWide ? "accumulator" : "income"), 0);
        break;
      case Lowering::StTnsrLow:
      case Lowering::StTnsrHigh:
        EXPECT_TRUE(insn.allowsField(SwitchField::Half));
        EXPECT_GE(in.paramIndex("value"), 0);
        EXPECT_EQ(in.returnType, "void");
        break;
      case Lowering::LdTnsrLow:
      case Lowering::LdTnsrHigh:
        // A partial load of one half: the other half keeps the income.
        EXPECT_EQ(in.insn, InsnId::LdTnsrPartial);
        EXPECT_TRUE(insn.flags & F_READS_DST);
        EXPECT_GE(in.paramIndex("income"), 0);
        break;
      case Lowering::Mac:
        EXPECT_EQ(sources, insn.numSources());
        EXPECT_GE(in.paramIndex("accumulator"), 0);
        EXPECT_LT(in.paramIndex("income"), 0);
        EXPECT_TRUE(insn.flags & F_READS_DST);
        break;
      case Lowering::LdTnsr:
        EXPECT_TRUE(in.paramIndex("ndx") >= 0 || in.paramIndex("inx") >= 0);  // gen_addr: inx
        EXPECT_GE(in.paramIndex("tensor"), 0);
        break;
      case Lowering::StTnsr:
        EXPECT_GE(in.paramIndex("ndx"), 0);
        EXPECT_GE(in.paramIndex("tensor"), 0);
        EXPECT_GE(in.paramIndex("value"), 0);
        EXPECT_EQ(in.returnType, "void");
        break;
      default: ADD_FAILURE() << "unexpected lowering"; break;
    }
    // The trailing predicate arguments, in the reference's order.
    size_t n = in.params.size();
    if (!predicated) continue;
    ASSERT_GE(n, 2u);
    EXPECT_EQ(in.params[n - 1].name, "polarity");
    EXPECT_EQ(in.params[n - 2].name, "predicate");
    if (int sw = in.paramIndex("switches"); sw >= 0) {
      EXPECT_EQ(in.params[static_cast<size_t>(sw)].type, "int");
    }
    // Defaults are trailing (C++ rule; the generated overloads rely on it).
    bool defaulted = false;
    for (const IntrinsicParam& p : in.params) {
      if (p.defaultValue) defaulted = true;
      else EXPECT_FALSE(defaulted) << "parameter " << p.name << " without default after a defaulted one";
    }
  }
}

// ------------------------------------------------------------------------------------------ generated header

class ScratchDir {
 public:
  ScratchDir() {
    path_ = std::filesystem::temp_directory_path() / ("tpc-intrinsics-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path file(const std::string& name, const std::string& text) const {
    std::filesystem::path p = path_ / name;
    std::ofstream(p) << text;
    return p;
  }
  std::filesystem::path path(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

bool haveClang19() { return std::system("command -v clang-19 > /dev/null 2>&1") == 0; }

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// clang-19 -fsyntax-only on `input` with tpc-defs.h (and optionally the generated header) included first.
void expectCompiles(const ScratchDir& dir, const std::filesystem::path& input, bool cplusplus,
                    const std::filesystem::path* extraInclude) {
  std::string cmd = "clang-19 -fsyntax-only -ffreestanding --target=nvptx-nvidia-cuda ";
  cmd += cplusplus ? "-x c++ -std=c++17 " : "-x c -std=gnu99 ";
  cmd += "-D__gaudi_plus__=1 -D__gaudi2__=1 -D__gaudi2_plus__=1 ";
  cmd += std::string("-include ") + TPC_INTRINSICS_DEFS_H + " ";
  if (extraInclude) cmd += "-include " + extraInclude->string() + " ";
  std::filesystem::path log = dir.path(input.filename().string() + (cplusplus ? ".cxx.log" : ".c.log"));
  cmd += input.string() + " > " + log.string() + " 2>&1";
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd << "\n" << slurp(log).substr(0, 8000);
}

TEST(Intrinsics, GeneratedHeaderCompilesInC) {
  if (!haveClang19()) GTEST_SKIP() << "clang-19 not found";
  ScratchDir dir;
  auto header = dir.file("tpc-intrinsics.h", generateIntrinsicsHeader(*findArch("gaudi2")));
  expectCompiles(dir, header, /*cplusplus=*/false, nullptr);
}

TEST(Intrinsics, GeneratedHeaderCompilesInCxx) {
  if (!haveClang19()) GTEST_SKIP() << "clang-19 not found";
  ScratchDir dir;
  auto header = dir.file("tpc-intrinsics.h", generateIntrinsicsHeader(*findArch("gaudi2")));
  expectCompiles(dir, header, /*cplusplus=*/true, nullptr);
}

// The compiler declares only what a source names: the filtered header has every overload of the wanted
// intrinsics and nothing of the others.
TEST(Intrinsics, GeneratedHeaderKeepsOnlyWantedIntrinsics) {
  const ArchInfo& arch = *findArch("gaudi2");
  std::string full = generateIntrinsicsHeader(arch);
  std::string some = generateIntrinsicsHeader(arch, [](std::string_view n) { return n == "v_f32_add_b"; });
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(some, " v_f32_add_b("), count(full, " v_f32_add_b("));
  EXPECT_EQ(count(some, " v_f32_add_b("), 5u);  // 2 to 6 arguments: a, b, switches, income, predicate, polarity
  EXPECT_EQ(count(some, "__tpc_v_f32_add_b("), 1u + 5u);  // its declaration, and a call in each wrapper
  EXPECT_EQ(count(some, "v_f32_sub_b("), 0u);
  EXPECT_EQ(count(some, "v_f32_add_vb("), 0u);
}

// Calls as TPC-C kernels write them: default arguments left out, scalars where vectors are expected.
const char* const kSnippet = R"(
void snippet(int5 c, tensor t, float s, int k) {
  float64 a = v_f32_ld_tnsr_b(c, 0);
  float64 b = v_f32_ld_tnsr_b(c, t);
  float64 acc = 0.0f;
  float64 r = v_f32_add_b(a, b);
  r = v_f32_mac_b(a, 2.0f, acc);
  r = v_f32_mac_b(r, s, r, 0, 1, 0);
  r = v_f32_mul_b(r, s);
  bool64 p = v_f32_cmp_less_b(a, b);
  r = v_f32_add_vb(a, b, 0, r, p);
  r = v_f32_abs_b(r);
  r = v_f32_sel_grt_f32_b(a, 0.0f, a, b);
  r = v_f32_madd_b(a, b, r);
  r = v_f32_mov_vb(0.5f, 0, r, p);
  bfloat128 hb = v_bf16_ld_tnsr_b(c, t);
  hb = v_bf16_max_b(hb, hb);
  v_bf16_st_tnsr(c, t, hb);
  short128 h = v_i16_shr_b(v_i16_ld_tnsr_b(c, t), 1);
  h = v_i16_sel_less_i16_b(h, 0, 0, h);
  v_i16_st_tnsr(c, t, h);
  uint64 lane = read_lane_id_4b_b();
  lane = v_u32_add_b(lane, 1u);
  int32_t i = s_i32_add(k, 2);
  bool q = s_i32_cmp_grt(i, 3);
  i = s_i32_add(i, 1, 0, i, q);
  i = s_i32_shl(i, 2);
  float f = s_f32_mac(s, 2.0f, s);
  f = s_f32_abs(f);
  v_f32_st_tnsr(c, t, r, 0, q, 1);
  (void)f;
  (void)lane;
}
)";

TEST(Intrinsics, SnippetWithDefaultArgumentsTypeChecks) {
  if (!haveClang19()) GTEST_SKIP() << "clang-19 not found";
  ScratchDir dir;
  auto header = dir.file("tpc-intrinsics.h", generateIntrinsicsHeader(*findArch("gaudi2")));
  auto snippet = dir.file("snippet.c", kSnippet);
  expectCompiles(dir, snippet, /*cplusplus=*/false, &header);
  expectCompiles(dir, snippet, /*cplusplus=*/true, &header);
}

}  // namespace
}  // namespace tpc::isa
