// The TPC instruction set as data: slots, register files, switch fields and the instruction table.
// Everything that knows an instruction (encoder, decoder, assembler, disassembler, simulator, compiler)
// reads it from here; the rows live in intrinsics/isa/*.def.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "tpc/support/dtype.h"

namespace tpc::isa {

// The four issue slots of a VLIW bundle, in encoding and execution order.
enum class Slot : uint8_t { Load = 0, Spu = 1, Vpu = 2, Store = 3 };
inline constexpr int kNumSlots = 4;
std::string_view slotName(Slot s);

// Register files. The numeric value is the 3-bit file field of an operand; Imm means "the slot's immediate".
enum class RegFile : uint8_t { None = 0, V = 1, S = 2, I = 3, SP = 4, VP = 5, AD = 6, Imm = 7 };
inline constexpr uint32_t kindBit(RegFile f) { return 1u << static_cast<unsigned>(f); }

// Architectural register counts (Gaudi2's public figures).
inline constexpr int kNumVRegs = 40;   // 2048-bit vector registers
inline constexpr int kNumSRegs = 36;   // 32-bit scalar registers
inline constexpr int kNumIRegs = 32;   // index registers, five 32-bit dimensions each
inline constexpr int kNumSPRegs = 16;  // scalar predicates; SP0 always reads true
inline constexpr int kNumVPRegs = 16;  // 256-bit vector predicates, bit i for lane i
inline constexpr int kNumADRegs = 8;   // 64-bit global address registers
inline constexpr int kVectorBytes = 256;
inline constexpr int kNumTensors = 16;  // tensor descriptors per kernel
inline constexpr int kMaxScalarParams = 32;
int regFileSize(RegFile f);
std::string_view regFilePrefix(RegFile f);  // "v", "s", "i", "sp", "vp", "ad"

// Reserved registers: I0 holds the index-space offset and I1 its size for this core's part.
inline constexpr int kIndexSpaceOffsetReg = 0;
inline constexpr int kIndexSpaceSizeReg = 1;

enum class SwitchField : uint8_t {
#define SWITCH_FIELD(Id, name, shift, width) Id,
#include "../../../isa/switch_fields.def"
#undef SWITCH_FIELD
  Count
};
struct SwitchFieldInfo {
  std::string_view name;
  uint8_t shift, width;
  constexpr uint32_t mask() const { return ((width == 32 ? 0xffffffffu : ((1u << width) - 1u)) << shift); }
  constexpr uint32_t get(uint32_t sw) const { return (sw & mask()) >> shift; }
  constexpr uint32_t set(uint32_t sw, uint32_t v) const { return (sw & ~mask()) | ((v << shift) & mask()); }
};
const SwitchFieldInfo& switchField(SwitchField f);
inline constexpr int kNumSwitchFields = static_cast<int>(SwitchField::Count);

// Rounding modes of the rm switch field. CSR takes the mode from the core's CONV_ROUND_CSR register (an
// MMIO register the kernel writes with st_l mmio; see ArchInfo::convRoundCsr).
enum class RoundingMode : uint8_t { RHNE = 0, RZ = 1, RU = 2, RD = 3, RHAZ = 4, SR = 5, CSR = 6 };
inline constexpr int kNumRoundingModes = 7;
std::string_view roundingModeName(RoundingMode m);
// The vendor's 3-bit rounding code (e_round_mode, SW_RHNE..SW_SR_RNE >> 16, and the mode field of
// CONV_ROUND_CSR): 0 RHNE, 1 RZ, 2 RU, 3 RD, 4 SR, 5 CSR, 6 RHAZ, 7 SR_RNE (stochastic; denormals flush
// anyway, so it is SR here).
RoundingMode roundingModeFromVendor(uint32_t code);

// Read-modify-write operations of a tensor store.
enum class RmwOp : uint8_t { None = 0, Add = 1, Sub = 2, Min = 3, Max = 4 };

// Loop conditions (loop instruction, cmp field): continue while "iterator <cmp> end".
enum class LoopCmp : uint8_t { Lt = 0, Le = 1, Gt = 2, Ge = 3, Ne = 4 };

// Lookup tables (docs/isa.md): how lut_entry/lut_start find an interval (variant field, the vendor's
// e_func_variant), the built-in tables of lookup (fid field, numbered as the vendor's e_function_id), and
// which coefficient lookup reads (coef field). semantics/lut.h has their contents.
enum class LutVariant : uint8_t { Default = 0, Tanh = 1, SqrtRsqrt = 2, SinCos = 3 };
enum class LutTable : uint16_t {
  Fp32Tanh = 0,
  Fp32Rsqrt = 1,
  Fp32Log2 = 2,
  Fp32Sqrt = 128,
  Fp32Rcp = 129,
  Fp32SinCos = 130,
  Fp32Pow2 = 256,
};
bool isBuiltinLutTable(uint32_t fid);
// Value: the one value of an entry of a one-value user table (a built-in table's c0); C0-C2: the
// polynomial's coefficients.
enum class LutCoef : uint8_t { Value = 0, C0 = 1, C1 = 2, C2 = 3 };

// calc_fp_special functions (fn field).
enum class FpSpecialFunc : uint8_t { Recip = 0, Rsqrt = 1, Sqrt = 2, Log = 3, Exp = 4, Tanh = 5, Div = 6, Pow = 7 };

// Instruction flags.
enum InsnFlag : uint32_t {
  F_READS_DST = 1u << 0,  // the destination's old value is an input (mac, income of partial writes)
  F_TENSOR = 1u << 1,     // accesses the tensor named by the tnsr switch
  F_IMM_U32 = 1u << 2,    // the immediate is an unsigned integer, not a value of the data type
  F_IMM_ADDR = 1u << 3,   // the immediate is a bundle byte address
  F_DT2 = 1u << 4,        // the mnemonic carries a second data type (.t1.t2), held in the dt2 field
  F_BRANCH = 1u << 5,
  F_LOOP = 1u << 6,
  F_HALT = 1u << 7,
};

enum class InsnId : uint16_t {
#define INSN(Id, ...) Id,
#include "../../../isa/load.def"
#include "../../../isa/spu.def"
#include "../../../isa/vpu.def"
#include "../../../isa/store.def"
#undef INSN
  Count
};
inline constexpr int kNumInsns = static_cast<int>(InsnId::Count);

struct InsnInfo {
  InsnId id;
  std::string_view mnemonic;
  Slot slot;
  uint8_t opcode;                  // position within its slot's table
  std::array<uint32_t, 5> kinds;   // allowed register files of dst, src0..src3 (kindBit masks)
  uint32_t types;                  // allowed element types (bit i = DType i); 0: the insn has no data type
  uint8_t latency;                 // cycles until the destination may be read
  uint64_t switchFields;           // allowed switch fields (bit i = SwitchField i)
  uint32_t flags;                  // InsnFlag

