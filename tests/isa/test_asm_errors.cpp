// Assembly parse errors: each malformed slot is rejected with a message that names the problem (the
// offending token or rule), and a failed parse leaves the output untouched.
#include "isa_test_util.h"

using namespace tpc;
using namespace tpc::isa;

namespace {

struct ErrorCase {
  Slot slot;
  const char* text;
  std::vector<const char*> expect;  // substrings the message must contain
};

}  // namespace

TEST(AsmErrors, EachProblemIsNamed) {
  const ErrorCase cases[] = {
      // Unknown mnemonic, and a mnemonic of another slot.
      {Slot::Vpu, "frobnicate.f32 v1, v2, v3", {"unknown vpu slot instruction", "'frobnicate'"}},
      {Slot::Load, "add.i32 s1, s2, s3", {"unknown load slot instruction", "'add'"}},
      {Slot::Spu, "ld_tnsr.f32 v0, i2 tnsr=1", {"unknown spu slot instruction", "'ld_tnsr'"}},
      {Slot::Store, "mac.f32 v1, v2, v3", {"unknown store slot instruction", "'mac'"}},
      // Data type suffixes: missing, extra, unknown, not allowed.
      {Slot::Vpu, "add v1, v2, v3", {"'add' needs 1 data type suffix"}},
      {Slot::Vpu, "convert.f32 v1, v2", {"'convert' needs 2 data type suffixes"}},
      {Slot::Vpu, "add.f32.i32 v1, v2, v3", {"'add' needs 1 data type suffix"}},
      {Slot::Spu, "halt.i32", {"'halt' takes no data type suffix"}},
      {Slot::Vpu, "add.f64 v1, v2, v3", {"unknown data type 'f64'"}},
      {Slot::Vpu, "convert.f32.f8 v1, v2", {"unknown data type 'f8'"}},
      {Slot::Vpu, "shl.f32 v1, v2, v3", {"data type f32 not allowed"}},
      {Slot::Vpu, "sel_eq.f32.bf16 v0, v1, v2, v3, v4", {"same width"}},
      // Registers that do not exist, wrong register files.
      {Slot::Vpu, "add.f32 v40, v1, v2", {"v40", "does not exist"}},
      {Slot::Vpu, "add.f32 v1, v2, v40", {"v40", "does not exist"}},
      {Slot::Spu, "add.i32 s36, s1, s2", {"s36", "does not exist"}},
      {Slot::Spu, "add.i32 s1, s1, s36", {"s36", "does not exist"}},
      {Slot::Load, "ld_g.f32 s1, ad8", {"ad8", "does not exist"}},
      {Slot::Spu, "i_add.i32 i32, i1, i2", {"i32", "does not exist"}},
      {Slot::Vpu, "cmp_eq.f32 vp16, v1, v2", {"vp16", "does not exist"}},
      {Slot::Vpu, "add.f32 v01, v1, v2", {"v01"}},
      {Slot::Vpu, "add.f32 s1, v1, v2", {"operand dst cannot be a s register"}},
      {Slot::Spu, "add.i32 s1, 5, s2", {"expected a register, got '5'"}},
      {Slot::Load, "ld_tnsr.f32 v0, s2", {"operand src0 cannot be a s register"}},
      // Operand counts.
      {Slot::Vpu, "add.f32 v1, v2", {"'add' expects 3 operands, got 2"}},
      {Slot::Vpu, "add.f32 v1, v2, v3, v4", {"'add' expects 3 operands, got 4"}},
      {Slot::Vpu, "add.f32", {"'add' expects 3 operands"}},
      // Immediates: two in one slot, out of range, not a number.
      {Slot::Vpu, "sel_eq.f32.f32 v0, v1, 1.0, 2.0, v2", {"at most one operand may be an immediate"}},
      {Slot::Spu, "loop.i32 s0, 0, 10, s1", {"at most one operand may be an immediate"}},
      {Slot::Vpu, "add.i8 v1, v2, 128", {"[-128, 127]", "'128'"}},
      {Slot::Vpu, "add.u8 v1, v2, -1", {"[0, 255]", "'-1'"}},
      {Slot::Vpu, "add.u16 v1, v2, 65536", {"[0, 65535]", "'65536'"}},
      {Slot::Vpu, "add.i32 v1, v2, 2147483648", {"'2147483648'"}},
      {Slot::Vpu, "add.i32 v1, v2, 1.5", {"integer immediate", "'1.5'"}},
      {Slot::Vpu, "add.f32 v1, v2, abc", {"f32 immediate", "'abc'"}},
      {Slot::Vpu, "add.f32 v1, v2, 1e39", {"f32 immediate", "'1e39'"}},
      {Slot::Vpu, "add.f32 v1, v2, 0x100000000", {"bad hexadecimal immediate", "'0x100000000'"}},
      {Slot::Spu, "jmpr 0x41", {"0x41 is not a bundle address"}},
      // Switches: unknown, not allowed on this instruction, bad value.
      {Slot::Vpu, "add.f32 v1, v2, v3 foo=1", {"'add' has no switch 'foo'"}},
      {Slot::Vpu, "add.f32 v1, v2, v3 rm=rz", {"'add' has no switch 'rm'"}},
      {Slot::Vpu, "convert.f32.bf16 v1, v2 dt2=3", {"has no switch 'dt2'"}},  // dt2 is written as a suffix
      {Slot::Vpu, "convert.f32.bf16 v1, v2 rm=up", {"switch 'rm'", "'up'"}},
      {Slot::Vpu, "convert.f32.bf16 v1, v2 rm=7", {"unknown rounding mode 7"}},
      {Slot::Vpu, "convert.f32.bf16 v1, v2 part=2", {"part 2 out of range"}},
      {Slot::Load, "ld_tnsr.f32 v0, i2 tnsr=16", {"switch 'tnsr'", "4 bits", "'16'"}},
      {Slot::Load, "ld_tnsr.f32 v0, i2 tnsr=-1", {"switch 'tnsr'", "'-1'"}},
      {Slot::Vpu, "add.i32 v1, v2, v3 sat=1", {"switch 'sat' takes no value"}},
      {Slot::Store, "st_tnsr.f32 i0, v0 rmw=mul", {"switch 'rmw'", "'mul'"}},
      {Slot::Spu, "loop.i32 s0, s1, s2, s3 end=0x44", {"loop end 0x44 is not a bundle address"}},
      // Predicates.
      {Slot::Vpu, "@sp16 add.f32 v1, v2, v3", {"predicate register", "'sp16'"}},
      {Slot::Vpu, "@v1 add.f32 v1, v2, v3", {"predicate register", "'v1'"}},
      {Slot::Vpu, "@!vp2 nop", {"nop: cannot be predicated"}},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.text);
    SlotInsn out;
    out.imm = 0x1234;
    const SlotInsn before = out;
    std::string err;
    EXPECT_FALSE(parseSlot(c.slot, c.text, &out, &err));
    for (const char* e : c.expect) { EXPECT_NE(err.find(e), std::string::npos) << "message: " << err; }
    EXPECT_EQ(out, before) << "a failed parse must not write its output";
  }
}

