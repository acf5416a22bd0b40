// Decoder robustness: the decoder reads untrusted bytes (objects from disk, memory dumps). Any 16-byte word
// must either decode to a slot that validates and re-encodes to the same bytes, or be rejected with a
// message; it must never crash (the sanitizer build of this suite checks the "never" part).
#include <fmt/format.h>

#include "isa_test_util.h"

using namespace tpc;
using namespace tpc::isa;
using namespace isa_test;

namespace {

struct FuzzStats {
  int decoded = 0, rejected = 0;
};

// Decodes `bytes` in `slot` and checks the contract; valid words also go through the assembly text.
void checkWord(Slot slot, const uint8_t bytes[kSlotBytes], FuzzStats* stats, FailureLog* log) {
  SlotInsn insn;
  insn.imm = 0xdeadbeef;  // decodeSlot must not touch *out on failure
  const SlotInsn before = insn;
  std::string err;
  if (!decodeSlot(slot, bytes, &insn, &err)) {
    ++stats->rejected;
    if (err.empty()) log->add("rejected without a message");
    if (!(insn == before)) log->add("failed decode modified its output");
    return;
  }
  ++stats->decoded;
  if (std::string why = validateSlot(insn); !why.empty()) log->add("decoded slot does not validate: " + why);
  if (insn.info().slot != slot) log->add("decoded an instruction of another slot");
  uint8_t again[kSlotBytes];
  encodeSlot(insn, again);
  if (std::memcmp(again, bytes, kSlotBytes) != 0) log->add("re-encoding differs for " + formatSlot(insn));
  // Whatever decodes must also print and parse back (the disassembler and assembler agree on it).
  std::string text = formatSlot(insn);
  SlotInsn parsed;
  if (!parseSlot(slot, text, &parsed, &err)) log->add("decoded slot '" + text + "' does not parse: " + err);
  else if (!(parsed == insn)) log->add("decoded slot '" + text + "' parses differently");
}

}  // namespace

TEST(DecoderFuzz, RandomWordsDecodeConsistentlyOrFailWithAMessage) {
  std::mt19937_64 rng(0x7c0de);
  FuzzStats stats;
  FailureLog log;
  for (int n = 0; n < 100000; ++n) {
    uint8_t bytes[kSlotBytes];
    uint64_t a = rng(), b = rng();
    // Every fourth word gets a plausible opcode and a clear reserved bit so that decoding goes deeper
    // than the first check.
    if (n % 4 == 0) a = (a & ~0xffull & ~(1ull << 63)) | (a % 48);
    for (int i = 0; i < 8; ++i) {
      bytes[i] = static_cast<uint8_t>(a >> (8 * i));
      bytes[8 + i] = static_cast<uint8_t>(b >> (8 * i));
    }
    checkWord(static_cast<Slot>(n % kNumSlots), bytes, &stats, &log);
  }
  EXPECT_EQ(log.count, 0);
  EXPECT_GT(stats.rejected, 90000);
}

// Valid encodings with a few bits flipped: these land near the valid set, so a good share decodes and
// exercises the validate / re-encode / text path, the rest the rejection paths of every field.
TEST(DecoderFuzz, MutatedValidWordsDecodeConsistentlyOrFailWithAMessage) {
  std::vector<SlotInsn> seeds;
  std::mt19937 pick(99);
  generateAll([&](const SlotInsn& insn) {
    if (pick() % 16 == 0) seeds.push_back(insn);
  });
  ASSERT_GT(seeds.size(), 1000u);
  std::mt19937_64 rng(0xf1a5);
  FuzzStats stats;
  FailureLog log;
  for (int n = 0; n < 100000; ++n) {
    const SlotInsn& seed = seeds[rng() % seeds.size()];
    uint8_t bytes[kSlotBytes];
    encodeSlot(seed, bytes);
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      unsigned bit = static_cast<unsigned>(rng() % (kSlotBytes * 8));
      bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    }
    checkWord(seed.info().slot, bytes, &stats, &log);
  }
  EXPECT_EQ(log.count, 0);
  // Both outcomes must be well represented, or the test is not exercising what it claims.
  EXPECT_GT(stats.decoded, 10000);
  EXPECT_GT(stats.rejected, 10000);
}