  bool hasDType() const { return types != 0; }
  bool allowsType(DType t) const { return (types >> static_cast<unsigned>(t)) & 1u; }
  bool allowsField(SwitchField f) const { return (switchFields >> static_cast<unsigned>(f)) & 1u; }
  uint32_t allowedSwitchBits() const;
  int numSources() const;
  bool hasDst() const { return kinds[0] != 0; }
};

const InsnInfo& insnInfo(InsnId id);
std::span<const InsnInfo> allInsns();
std::span<const InsnInfo> slotInsns(Slot s);  // indexed by opcode
const InsnInfo* findInsn(Slot s, std::string_view mnemonic);
// Whether the instruction reads or writes the elements of the tensor its tnsr field names (ld_tnsr,
// st_tnsr and their partial forms; not gen_addr or ld_tdesc, which only read the descriptor).
bool accessesTensorData(InsnId id);
// Whether the instruction reads or changes the core's configuration state rather than registers or memory:
// a stochastic-rounding convert draws from the core's random stream, a convert with rm=csr reads
// CONV_ROUND_CSR, ld_l/st_l with mmio read and write the MMIO registers, aso counts SEMAPHORE, set_lut sets
// the LUT pointer that lookup with ptr reads. Schedulers
// keep these in program order (and a write a bundle before the next access), so every execution path sees
// the same state.
bool touchesCoreState(InsnId id, uint32_t sw);

// Architectures.
enum class Arch : uint8_t {
#define ARCH(Id, ...) Id,
#include "../../../isa/arch.def"
#undef ARCH
  Count
};
struct ArchInfo {
  Arch id;
  std::string_view name;
  int cores;
  uint32_t scalarLocalBytes, vectorLocalBytes;
  uint32_t types;  // element types with arithmetic support
  int branchPenalty;
  uint32_t convRoundCsr;  // MMIO offset of CONV_ROUND_CSR; 0: not modelled
  uint32_t semaphore;     // MMIO offset of SEMAPHORE (aso); 0: not modelled
};
const ArchInfo& archInfo(Arch a);
const ArchInfo* findArch(std::string_view name);
std::span<const ArchInfo> allArchs();

}  // namespace tpc::isa
