// Lowering of calls of TPC intrinsics to machine instructions, by the intrinsic table's Lowering kind.
#include <fmt/format.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>

#include "selection_context.h"

namespace tpc::cc {

namespace {

using isa::InsnId;
using llvm::dyn_cast;

// Maps the vendor's switch word of an intrinsic call onto our switch fields; bits we do not implement are
// an error rather than silently ignored.
uint32_t translateSwitches(const isa::InsnInfo& info, uint32_t vendor, const std::string& name, SourceLoc loc) {
  uint32_t sw = 0, used = 0;
  auto set = [&](isa::SwitchField f, uint32_t v) {
    sw = isa::switchField(f).set(sw, v);
  };
  if (info.allowsField(isa::SwitchField::Sat) && (vendor & 1u)) {
    set(isa::SwitchField::Sat, 1);
    used |= 1u;
  }
  if (info.allowsField(isa::SwitchField::Rm)) {
    static constexpr uint32_t kRound[] = {0, 1, 2, 3, 5, 0, 4, 5};  // RHNE RZ RU RD SR CSR RHAZ SR_RNE
    set(isa::SwitchField::Rm, kRound[(vendor >> 16) & 7u]);
    used |= 7u << 16;
  }
  if (vendor & ~used)
    throw CodegenError(fmt::format("{}: switch bits 0x{:x} are not supported", name, vendor & ~used), loc);
  return sw;
}


uint32_t constantArgument(llvm::CallInst& call, const isa::IntrinsicInfo& info, const char* param, SourceLoc loc) {
  int k = info.paramIndex(param);
  if (k < 0) return 0;
  auto* c = dyn_cast<llvm::ConstantInt>(call.getArgOperand(static_cast<unsigned>(k)));
  if (!c) throw CodegenError(fmt::format("{}: argument '{}' must be a compile-time constant", info.name, param), loc);
  return static_cast<uint32_t>(c->getZExtValue());
}

}  // namespace

void lowerIntrinsicCall(SelectionContext& cx, llvm::CallInst& call, const isa::IntrinsicInfo& info) {
  auto arg = [&](const char* name) -> llvm::Value* {
    int k = info.paramIndex(name);
    return k < 0 ? nullptr : call.getArgOperand(static_cast<unsigned>(k));
  };
  switch (info.lowering) {
    case isa::Lowering::IndexSpaceOffset:
    case isa::Lowering::IndexSpaceSize: {
      MInst m = makeInst(InsnId::SpuIMov, DType::I32, cx.valueReg(&call));
      uint32_t phys = info.lowering == isa::Lowering::IndexSpaceOffset ? isa::kIndexSpaceOffsetReg
                                                                       : isa::kIndexSpaceSizeReg;
      m.src[0] = MOperand::ofReg(Reg{RegFile::I, phys, true});
      m.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
      cx.emitInst(m);
      return;
    }
    default: break;
  }
  const isa::InsnInfo& insn = isa::insnInfo(info.insn);
  MInst m = makeInst(info.insn, info.dtype, Reg{});
  m.sw = translateSwitches(insn, constantArgument(call, info, "switches", cx.currentLoc()), info.name, cx.currentLoc());
  if (insn.allowsField(isa::SwitchField::Dt2))
    m.sw = isa::switchField(isa::SwitchField::Dt2).set(m.sw, static_cast<uint32_t>(info.dt2));

  // Predicate: a constant true runs always; a constant false returns the income.
  llvm::Value* predicate = arg("predicate");
  bool negate = constantArgument(call, info, "polarity", cx.currentLoc()) != 0;
  bool always = true;
  if (predicate) {
    if (auto* c = dyn_cast<llvm::ConstantInt>(predicate)) {
      if (c->isZero() != negate) {  // never runs
        if (llvm::Value* income = arg("income")) cx.copyIrValue(&call, income);
        else if (llvm::Value* acc = arg("accumulator")) cx.copyIrValue(&call, acc);
        return;
      }
    } else if (auto* cv = dyn_cast<llvm::Constant>(predicate); cv && (cv->isAllOnesValue() != negate) &&
                                                               (cv->isAllOnesValue() || cv->isNullValue())) {
      always = true;  // an all-true vector predicate
    } else {
      always = false;
      m.pred = cx.valueReg(predicate);
      m.predNegate = negate;
    }
  }

  int srcIndex = 0;
  switch (info.lowering) {
    case isa::Lowering::LdTnsr:
      cx.noteCoordinates(arg("ndx"), &m);
      m.src[srcIndex++] = MOperand::ofReg(cx.valueReg(arg("ndx")));
      m.sw = isa::switchField(isa::SwitchField::Tensor).set(m.sw, static_cast<uint32_t>(cx.tensorNumber(arg("tensor"), info.name)));
      break;
    case isa::Lowering::StTnsr:
      cx.noteCoordinates(arg("ndx"), &m);
      m.src[srcIndex++] = MOperand::ofReg(cx.valueReg(arg("ndx")));
      m.src[srcIndex++] = MOperand::ofReg(cx.vectorReg(arg("value")));
      m.sw = isa::switchField(isa::SwitchField::Tensor).set(m.sw, static_cast<uint32_t>(cx.tensorNumber(arg("tensor"), info.name)));
      break;
    default:
      for (const char* name : {"a", "b", "c", "d"}) {
        llvm::Value* v = arg(name);
        if (!v) break;
        uint32_t kinds = insn.kinds[static_cast<size_t>(srcIndex + 1)];
        bool first = srcIndex == 0 && !(kinds & isa::kindBit(RegFile::S));
        m.src[srcIndex] = first ? MOperand::ofReg(cx.vectorReg(v)) : cx.valueOperand(v, kinds);
        ++srcIndex;
      }
      break;
  }

  if (insn.hasDst()) {
    Reg dst = cx.valueReg(&call);
    m.dst = dst;
    llvm::Value* tied = info.lowering == isa::Lowering::Mac ? arg("accumulator") : (always ? nullptr : arg("income"));
    if (tied) {
      cx.emitRegCopy(dst, cx.valueReg(tied));
      m.dstIsRead = true;
    } else if (insn.flags & isa::F_READS_DST) {
      m.dstIsRead = true;  // e.g. a partial write with nothing to keep: the old value is undefined
    }
  }
  cx.emitInst(m);
}


}  // namespace tpc::cc