TEST(DecoderFuzz, RandomBundles) {
  std::mt19937_64 rng(4242);
  int rejected = 0;
  for (int n = 0; n < 20000; ++n) {
    uint8_t bytes[kBundleBytes];
    for (size_t i = 0; i < kBundleBytes; i += 8) {
      uint64_t v = rng();
      std::memcpy(bytes + i, &v, 8);
    }
    Bundle b;
    std::string err;
    if (decodeBundle(bytes, &b, &err)) {
      uint8_t again[kBundleBytes];
      encodeBundle(b, again);
      EXPECT_EQ(std::memcmp(again, bytes, kBundleBytes), 0);
    } else {
      ++rejected;
      EXPECT_FALSE(err.empty());
    }
  }
  EXPECT_GT(rejected, 0);
}

// Each field of the word is checked on decode: known-bad words name the problem.
TEST(DecoderFuzz, SpecificRejections) {
  auto word = [](uint64_t w0, uint64_t w1, uint8_t* out) {
    for (int i = 0; i < 8; ++i) {
      out[i] = static_cast<uint8_t>(w0 >> (8 * i));
      out[8 + i] = static_cast<uint8_t>(w1 >> (8 * i));
    }
  };
  struct Case {
    Slot slot;
    uint64_t w0, w1;
    const char* expect;
  };
  const uint64_t spuAddS = 1ull | 3ull << 8 | 0x81ull << 12 | 0x82ull << 21 | 0x83ull << 30;  // add.i32 s1, s2, s3
  const Case cases[] = {
      {Slot::Spu, 200ull, 0, "unknown opcode 200"},
      {Slot::Store, static_cast<uint64_t>(slotInsns(Slot::Store).size()), 0, "unknown opcode"},
      {Slot::Spu, spuAddS | 1ull << 63, 0, "reserved bit"},
      {Slot::Spu, (spuAddS & ~(0xfull << 8)) | 9ull << 8, 0, "unknown data type 9"},
      {Slot::Spu, (spuAddS & ~(0xfull << 8)) | 15ull << 8, 0, "unknown data type 15"},
      {Slot::Spu, (spuAddS & ~(0x1ffull << 12)) | 0xa4ull << 12, 0, "register s36 does not exist"},
      {Slot::Spu, (spuAddS & ~(0x1ffull << 12)) | 0x41ull << 12, 0, "operand dst cannot be a v register"},
      {Slot::Spu, spuAddS & ~(0x1ffull << 12), 0, "missing operand dst"},
      {Slot::Spu, spuAddS | 0x81ull << 39, 0, "operand src2 cannot be a s register"},
      {Slot::Spu, spuAddS, 5, "immediate field set but unused"},
      {Slot::Spu, spuAddS, 1ull << 34, "switch bits 0x4 not allowed"},
      {Slot::Spu, 0ull | 1ull << 62, 0, "nop: cannot be predicated"},
      {Slot::Spu, 0ull | 1ull << 8, 0, "takes no data type"},
      {Slot::Spu, 38ull | 0x1c0ull << 21, 0x44, "not a bundle address"},  // jmpr 0x44
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expect);
    uint8_t bytes[kSlotBytes];
    word(c.w0, c.w1, bytes);
    SlotInsn insn;
    std::string err;
    EXPECT_FALSE(decodeSlot(c.slot, bytes, &insn, &err));
    EXPECT_NE(err.find(c.expect), std::string::npos) << err;
  }
  // The unmodified word decodes, so the rejections above are due to the one changed field.
  uint8_t ok[kSlotBytes];
  word(spuAddS, 0, ok);
  SlotInsn insn;
  std::string err;
  ASSERT_TRUE(decodeSlot(Slot::Spu, ok, &insn, &err)) << err;
  EXPECT_EQ(formatSlot(insn), "add.i32 s1, s2, s3");
}
