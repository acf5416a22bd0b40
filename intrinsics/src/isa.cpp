#include "tpc/isa/isa.h"

#include "../isa/operand_kinds.h"

namespace tpc::isa {

namespace {

#define SWF(Id) (uint64_t{1} << static_cast<unsigned>(SwitchField::Id))
static_assert(tpc::isa::kNumSwitchFields <= 64, "InsnInfo::switchFields holds one bit per switch field");

constexpr SwitchFieldInfo kSwitchFields[] = {
#define SWITCH_FIELD(Id, name, shift, width) {name, shift, width},
#include "../isa/switch_fields.def"
#undef SWITCH_FIELD
};

// Builds one slot's table; the opcode is the row's position.
#define INSN(Id, mn, d, s0, s1, s2, s3, types, lat, sw, flags) \
  {InsnId::Id, mn, SLOT, 0, {d, s0, s1, s2, s3}, types, lat, sw, flags},

#define SLOT Slot::Load
InsnInfo kLoad[] = {
#include "../isa/load.def"
};
#undef SLOT
#define SLOT Slot::Spu
InsnInfo kSpu[] = {
#include "../isa/spu.def"
};
#undef SLOT
#define SLOT Slot::Vpu
InsnInfo kVpu[] = {
#include "../isa/vpu.def"
};
#undef SLOT
#define SLOT Slot::Store
InsnInfo kStore[] = {
#include "../isa/store.def"
};
#undef SLOT
#undef INSN

constexpr size_t kCounts[] = {std::size(kLoad), std::size(kSpu), std::size(kVpu), std::size(kStore)};
static_assert(kCounts[0] + kCounts[1] + kCounts[2] + kCounts[3] == static_cast<size_t>(InsnId::Count));
static_assert(kCounts[0] <= 256 && kCounts[1] <= 256 && kCounts[2] <= 256 && kCounts[3] <= 256,
              "the opcode field has 8 bits");

// All rows in InsnId order, with opcodes filled in.
struct Tables {
  std::array<InsnInfo, kNumInsns> all;
  std::array<std::span<const InsnInfo>, kNumSlots> bySlot;
  Tables() {
    size_t n = 0;
    InsnInfo* tables[] = {kLoad, kSpu, kVpu, kStore};
    for (int s = 0; s < kNumSlots; ++s) {
      size_t first = n;
      for (size_t i = 0; i < kCounts[s]; ++i) {
        all[n] = tables[s][i];
        all[n].opcode = static_cast<uint8_t>(i);
        ++n;
      }
      bySlot[s] = std::span<const InsnInfo>(all.data() + first, kCounts[s]);
    }
  }
};
const Tables& tables() {
  static const Tables t;
  return t;
}

constexpr ArchInfo kArchs[] = {
#define ARCH(Id, name, cores, slm, vlm, types, penalty, csr, sem) {Arch::Id, name, cores, slm, vlm, types, penalty, csr, sem},
#include "../isa/arch.def"
#undef ARCH
};

}  // namespace

std::string_view slotName(Slot s) {
  static constexpr std::string_view kNames[] = {"load", "spu", "vpu", "store"};
  return kNames[static_cast<int>(s)];
}

int regFileSize(RegFile f) {
  switch (f) {
    case RegFile::V: return kNumVRegs;
    case RegFile::S: return kNumSRegs;
    case RegFile::I: return kNumIRegs;
    case RegFile::SP: return kNumSPRegs;
    case RegFile::VP: return kNumVPRegs;
    case RegFile::AD: return kNumADRegs;
    default: return 0;
  }
}

std::string_view regFilePrefix(RegFile f) {
  switch (f) {
    case RegFile::V: return "v";
    case RegFile::S: return "s";
    case RegFile::I: return "i";
    case RegFile::SP: return "sp";
    case RegFile::VP: return "vp";
    case RegFile::AD: return "ad";
    default: return "";
  }
}

const SwitchFieldInfo& switchField(SwitchField f) { return kSwitchFields[static_cast<int>(f)]; }

std::string_view roundingModeName(RoundingMode m) {
  static constexpr std::string_view kNames[] = {"rhne", "rz", "ru", "rd", "rhaz", "sr", "csr"};
  auto i = static_cast<size_t>(m);
  return i < std::size(kNames) ? kNames[i] : "?";
}

uint32_t InsnInfo::allowedSwitchBits() const {
  uint32_t bits = 0;
  for (int f = 0; f < kNumSwitchFields; ++f)
    if (allowsField(static_cast<SwitchField>(f))) bits |= kSwitchFields[f].mask();
  return bits;
}

int InsnInfo::numSources() const {
  int n = 0;
  for (int i = 1; i < 5; ++i)
    if (kinds[i]) n = i;
  return n;
}

const InsnInfo& insnInfo(InsnId id) { return tables().all[static_cast<size_t>(id)]; }
std::span<const InsnInfo> allInsns() { return tables().all; }
std::span<const InsnInfo> slotInsns(Slot s) { return tables().bySlot[static_cast<int>(s)]; }

bool accessesTensorData(InsnId id) {
  switch (id) {
    case InsnId::LdTnsr: case InsnId::LdTnsrPartial: case InsnId::LdTnsrPartialR:
    case InsnId::StTnsr: case InsnId::StTnsrPartial: case InsnId::StTnsrPartialR: return true;
    default: return false;
  }
}

bool touchesCoreState(InsnId id, uint32_t sw) {
  switch (id) {
    case InsnId::VpuConvert: case InsnId::SpuConvert: case InsnId::VpuConvertInt: case InsnId::SpuConvertInt: {
      auto rm = static_cast<RoundingMode>(switchField(SwitchField::Rm).get(sw));
      return rm == RoundingMode::SR || rm == RoundingMode::CSR;
    }
    case InsnId::LdL: case InsnId::StL: return switchField(SwitchField::Mmio).get(sw) != 0;
    case InsnId::StAso: case InsnId::LdSetLut: return true;
    case InsnId::LdLookup: return switchField(SwitchField::LutPtr).get(sw) != 0;
    default: return false;
  }
}

bool isBuiltinLutTable(uint32_t fid) {
  switch (static_cast<LutTable>(fid)) {
    case LutTable::Fp32Tanh: case LutTable::Fp32Rsqrt: case LutTable::Fp32Log2: case LutTable::Fp32Sqrt:
    case LutTable::Fp32Rcp: case LutTable::Fp32SinCos: case LutTable::Fp32Pow2: return fid <= 0xffffu;
  }
  return false;
}

RoundingMode roundingModeFromVendor(uint32_t code) {
  static constexpr RoundingMode kModes[] = {RoundingMode::RHNE, RoundingMode::RZ,  RoundingMode::RU,
                                            RoundingMode::RD,   RoundingMode::SR,  RoundingMode::CSR,
                                            RoundingMode::RHAZ, RoundingMode::SR};
  return kModes[code & 7u];
}

const InsnInfo* findInsn(Slot s, std::string_view mnemonic) {
  for (const InsnInfo& i : slotInsns(s))
    if (i.mnemonic == mnemonic) return &i;
  return nullptr;
}

const ArchInfo& archInfo(Arch a) { return kArchs[static_cast<int>(a)]; }
std::span<const ArchInfo> allArchs() { return kArchs; }
const ArchInfo* findArch(std::string_view name) {
  for (const ArchInfo& a : kArchs)
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace tpc::isa
