// Binary encoding of bundles. A bundle is 64 bytes: four 16-byte slot words in the order load, SPU, VPU,
// store. docs/isa.md draws the bit layout; this header is its only implementation.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "tpc/isa/isa.h"

namespace tpc::isa {

inline constexpr size_t kSlotBytes = 16;
inline constexpr size_t kBundleBytes = kSlotBytes * kNumSlots;

struct Operand {
  RegFile file = RegFile::None;
  uint8_t index = 0;
  bool operator==(const Operand&) const = default;
};

// One decoded slot: an instruction with its operands, predicate, immediate and switches.
struct SlotInsn {
  InsnId id = InsnId::LdNop;
  DType dtype = DType::F32;            // field value 0 when the instruction has no data type
  Operand dst;
  std::array<Operand, 4> src{};
  uint8_t predIndex = 0;               // SP or VP register; SP0 non-negated means "always"
  bool predVector = false;
  bool predNegate = false;
  uint32_t imm = 0;
  uint32_t sw = 0;                     // switch word

  const InsnInfo& info() const { return insnInfo(id); }
  uint32_t field(SwitchField f) const { return switchField(f).get(sw); }
  void setField(SwitchField f, uint32_t v) { sw = switchField(f).set(sw, v); }
  bool isNop() const;
  bool alwaysExecutes() const { return !predVector && predIndex == 0 && !predNegate; }
  bool operator==(const SlotInsn&) const = default;
};

SlotInsn nopFor(Slot s);

struct Bundle {
  std::array<SlotInsn, kNumSlots> slots{nopFor(Slot::Load), nopFor(Slot::Spu), nopFor(Slot::Vpu),
                                       nopFor(Slot::Store)};
  SlotInsn& operator[](Slot s) { return slots[static_cast<int>(s)]; }
  const SlotInsn& operator[](Slot s) const { return slots[static_cast<int>(s)]; }
  bool operator==(const Bundle&) const = default;
};

// Checks a slot against the instruction table: operand files and indices, data type, switch bits,
// immediate use. Returns an empty string when valid, else what is wrong.
std::string validateSlot(const SlotInsn& insn);

void encodeSlot(const SlotInsn& insn, uint8_t out[kSlotBytes]);
void encodeBundle(const Bundle& b, uint8_t out[kBundleBytes]);

// Decoding never trusts its input: on any invalid field it returns false and says why in *error.
bool decodeSlot(Slot slot, const uint8_t in[kSlotBytes], SlotInsn* out, std::string* error);
bool decodeBundle(const uint8_t in[kBundleBytes], Bundle* out, std::string* error);

}  // namespace tpc::isa