TEST(AsmErrors, BundleErrorsNameTheSlot) {
  Bundle b;
  std::string err;
  EXPECT_FALSE(parseBundle("nop ; nop ; nop", &b, &err));
  EXPECT_NE(err.find("found 3"), std::string::npos) << err;
  EXPECT_FALSE(parseBundle("nop ; nop ; nop ; nop ; nop", &b, &err));
  EXPECT_NE(err.find("found 5"), std::string::npos) << err;
  // Slots in the wrong order: the SPU add lands in the load slot.
  EXPECT_FALSE(parseBundle("add.i32 s1, s1, 1 ; nop ; nop ; nop", &b, &err));
  EXPECT_NE(err.find("load slot"), std::string::npos) << err;
  EXPECT_NE(err.find("'add'"), std::string::npos) << err;
  EXPECT_FALSE(parseBundle("nop ; nop ; add.f32 v1, v2, v40 ; nop", &b, &err));
  EXPECT_NE(err.find("vpu slot"), std::string::npos) << err;
  EXPECT_NE(err.find("v40"), std::string::npos) << err;
}

TEST(AsmErrors, ParseIntegerForms) {
  EXPECT_EQ(parseInteger("0"), 0);
  EXPECT_EQ(parseInteger("-17"), -17);
  EXPECT_EQ(parseInteger("0x1F"), 31);
  EXPECT_EQ(parseInteger("0X10"), 16);
  EXPECT_EQ(parseInteger("-0x80000000"), -2147483648LL);
  EXPECT_EQ(parseInteger("0b1011"), 11);
  EXPECT_EQ(parseInteger("4294967295"), 4294967295LL);
  EXPECT_FALSE(parseInteger(""));
  EXPECT_FALSE(parseInteger("-"));
  EXPECT_FALSE(parseInteger("0x"));
  EXPECT_FALSE(parseInteger("12a"));
  EXPECT_FALSE(parseInteger("0b102"));
  EXPECT_FALSE(parseInteger(" 1"));
  EXPECT_FALSE(parseInteger("99999999999999999999999"));
}
