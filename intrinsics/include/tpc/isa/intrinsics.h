// The TPC-C intrinsics: every intrinsic's signature (names, parameter order and defaults as the public
// intrinsic reference fixes them) and how the compiler lowers it. Rows live in intrinsics/intrinsics/*.def.
// The compiler generates the implicit header tpc-intrinsics.h from this table and selects instructions
// for calls by it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpc/isa/isa.h"

namespace tpc::isa {

// How a call is lowered.
enum class Lowering : uint8_t {
  Op,                // the instruction; a, b, c, d are its sources, income its destination's old value
  Mac,               // the instruction reads and writes `accumulator`
  LdTnsr,            // tensor load: ndx, tensor
  StTnsr,            // tensor store: ndx, tensor, value
  IndexSpaceOffset,  // this core's index-space offset (I0)
  IndexSpaceSize,    // this core's index-space size (I1)
  Store,             // store without a destination: addr (local address or global pointer), value
  LdGBroadcast,      // v_<t>_ld_g: ld_g of one element into a scalar register, then a move to all lanes
  Reinterpret,       // the same register seen as another type (to_bool64, from_bool64, ...): a copy
  MovDualGroup,      // mov_dual_group: a, b (byte mask), src_dg, dest_dg, switches (whole dual groups)
  MovDualGroupAll,   // mov_dual_group_all: a, b, sdg0..sdg3, switches -> four mov_dual_group
  StTnsrLow,         // tensor store of the low half of the lanes (st_tnsr half=low): ndx, tensor, value
  StTnsrHigh,        // tensor store of the high half of the lanes (st_tnsr half=high)
  LdTnsrLow,         // tensor load of the low half of the lanes: ld_tnsr_partial off=0 size=n/2
  LdTnsrHigh,        // tensor load of the high half of the lanes: ld_tnsr_partial off=n/2 size=n/2
  TensorDimSize,     // get_dim_size(a, dim): ld_tdesc fn=0 of tensor a
  TensorDimStride,   // get_dim_stride(a, dim): ld_tdesc fn=1
  TensorHwprefStride,  // get_tensor_hwpref_stride(a): ld_tdesc field=hwpref
  TensorPadBits,     // __tensor_pad_bits(a): ld_tdesc field=pad, the raw 32 bits (get_pad_value_* in tpc-defs.h)
  ConvertAllNarrow,  // v_convert_f32_to_bf16_all: pair src -> convert layout=interleaved part=0 (src.v1), part=1 (src.v2)
  ConvertAllWiden,   // v_convert_bf16_to_f32_all: src -> pair: .v1 = convert part=0, .v2 = part=1 (layout=interleaved)
  ConvertWiden,      // up-convert without a lane: convert layout=interleaved part=0 (source lanes 0, r, 2r, ...)
  WideProduct,       // integer v_<t>_mul/mac: one mul_wide/mac_wide part=k per member k of the pair or quad result
};

struct IntrinsicParam {
  std::string type;
  std::string name;
  std::optional<std::string> defaultValue;
};

struct IntrinsicInfo {
  std::string name;
  std::string returnType;
  std::vector<IntrinsicParam> params;
  Lowering lowering;
  InsnId insn;
  DType dtype, dt2;

  int paramIndex(std::string_view paramName) const;  // -1 when absent
  size_t requiredParams() const;                      // parameters before the first default
};

// A computation on its arguments alone (SPU and VPU instructions, the index space): no memory, no other
// effect. Its builtin is declared __attribute__((const)), so LLVM may merge, hoist and delete calls.
bool isPure(const IntrinsicInfo& in);
// Whether the intrinsic's result may depend on the core's state: a convert rounds by CONV_ROUND_CSR with
// SW_CSR and draws from the random stream with SW_SR. Not pure; the compiler declares it as reading only
// memory no pointer reaches, so LLVM keeps it after the MMIO store that sets the mode (a call with unknown
// effects) and may still delete, merge and hoist it where no such store intervenes.
bool readsCoreState(const IntrinsicInfo& in);

// The ld_tdesc field (SwitchField::TdescField) a descriptor query reads; -1 for other lowerings.
int tensorQueryField(Lowering lowering);

const std::vector<IntrinsicInfo>& allIntrinsics();
const IntrinsicInfo* findIntrinsic(std::string_view name);

// The name of the declared function a call reaches after the header's default-argument wrappers.
inline constexpr std::string_view kBuiltinPrefix = "__tpc_";

// tpc-intrinsics.h: for every intrinsic, the full builtin declaration and one always-inline overload per
// number of arguments a caller may give (C has no default arguments; Clang's `overloadable` does it).
// Intrinsics on data types the architecture lacks (f16 on gaudi) are left out. With `wanted`, only the
// intrinsics it accepts by name are declared: the compiler declares what a source names, not all of them.
std::string generateIntrinsicsHeader(const ArchInfo& arch,
                                     const std::function<bool(std::string_view)>& wanted = nullptr);

}  // namespace tpc::isa
