// Encoding and assembly text over the whole instruction table: every valid instance the generator builds
// must survive encode -> decode and format -> parse unchanged, alone and in bundles. Known-answer tests pin
// the binary layout (encoding.cpp's header comment) and the text of a few slots, so that a change made
// consistently to both directions of a round trip is still caught.
#include <cstdlib>

#include <fmt/format.h>

#include "isa_test_util.h"

using namespace tpc;
using namespace tpc::isa;
using namespace isa_test;

namespace {

std::string describe(const SlotInsn& i) {
  return fmt::format("{} [id {} dt {} dst {}:{} src {}:{} {}:{} {}:{} {}:{} pred {}{}{} imm 0x{:x} sw 0x{:x}]",
                     formatSlot(i), static_cast<int>(i.id), static_cast<int>(i.dtype), static_cast<int>(i.dst.file),
                     i.dst.index, static_cast<int>(i.src[0].file), i.src[0].index, static_cast<int>(i.src[1].file),
                     i.src[1].index, static_cast<int>(i.src[2].file), i.src[2].index, static_cast<int>(i.src[3].file),
                     i.src[3].index, i.predNegate ? "!" : "", i.predVector ? "vp" : "sp", i.predIndex, i.imm, i.sw);
}

// One generator run shared by the tests of this file (it visits a few hundred thousand instances).
struct Generated {
  Coverage cov;
  std::array<std::vector<SlotInsn>, kNumSlots> bySlot;
  int encodeFailures = 0, textFailures = 0;
};

const Generated& generated() {
  static const Generated g = [] {
    Generated r;
    FailureLog log;
    r.cov = generateAll([&](const SlotInsn& insn) {
      r.bySlot[static_cast<int>(insn.info().slot)].push_back(insn);
      uint8_t bytes[kSlotBytes];
      encodeSlot(insn, bytes);
      SlotInsn back;
      std::string err;
      if (!decodeSlot(insn.info().slot, bytes, &back, &err)) {
        ++r.encodeFailures;
        log.add("decode failed: " + err + " for " + describe(insn));
      } else if (!(back == insn)) {
        ++r.encodeFailures;
        log.add("decode mismatch: " + describe(insn) + " came back as " + describe(back));
      }
      std::string text = formatSlot(insn);
      SlotInsn parsed;
      if (!parseSlot(insn.info().slot, text, &parsed, &err)) {
        ++r.textFailures;
        log.add("parse of '" + text + "' failed: " + err);
      } else if (!(parsed == insn)) {
        ++r.textFailures;
        log.add("parse mismatch: " + describe(insn) + " printed '" + text + "' parsed as " + describe(parsed));
      } else if (formatSlot(parsed) != text) {
        ++r.textFailures;
        log.add("format not stable: '" + text + "' vs '" + formatSlot(parsed) + "'");
      }
    });
    return r;
  }();
  return g;
}

void storeLE64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

TEST(EncodingRoundTrip, EveryGeneratedSlotEncodesAndDecodesUnchanged) {
  const Generated& g = generated();
  EXPECT_EQ(g.encodeFailures, 0);
  EXPECT_GT(g.cov.valid, 30000u) << "the generator produced too few valid instances";
  std::printf("generator: %zu valid slot instances of %zu tried\n", g.cov.valid, g.cov.tried);
}

TEST(EncodingRoundTrip, EveryGeneratedSlotFormatsAndParsesUnchanged) {
  EXPECT_EQ(generated().textFailures, 0);
}

// The generator must reach every instruction, data type, second type, operand file (at its top index),
// switch field and predicate form; otherwise the round trips above prove less than they claim.
TEST(EncodingRoundTrip, GeneratorCoversTheWholeTable) {
  const Coverage& cov = generated().cov;
  for (const InsnInfo& info : allInsns()) {
    const size_t id = static_cast<size_t>(info.id);
    SCOPED_TRACE(fmt::format("{} slot insn '{}'", slotName(info.slot), info.mnemonic));
    EXPECT_GT(cov.validPerInsn[id], 0);
    // convert_int narrows only: its 8-bit types are targets and its 32-bit types sources, never both.
    const bool narrowingOnly = info.id == InsnId::VpuConvertInt || info.id == InsnId::SpuConvertInt;
    for (int t = 0; t < kNumDTypes; ++t) {
      if (!info.allowsType(static_cast<DType>(t))) continue;
      if (narrowingOnly) {
        EXPECT_GT(cov.perType[id][t] + cov.perDt2[id][t], 0) << "type " << t;
        continue;
      }
      EXPECT_GT(cov.perType[id][t], 0) << "dtype " << t;
      if (info.flags & F_DT2) { EXPECT_GT(cov.perDt2[id][t], 0) << "dt2 " << t; }
    }
    if (!info.hasDType()) { EXPECT_GT(cov.perType[id][0], 0); }
    for (int f = 0; f < kNumSwitchFields; ++f) {
      auto field = static_cast<SwitchField>(f);
      if (info.allowsField(field) && field != SwitchField::Dt2) {
        EXPECT_TRUE((cov.fieldsSeen[id] >> f) & 1u) << "switch " << switchField(field).name << " never nonzero";
      }
    }
    for (int i = 0; i < 5; ++i) {
      uint32_t allowed = info.kinds[i];
      EXPECT_EQ(cov.filesSeen[id][i], allowed) << "operand " << i;
      EXPECT_EQ(cov.maxIndexSeen[id][i], allowed) << "operand " << i << " at its highest register";
    }
    if (info.opcode != 0) {
      // Vector predicates select lanes: they apply to vector (or vector predicate) results and vector stores.
      bool vectorResult = info.kinds[0] & (kindBit(RegFile::V) | kindBit(RegFile::VP));
      bool vectorStore = info.slot == Slot::Store && (info.kinds[2] & kindBit(RegFile::V));
      uint32_t want = vectorResult || vectorStore ? 0x1fu : 0x7u;
      EXPECT_EQ(cov.predsSeen[id], want) << "predicate forms (bit 0 none, 1 sp, 2 !sp, 3 vp, 4 !vp)";
    }
  }
}

// Bundles of generated slots: text and binary round trips, and the bundle forms are the slot forms in the
// order load, SPU, VPU, store.
TEST(EncodingRoundTrip, BundlesOfGeneratedSlots) {
  const Generated& g = generated();
  size_t n = 0;
  for (const auto& v : g.bySlot) {
    ASSERT_FALSE(v.empty());
    n = std::max(n, v.size());
  }
  FailureLog log;
  for (size_t k = 0; k < n; k += 3) {
    Bundle b;
    for (int s = 0; s < kNumSlots; ++s) b.slots[s] = g.bySlot[s][(k * (s + 1)) % g.bySlot[s].size()];
    uint8_t bytes[kBundleBytes];
    encodeBundle(b, bytes);
    for (int s = 0; s < kNumSlots; ++s) {
      uint8_t one[kSlotBytes];
      encodeSlot(b.slots[s], one);
      if (std::memcmp(one, bytes + s * kSlotBytes, kSlotBytes) != 0) log.add("slot bytes misplaced in bundle");
    }
    Bundle back;
    std::string err;
    if (!decodeBundle(bytes, &back, &err) || !(back == b)) log.add("bundle decode: " + err + " " + formatBundle(b));
    std::string text = formatBundle(b);
    std::string joined = formatSlot(b.slots[0]) + " ; " + formatSlot(b.slots[1]) + " ; " + formatSlot(b.slots[2]) +
                         " ; " + formatSlot(b.slots[3]);
    if (text != joined) log.add("bundle text '" + text + "' is not the slots joined by ' ; '");
    Bundle parsed;
    if (!parseBundle(text, &parsed, &err) || !(parsed == b)) log.add("bundle parse: " + err + " for '" + text + "'");
  }
  EXPECT_EQ(log.count, 0);
}

// The binary layout, derived by hand from the layout comment of encoding.cpp:
// word 0: [0,8) opcode [8,12) dtype [12,21) dst [21,30) src0 [30,39) src1 [39,48) src2 [48,57) src3
//         [57,61) predicate [61] vector predicate [62] negated; word 1: [0,32) immediate [32,64) switches.
// An operand is (file << 6) | index; files V=1 S=2 I=3 SP=4 VP=5 AD=6 Imm=7.
TEST(EncodingLayout, KnownAnswers) {
  struct Case {
    Slot slot;
    const char* text;
    uint64_t w0, w1;
  };
  const Case cases[] = {
      // SPU opcode 1 (add), i32 = 3, dst s1 = 0x81, src0 s1 = 0x81, src1 imm = 0x1c0, imm 64.
      {Slot::Spu, "add.i32 s1, s1, 64", 1ull | 3ull << 8 | 0x81ull << 12 | 0x81ull << 21 | 0x1c0ull << 30, 64ull},
      // VPU opcode 4 (mac), f32 = 0, dst v1 = 0x41, src0 v0 = 0x40, src1 s2 = 0x82, predicate sp1 negated.
      {Slot::Vpu, "@!sp1 mac.f32 v1, v0, s2", 4ull | 0x41ull << 12 | 0x40ull << 21 | 0x82ull << 30 | 1ull << 57 | 1ull << 62,
       0ull},
      // Load opcode 1 (ld_tnsr), dst v0 = 0x40, src0 i2 = 0xc2, tnsr=1 at switch bit 13.
      {Slot::Load, "ld_tnsr.f32 v0, i2 tnsr=1", 1ull | 0x40ull << 12 | 0xc2ull << 21, 0x2000ull << 32},
      // Store opcode 1 (st_tnsr), bf16 = 1, src0 i31 = 0xdf, src1 v39 = 0x67, predicate vp15;
      // tnsr=15 << 13, rmw=max (4) << 17, half=high (2) << 20.
      {Slot::Store, "@vp15 st_tnsr.bf16 i31, v39 tnsr=15 rmw=max half=high",
       1ull | 1ull << 8 | 0xdfull << 21 | 0x67ull << 30 | 15ull << 57 | 1ull << 61,
       static_cast<uint64_t>(15u << 13 | 4u << 17 | 2u << 20) << 32},
      // VPU convert (opcode 39), f32 -> bf16 (dt2 = 1 at bit 4), rm=sr (5), sat (bit 3), part=1 (bit 20).
      {Slot::Vpu, "convert.f32.bf16 v3, v4 rm=sr sat part=1", 39ull | 0x43ull << 12 | 0x44ull << 21,
       static_cast<uint64_t>(5u | 1u << 3 | 1u << 4 | 1u << 20) << 32},
      // SPU loop (opcode 39), i32, dst s35 = 0xa3, src0 imm, src1 s0 = 0x80, src2 s34 = 0xa2, imm -1,
      // cmp=ne (4) at bit 0, end=0x1c0 at bit 8.
      {Slot::Spu, "loop.i32 s35, -1, s0, s34 cmp=ne end=0x1c0",
       39ull | 3ull << 8 | 0xa3ull << 12 | 0x1c0ull << 21 | 0x80ull << 30 | 0xa2ull << 39,
       0xffffffffull | static_cast<uint64_t>(4u | 0x1c0u << 8) << 32},
      // VPU sel_grt (opcode 26), i16 = 5 compared, bf16 = 1 selected; src3 ... src2 = imm 1.5 as bf16 0x3fc0.
      {Slot::Vpu, "sel_grt.i16.bf16 v0, v1, s2, 1.5, v39",
       26ull | 5ull << 8 | 0x40ull << 12 | 0x41ull << 21 | 0x82ull << 30 | 0x1c0ull << 39 | 0x67ull << 48,
       0x3fc0ull | static_cast<uint64_t>(1u << 4) << 32},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    SlotInsn insn;
    std::string err;
    ASSERT_TRUE(parseSlot(c.slot, c.text, &insn, &err)) << err;
    uint8_t want[kSlotBytes], got[kSlotBytes];
    storeLE64(want, c.w0);
    storeLE64(want + 8, c.w1);
    encodeSlot(insn, got);
    for (size_t i = 0; i < kSlotBytes; ++i) { EXPECT_EQ(got[i], want[i]) << "byte " << i; }
    SlotInsn back;
    ASSERT_TRUE(decodeSlot(c.slot, want, &back, &err)) << err;
    EXPECT_EQ(back, insn);
    EXPECT_EQ(formatSlot(back), c.text);
  }
}

// The example bundle of asm_text.h, built field by field.
TEST(AsmText, DocumentedBundleExample) {
  Bundle b;
  SlotInsn& ld = b[Slot::Load];
  ld.id = InsnId::LdTnsr;
  ld.dst = {RegFile::V, 0};
  ld.src[0] = {RegFile::I, 2};
  ld.setField(SwitchField::Tensor, 1);
  SlotInsn& add = b[Slot::Spu];
  add.id = InsnId::SpuAdd;
  add.dtype = DType::I32;
  add.dst = {RegFile::S, 1};
  add.src[0] = {RegFile::S, 1};
  add.src[1] = {RegFile::Imm, 0};
  add.imm = 64;
  SlotInsn& mac = b[Slot::Vpu];
  mac.id = InsnId::VpuMac;
  mac.dst = {RegFile::V, 1};
  mac.src[0] = {RegFile::V, 0};
  mac.src[1] = {RegFile::S, 2};
  mac.predIndex = 1;
  mac.predNegate = true;
  const std::string text = "ld_tnsr.f32 v0, i2 tnsr=1 ; add.i32 s1, s1, 64 ; @!sp1 mac.f32 v1, v0, s2 ; nop";
  EXPECT_EQ(formatBundle(b), text);
  Bundle parsed;
  std::string err;
  ASSERT_TRUE(parseBundle(text, &parsed, &err)) << err;
  EXPECT_EQ(parsed, b);
  // Extra blanks and tabs around slots and after commas are accepted.
  ASSERT_TRUE(parseBundle("  ld_tnsr.f32 v0,  i2\ttnsr=1;add.i32 s1,s1,64 ;\t@!sp1 mac.f32 v1,v0, s2 ; nop ", &parsed,
                          &err))
      << err;
  EXPECT_EQ(parsed, b);
}

// Typed immediates: the value written, its bit pattern, and how it prints back. Floats that are not normal
// or zero, and integers that are not the canonical extension of their type, print as hex.
TEST(AsmText, TypedImmediates) {
  struct Case {
    Slot slot;
    const char* in;
    uint32_t imm;
    const char* out;  // nullptr: same as `in`
  };
  const Case cases[] = {
      {Slot::Vpu, "add.f32 v1, v2, 0.1", bitsOf(0.1f), nullptr},
      {Slot::Vpu, "add.f32 v1, v2, -0.0", 0x80000000u, nullptr},
      {Slot::Vpu, "add.f32 v1, v2, 0.0", 0u, nullptr},
      {Slot::Vpu, "add.f32 v1, v2, 1e-30", bitsOf(1e-30f), nullptr},
      {Slot::Vpu, "add.f32 v1, v2, 3.4e38", bitsOf(3.4e38f), "add.f32 v1, v2, 3.4e+38"},
      {Slot::Vpu, "add.f32 v1, v2, 2", 0x40000000u, "add.f32 v1, v2, 2.0"},
      {Slot::Vpu, "add.f32 v1, v2, -2.5", 0xc0200000u, nullptr},
      {Slot::Vpu, "add.f32 v1, v2, 0x7fc00000", 0x7fc00000u, nullptr},        // NaN
      {Slot::Vpu, "add.f32 v1, v2, 0x7f800001", 0x7f800001u, nullptr},        // signaling NaN
      {Slot::Vpu, "add.f32 v1, v2, 0xff800000", 0xff800000u, nullptr},        // -inf
      {Slot::Vpu, "add.f32 v1, v2, 0x7f800000", 0x7f800000u, nullptr},        // inf
      {Slot::Vpu, "add.f32 v1, v2, 0x1", 0x1u, nullptr},                      // denormal
      {Slot::Vpu, "add.f32 v1, v2, inf", 0x7f800000u, "add.f32 v1, v2, 0x7f800000"},
      {Slot::Vpu, "add.bf16 v1, v2, 1.5", 0x3fc0u, nullptr},
      {Slot::Vpu, "add.bf16 v1, v2, -0.0", 0x8000u, nullptr},
      {Slot::Vpu, "add.bf16 v1, v2, 0x7fc0", 0x7fc0u, nullptr},
      {Slot::Vpu, "add.bf16 v1, v2, 0x12345", 0x12345u, nullptr},             // not canonical for bf16
      {Slot::Vpu, "add.bf16 v1, v2, 1.00390625", 0x3f80u, "add.bf16 v1, v2, 1.0"},  // 1 + 2^-8: tie to even
      {Slot::Vpu, "add.bf16 v1, v2, 1.01171875", 0x3f82u, "add.bf16 v1, v2, 1.015625"},  // 1 + 3*2^-8: tie to even
      {Slot::Vpu, "add.f16 v1, v2, 65504", 0x7bffu, "add.f16 v1, v2, 65504.0"},
      {Slot::Vpu, "add.f16 v1, v2, -1", 0xbc00u, "add.f16 v1, v2, -1.0"},
      {Slot::Vpu, "add.f16 v1, v2, 0x7e00", 0x7e00u, nullptr},
      {Slot::Vpu, "add.f16 v1, v2, 0x1", 0x1u, nullptr},                      // f16 denormal
      {Slot::Vpu, "add.i32 v1, v2, -2147483648", 0x80000000u, nullptr},
      {Slot::Vpu, "add.i32 v1, v2, 2147483647", 0x7fffffffu, nullptr},
      {Slot::Vpu, "add.u32 v1, v2, 4294967295", 0xffffffffu, nullptr},
      {Slot::Vpu, "add.i16 v1, v2, -1", 0xffffffffu, nullptr},
      {Slot::Vpu, "add.i16 v1, v2, -32768", 0xffff8000u, nullptr},
      {Slot::Vpu, "add.i16 v1, v2, 0xffff", 0xffffu, nullptr},                // zero-extended: not canonical i16
      {Slot::Vpu, "add.u16 v1, v2, 65535", 0xffffu, nullptr},
      {Slot::Vpu, "add.i8 v1, v2, -128", 0xffffff80u, nullptr},
      {Slot::Vpu, "add.i8 v1, v2, 0b101", 5u, "add.i8 v1, v2, 5"},
      {Slot::Vpu, "add.u8 v1, v2, 255", 0xffu, nullptr},
      {Slot::Vpu, "shl.i8 v1, v2, 4294967295", 0xffffffffu, nullptr},        // shift amounts are plain u32
      {Slot::Spu, "jmpr 0x40", 0x40u, nullptr},
      {Slot::Spu, "jmpr 128", 0x80u, "jmpr 0x80"},
      {Slot::Spu, "mov_sp sp1, 1", 1u, nullptr},
      // Select: the compared operands have the first type, the selected values the second.
      {Slot::Vpu, "sel_eq.f32.i32 v0, v1, v2, -1, v3", 0xffffffffu, nullptr},
      {Slot::Vpu, "sel_eq.i32.f32 v0, v1, v2, v3, 0.5", 0x3f000000u, nullptr},
      {Slot::Vpu, "sel_eq.i32.f32 v0, v1, -7, v3, v4", 0xfffffff9u, nullptr},
      {Slot::Vpu, "sel_less.i16.bf16 v0, v1, v2, 1.5, v3", 0x3fc0u, nullptr},
      {Slot::Vpu, "sel_less.bf16.i16 v0, v1, 1.5, v2, v3", 0x3fc0u, nullptr},
      {Slot::Vpu, "sel_less.bf16.i16 v0, v1, v2, -2, v3", 0xfffffffeu, nullptr},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.in);
    SlotInsn insn;
    std::string err;
    ASSERT_TRUE(parseSlot(c.slot, c.in, &insn, &err)) << err;
    EXPECT_EQ(insn.imm, c.imm);
    EXPECT_EQ(formatSlot(insn), c.out ? c.out : c.in);
  }
}

