// The rules that turn a call of an intrinsic into instruction fields, independent of how the call is
// represented: the compiler's instruction selection (tpcc/backend/src/isel_intrinsics.cpp) and the native
// reference (native/) both apply them, so the two execution paths cannot disagree on what a call means.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tpc/isa/intrinsics.h"

namespace tpc::isa {

// A call that cannot be lowered; what() says why, without the intrinsic's name (callers prefix it).
class IntrinsicLoweringError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The value of a parameter of the call when it is a compile-time constant, std::nullopt otherwise. Called
// only for parameters the intrinsic has.
using ConstantParam = std::function<std::optional<uint32_t>(std::string_view name)>;

// The value of a constant parameter (0 when the intrinsic has no such parameter); throws when it is not
// a compile-time constant.
uint32_t requireConstantParam(const IntrinsicInfo& info, const ConstantParam& constant, const char* name);

// The switch word of instruction `id` for a call of `info`: the vendor's switches (or options) translated
// field by field, the second data type, and the switch fields of constant parameters (dimmask, dim, size,
// offset, rmw). Any bit that cannot be honoured throws.
uint32_t intrinsicSwitchWord(const IntrinsicInfo& info, InsnId id, const ConstantParam& constant);

// The instruction of a tensor-access call: the intrinsic's own, or for a partial access whose size or
// offset is not a compile-time constant, the register form (ld/st_tnsr_partial_r) that reads them from
// scalar registers.
InsnId tensorAccessInsn(const IntrinsicInfo& info, const ConstantParam& constant);

// Parameter indices of the instruction's sources, in order (a, b, c, d; or src1, src2; src; addr; value).
std::vector<int> intrinsicSourceParams(const IntrinsicInfo& info);

// The parameter that holds the destination's old value (income; for set_indx, ndx), -1 when none.
int intrinsicIncomeParam(const IntrinsicInfo& info);

// The parameter that names a tensor (its number, which the instruction encodes): `tensor` of tensor
// accesses and gen_addr, `a` of descriptor queries; -1 when the intrinsic takes none.
int intrinsicTensorParam(const IntrinsicInfo& info);

// Whether instruction `op` of type `dtype` with switches `sw` may leave part of its destination unwritten
// (so the income must be in the destination register before it runs).
bool instructionWritesPartially(InsnId op, DType dtype, uint32_t sw);

// mov_dual_group(_all): the moves of the instruction `mov_dual_group`, one (dest_dg, with the groups of
// SW_WR_LOWER_GROUP / SW_WR_UPPER_GROUP) or, for _all, one per destination dual group k that
// SW_WR_{LOWER,UPPER}_GROUPk write (from sdgk). Each copies the groups `groups` (bit 0 lower, 1 upper)
// of dual group `src` into dual group `dst`, byte j of a group where bit j of the byte mask b is set.
// Checks that b, the switches and the dual groups are constants and in range.
struct DualGroupMove {
  uint32_t src, dst, groups, mask;
};
std::vector<DualGroupMove> dualGroupMoves(const IntrinsicInfo& info, const ConstantParam& constant, bool all);

// v_convert_f32_to_bf16_all / v_convert_bf16_to_f32_all and the high-level convert_float128_to_bfloat128 /
// convert_bfloat128_to_float128 (Lowering::ConvertAllNarrow / ConvertAllWiden): two converts, part 0 for the
// pair's .v1 and part 1 for .v2, with layout=interleaved (the even and the odd lanes of the bf16 register;
// the `_all` intrinsics, and the high-level ones by default) or layout=block (lanes 0-63 and 64-127; the
// high-level ones with SW_LINEAR). Returns the switch word of the convert of `part` from the call's `sw`
// (intrinsicSwitchWord).
uint32_t convertAllPartSwitches(const IntrinsicInfo& info, const ConstantParam& constant, uint32_t sw, uint32_t part);

// The members of the result of an integer mul/mac with wider products (Lowering::WideProduct), and so the
// mul_wide / mac_wide instructions it takes: 2 for 32-bit types (low and high words) and 16-bit ones, 4 for
// 8-bit ones.
inline unsigned wideProductParts(DType t) { return dtypeSize(t) == 1 ? 4u : 2u; }

// The parameter converted by a ConvertAll lowering (`src`, or `a` for the high-level forms).
int convertAllSourceParam(const IntrinsicInfo& info);

// A C conversion (float <-> integer, float <-> float) of a scalar or of a vector of the same lane count as
// one convert instruction: its data type and switch word. `from` and `to` are the operand types (with the
// signedness the conversion gives them); C converts floats to integers by truncation toward zero.
struct ConversionInsn {
  InsnId id;
  DType dtype;
  uint32_t sw;
};
ConversionInsn cConversion(bool vector, DType from, DType to);

}  // namespace tpc::isa
