// The instruction table itself: switch fields an instruction accepts never share bits (so setting one
// cannot change another), field masks and accessors, table lookups, and validateSlot's rejections.
#include <fmt/format.h>

#include "isa_test_util.h"

using namespace tpc;
using namespace tpc::isa;
using namespace isa_test;

TEST(SwitchFields, AllowedFieldsOfEveryInstructionAreDisjoint) {
  int pairs = 0;
  for (const InsnInfo& info : allInsns()) {
    for (int a = 0; a < kNumSwitchFields; ++a) {
      if (!info.allowsField(static_cast<SwitchField>(a))) continue;
      for (int b = a + 1; b < kNumSwitchFields; ++b) {
        if (!info.allowsField(static_cast<SwitchField>(b))) continue;
        ++pairs;
        const auto& fa = switchField(static_cast<SwitchField>(a));
        const auto& fb = switchField(static_cast<SwitchField>(b));
        // Overlap computed from shift and width, without the mask() helper under test.
        bool overlap = fa.shift < fb.shift + fb.width && fb.shift < fa.shift + fa.width;
        EXPECT_FALSE(overlap) << info.mnemonic << ": " << fa.name << " and " << fb.name << " overlap";
        EXPECT_EQ(fa.mask() & fb.mask(), 0u) << info.mnemonic << ": " << fa.name << " and " << fb.name;
      }
    }
  }
  EXPECT_GT(pairs, 20);  // convert, loop, partial tensor accesses... have several fields
}

TEST(SwitchFields, FieldsFitTheWordAndMasksMatchShiftAndWidth) {
  for (int f = 0; f < kNumSwitchFields; ++f) {
    const auto& fi = switchField(static_cast<SwitchField>(f));
    SCOPED_TRACE(std::string(fi.name));
    EXPECT_GT(fi.width, 0);
    EXPECT_LE(fi.shift + fi.width, 32);
    uint32_t want = 0;
    for (int b = fi.shift; b < fi.shift + fi.width; ++b) want |= 1u << b;
    EXPECT_EQ(fi.mask(), want);
    // set() writes only its field and get() reads it back, truncated to the width.
    uint32_t ones = want >> fi.shift;
    EXPECT_EQ(fi.get(fi.set(0xffffffffu, 0)), 0u);
    EXPECT_EQ(fi.set(0xffffffffu, 0), ~want);
    EXPECT_EQ(fi.get(fi.set(0, ones)), ones);
    EXPECT_EQ(fi.set(0, ones + 1u), (((ones + 1u) << fi.shift) & want));  // too-wide values are cut, not spilled
    EXPECT_EQ(fi.get(0xa5a5a5a5u), (0xa5a5a5a5u >> fi.shift) & ones);
  }
  // A few masks written out from switch_fields.def.
  EXPECT_EQ(switchField(SwitchField::Rm).mask(), 0x7u);
  EXPECT_EQ(switchField(SwitchField::Dt2).mask(), 0xf0u);
  EXPECT_EQ(switchField(SwitchField::LoopEnd).mask(), 0xffffff00u);
  EXPECT_EQ(switchField(SwitchField::PartSize).mask(), 0x7fc00000u);
}

TEST(SwitchFields, AllowedSwitchBitsIsTheUnionOfTheFieldMasks) {
  for (const InsnInfo& info : allInsns()) {
    uint32_t want = 0;
    for (int f = 0; f < kNumSwitchFields; ++f) {
      if (!info.allowsField(static_cast<SwitchField>(f))) continue;
      const auto& fi = switchField(static_cast<SwitchField>(f));
      for (int b = fi.shift; b < fi.shift + fi.width; ++b) want |= 1u << b;
    }
    EXPECT_EQ(info.allowedSwitchBits(), want) << info.mnemonic;
  }
  EXPECT_EQ(insnInfo(InsnId::SpuConvert).allowedSwitchBits(), 0xffu);  // rm | sat | dt2
}