// Floats print in a form that reads back as the same value: checked with the C library's strtof.
TEST(AsmText, FloatImmediateTextIsExact) {
  // bf16 0x3dcd is 205/2048 = 0.10009765625; f16 0x2e66 is 1638/16384 = 0.0999755859375.
  struct Case {
    const char* insn;
    uint32_t imm;
    float value;
  };
  const Case cases[] = {{"add.bf16", 0x3dcdu, 0.10009765625f},
                        {"add.f16", 0x2e66u, 0.0999755859375f},
                        {"add.f32", 0x3dcccccdu, 0.1f},
                        {"add.f32", 0x7f7fffffu, 3.40282346638528859811704183484516925e38f},
                        {"add.bf16", 0x7f7fu, 3.3895313892515355e38f},
                        {"add.f16", 0x0400u, 6.103515625e-05f},
                        {"add.f32", 0x00800000u, 1.17549435082228750797e-38f}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.insn);
    SlotInsn insn;
    std::string err;
    ASSERT_TRUE(parseSlot(Slot::Vpu, std::string(c.insn) + " v1, v2, 1", &insn, &err)) << err;
    insn.imm = c.imm;
    std::string text = formatSlot(insn);
    std::string num = text.substr(text.rfind(' ') + 1);
    EXPECT_EQ(bitsOf(std::strtof(num.c_str(), nullptr)), bitsOf(c.value)) << text;
  }
}

