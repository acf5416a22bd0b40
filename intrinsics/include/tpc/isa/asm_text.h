// The assembly text of bundles: what tpc-objdump prints, tpc-as reads, tpc-clang -S writes and the
// simulator's trace shows. One bundle is four slots separated by " ; " in the order load, SPU, VPU, store:
//
//     ld_tnsr.f32 v0, i2 tnsr=1 ; add.i32 s1, s1, 64 ; @!sp1 mac.f32 v1, v0, s2 ; nop
//
// docs/isa.md describes the grammar.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tpc/isa/encoding.h"

namespace tpc::isa {

std::string formatOperand(const SlotInsn& insn, const Operand& op);
std::string formatSlot(const SlotInsn& insn);
std::string formatBundle(const Bundle& b);

// Resolves a label used as a branch target or loop end to a bundle byte address.
using LabelResolver = std::function<std::optional<uint32_t>(std::string_view)>;

// Parsing returns false and a message saying what was expected on error.
bool parseSlot(Slot slot, std::string_view text, SlotInsn* out, std::string* error,
               const LabelResolver& labels = nullptr);
bool parseBundle(std::string_view text, Bundle* out, std::string* error, const LabelResolver& labels = nullptr);

// Integer literal in decimal, 0x hex or 0b binary, with an optional leading '-'.
std::optional<int64_t> parseInteger(std::string_view text);

}  // namespace tpc::isa