TEST(InsnTable, SlotsOpcodesAndLookups) {
  int total = 0;
  for (int s = 0; s < kNumSlots; ++s) {
    auto slot = static_cast<Slot>(s);
    auto table = slotInsns(slot);
    ASSERT_FALSE(table.empty());
    EXPECT_EQ(table[0].mnemonic, "nop");  // opcode 0 is the slot's nop
    EXPECT_EQ(nopFor(slot).id, table[0].id);
    EXPECT_TRUE(nopFor(slot).isNop());
    for (size_t i = 0; i < table.size(); ++i) {
      EXPECT_EQ(table[i].opcode, i);
      EXPECT_EQ(table[i].slot, slot);
      EXPECT_EQ(&insnInfo(table[i].id), &table[i]);
      EXPECT_EQ(findInsn(slot, table[i].mnemonic), &table[i]);
      ++total;
    }
  }
  EXPECT_EQ(total, kNumInsns);
  EXPECT_EQ(allInsns().size(), static_cast<size_t>(kNumInsns));
  EXPECT_EQ(findInsn(Slot::Load, "add"), nullptr);
  EXPECT_EQ(findInsn(Slot::Vpu, "convert")->id, InsnId::VpuConvert);
  EXPECT_EQ(findInsn(Slot::Spu, "convert")->id, InsnId::SpuConvert);
  EXPECT_EQ(insnInfo(InsnId::VpuSelEq).numSources(), 4);
  EXPECT_EQ(insnInfo(InsnId::VpuLaneId).numSources(), 0);
  EXPECT_EQ(insnInfo(InsnId::StTnsr).numSources(), 2);
  EXPECT_FALSE(insnInfo(InsnId::StTnsr).hasDst());
  EXPECT_EQ(regFileSize(RegFile::V), 40);
  EXPECT_EQ(regFileSize(RegFile::S), 36);
  EXPECT_EQ(regFileSize(RegFile::Imm), 0);
  EXPECT_EQ(findArch("gaudi2")->cores, 24);
  EXPECT_EQ(findArch("gaudi4"), nullptr);
  EXPECT_FALSE(archInfo(Arch::Gaudi).types >> static_cast<int>(DType::F16) & 1u);  // no f16 on Gaudi 1
}

// validateSlot on hand-built slots: each case breaks exactly one rule of a valid slot.
TEST(Validate, RejectsEachBrokenRule) {
  SlotInsn ok;
  ok.id = InsnId::VpuConvert;
  ok.dtype = DType::F32;
  ok.dst = {RegFile::V, 39};
  ok.src[0] = {RegFile::V, 0};
  ok.setField(SwitchField::Dt2, static_cast<uint32_t>(DType::I8));
  ok.setField(SwitchField::Part, 3);  // 1:4 width change: parts 0..3
  ok.setField(SwitchField::Rm, static_cast<uint32_t>(RoundingMode::SR));
  ASSERT_EQ(validateSlot(ok), "");

  struct Case {
    const char* what;
    std::function<void(SlotInsn&)> breakIt;
    const char* expect;
  };
  const Case cases[] = {
      {"dst register out of range", [](SlotInsn& i) { i.dst.index = 40; }, "register v40 does not exist"},
      {"src file not allowed", [](SlotInsn& i) { i.src[0] = {RegFile::S, 1}; }, "cannot be a s register"},
      {"immediate not allowed", [](SlotInsn& i) { i.src[0] = {RegFile::Imm, 0}; }, "cannot be an immediate"},
      {"unused operand", [](SlotInsn& i) { i.src[1] = {RegFile::V, 1}; }, "operand src1 cannot be"},
      {"unused operand index", [](SlotInsn& i) { i.src[2].index = 1; }, "non-zero index"},
      {"missing operand", [](SlotInsn& i) { i.dst = {}; }, "missing operand dst"},
      {"second type out of range", [](SlotInsn& i) { i.setField(SwitchField::Dt2, 9); }, "second data type 9"},
      {"part out of range", [](SlotInsn& i) { i.setField(SwitchField::Part, 0); i.setField(SwitchField::Dt2, 1); i.setField(SwitchField::Part, 2); }, "part 2 out of range"},
      {"unknown rounding mode", [](SlotInsn& i) { i.setField(SwitchField::Rm, 7); }, "unknown rounding mode 7"},
      {"switch bit not allowed", [](SlotInsn& i) { i.sw |= 1u << 13; }, "not allowed"},
      {"vector predicate out of range", [](SlotInsn& i) { i.predVector = true; i.predIndex = 16; }, "predicate register out of range"},
      {"immediate set but unused", [](SlotInsn& i) { i.imm = 1; }, "immediate field set but unused"},
  };
  for (const Case& c : cases) {
    SlotInsn insn = ok;
    c.breakIt(insn);
    std::string why = validateSlot(insn);
    EXPECT_NE(why.find(c.expect), std::string::npos) << c.what << ": got '" << why << "'";
  }

  SlotInsn sel;
  sel.id = InsnId::VpuSelLess;
  sel.dtype = DType::F32;
  sel.dst = {RegFile::V, 0};
  sel.src = {Operand{RegFile::V, 1}, Operand{RegFile::Imm, 0}, Operand{RegFile::S, 2}, Operand{RegFile::V, 3}};
  sel.setField(SwitchField::Dt2, static_cast<uint32_t>(DType::U32));
  EXPECT_EQ(validateSlot(sel), "");
  sel.setField(SwitchField::Dt2, static_cast<uint32_t>(DType::BF16));
  EXPECT_NE(validateSlot(sel).find("same width"), std::string::npos);
  sel.setField(SwitchField::Dt2, static_cast<uint32_t>(DType::I32));
  sel.src[3] = {RegFile::Imm, 0};
  EXPECT_NE(validateSlot(sel).find("at most one operand may be an immediate"), std::string::npos);

  SlotInsn shl;
  shl.id = InsnId::SpuShl;
  shl.dtype = DType::F32;  // shifts are integer only
  shl.dst = shl.src[0] = shl.src[1] = {RegFile::S, 0};
  EXPECT_NE(validateSlot(shl).find("data type f32 not allowed"), std::string::npos);
  shl.dtype = DType::U16;
  EXPECT_EQ(validateSlot(shl), "");

  SlotInsn loop;
  loop.id = InsnId::SpuLoop;
  loop.dtype = DType::I32;
  loop.dst = loop.src[0] = loop.src[1] = loop.src[2] = {RegFile::S, 1};
  loop.setField(SwitchField::LoopEnd, 0x40);
  EXPECT_EQ(validateSlot(loop), "");
  loop.setField(SwitchField::LoopEnd, 0x48);
  EXPECT_NE(validateSlot(loop).find("loop end 0x48 is not a bundle address"), std::string::npos);
  loop.setField(SwitchField::LoopEnd, 0x40);
  loop.setField(SwitchField::LoopCmp, 5);
  EXPECT_NE(validateSlot(loop).find("unknown loop condition 5"), std::string::npos);

  SlotInsn st;
  st.id = InsnId::StTnsr;
  st.dtype = DType::I8;
  st.src[0] = {RegFile::I, 31};
  st.src[1] = {RegFile::V, 39};
  st.setField(SwitchField::Rmw, 4);
  st.setField(SwitchField::Half, 2);
  EXPECT_EQ(validateSlot(st), "");
  st.setField(SwitchField::Rmw, 5);
  EXPECT_NE(validateSlot(st).find("read-modify-write operation 5"), std::string::npos);
  st.setField(SwitchField::Rmw, 0);
  st.setField(SwitchField::Half, 3);
  EXPECT_NE(validateSlot(st).find("half 3 out of range"), std::string::npos);

  SlotInsn dim;
  dim.id = InsnId::SpuMovIrfDim;
  dim.dtype = DType::I32;
  dim.dst = {RegFile::S, 0};
  dim.src[0] = {RegFile::I, 0};
  dim.setField(SwitchField::Dim, 4);
  EXPECT_EQ(validateSlot(dim), "");
  dim.setField(SwitchField::Dim, 5);
  EXPECT_NE(validateSlot(dim).find("dimension 5 out of range"), std::string::npos);

  SlotInsn fp;
  fp.id = InsnId::VpuCalcFpSpecial;
  fp.dtype = DType::BF16;
  fp.dst = fp.src[0] = fp.src[1] = {RegFile::V, 2};
  fp.setField(SwitchField::Func, 7);
  EXPECT_EQ(validateSlot(fp), "");
  fp.setField(SwitchField::Func, 8);
  EXPECT_NE(validateSlot(fp).find("unknown function 8"), std::string::npos);
}