TEST(AsmText, LabelsResolveBranchTargetsAndLoopEnds) {
  LabelResolver labels = [](std::string_view name) -> std::optional<uint32_t> {
    if (name == "target") return 0x80u;
    if (name == "body_end") return 0x140u;
    if (name == "odd") return 0x44u;
    return std::nullopt;
  };
  SlotInsn insn;
  std::string err;
  ASSERT_TRUE(parseSlot(Slot::Spu, "jmpr target", &insn, &err, labels)) << err;
  EXPECT_EQ(insn.id, InsnId::SpuJmpr);
  EXPECT_EQ(insn.src[0], (Operand{RegFile::Imm, 0}));
  EXPECT_EQ(insn.imm, 0x80u);
  EXPECT_EQ(formatSlot(insn), "jmpr 0x80");
  ASSERT_TRUE(parseSlot(Slot::Spu, "@!sp2 jmpr target", &insn, &err, labels)) << err;
  EXPECT_EQ(insn.imm, 0x80u);
  EXPECT_TRUE(insn.predNegate);
  EXPECT_EQ(insn.predIndex, 2);

  ASSERT_TRUE(parseSlot(Slot::Spu, "loop.i32 s3, 0, s4, 1 end=body_end", &insn, &err, labels) == false);
  EXPECT_NE(err.find("immediate"), std::string::npos) << err;  // two immediates
  ASSERT_TRUE(parseSlot(Slot::Spu, "loop.i32 s3, 0, s4, s5 cmp=le end=body_end", &insn, &err, labels)) << err;
  EXPECT_EQ(insn.field(SwitchField::LoopEnd), 0x140u);
  EXPECT_EQ(insn.field(SwitchField::LoopCmp), 1u);
  EXPECT_EQ(formatSlot(insn), "loop.i32 s3, 0, s4, s5 cmp=le end=0x140");

  EXPECT_FALSE(parseSlot(Slot::Spu, "jmpr nowhere", &insn, &err, labels));
  EXPECT_NE(err.find("unknown label 'nowhere'"), std::string::npos) << err;
  EXPECT_FALSE(parseSlot(Slot::Spu, "jmpr odd", &insn, &err, labels));
  EXPECT_NE(err.find("not a bundle address"), std::string::npos) << err;
  EXPECT_FALSE(parseSlot(Slot::Spu, "jmpr target", &insn, &err));  // no resolver: not a number
  EXPECT_NE(err.find("target"), std::string::npos) << err;

  Bundle b;
  ASSERT_TRUE(parseBundle("nop ; jmpr target ; nop ; nop", &b, &err, labels)) << err;
  EXPECT_EQ(b[Slot::Spu].imm, 0x80u);
}