// Vector predicates select lanes, so they guard vector results and vector stores only; scalar predicates
// guard anything but a nop.
TEST(Validate, VectorPredicatesNeedVectorResults) {
  struct Case {
    Slot slot;
    const char* text;
    bool ok;
  };
  const Case cases[] = {
      {Slot::Load, "@vp1 ld_l_v.f32 v0, s1", true},     {Slot::Load, "@vp1 ld_l.f32 s0, s1", false},
      {Slot::Load, "@!vp2 ld_tnsr.i8 v3, i4 tnsr=2", true}, {Slot::Load, "@vp1 gen_addr ad0, i1 tnsr=1", false},
      {Slot::Vpu, "@vp15 add.f32 v1, v2, v3", true},    {Slot::Vpu, "@vp3 cmp_less.f32 vp1, v2, s3", true},
      {Slot::Store, "@vp1 st_l_v.f32 s1, v2", true},    {Slot::Store, "@vp1 st_l.f32 s1, s2", false},
      {Slot::Store, "@vp1 st_tnsr.f32 i1, v2", true},   {Slot::Spu, "@vp1 add.i32 s1, s2, s3", false},
      {Slot::Spu, "@!sp15 add.i32 s1, s2, s3", true},   {Slot::Load, "@sp1 ld_l.f32 s0, s1", true},
  };
  for (const Case& c : cases) {
    SlotInsn insn;
    std::string err;
    bool ok = parseSlot(c.slot, c.text, &insn, &err);
    EXPECT_EQ(ok, c.ok) << c.text << ": " << err;
    if (!c.ok) { EXPECT_NE(err.find("vector predicate"), std::string::npos) << err; }
  }
}
