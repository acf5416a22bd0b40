// Control transfers of the SPU slot: they only record a request; the core applies it after the bundle.
#include "exec_common.h"

namespace tpc::sim::exec {

namespace {

void jmpr(Core& c, const DecodedSlot& d) {
  c.control = Core::Control::Jump;
  c.controlTarget = d.imm / static_cast<uint32_t>(isa::kBundleBytes);
}

bool loopContinues(isa::LoopCmp cmp, int32_t it, int32_t end) {
  switch (cmp) {
    case isa::LoopCmp::Lt: return it < end;
    case isa::LoopCmp::Le: return it <= end;
    case isa::LoopCmp::Gt: return it > end;
    case isa::LoopCmp::Ge: return it >= end;
    case isa::LoopCmp::Ne: return it != end;
  }
  return false;
}

// loop s_iter, start, end, step cmp=.. end=ADDR: runs the body (the next bundle to ADDR inclusive) while
// "iterator cmp end"; start, end and step are read once, when the loop starts.
void loop(Core& c, const DecodedSlot& d) {
  int32_t start = static_cast<int32_t>(rawScalarSrc(c, d, 0));
  LoopFrame f;
  f.end = static_cast<int32_t>(rawScalarSrc(c, d, 1));
  f.step = static_cast<int32_t>(rawScalarSrc(c, d, 2));
  f.cmp = static_cast<isa::LoopCmp>(d.field(SwitchField::LoopCmp));
  f.iterReg = d.dst;
  f.endPc = d.field(SwitchField::LoopEnd) / static_cast<uint32_t>(isa::kBundleBytes);
  c.r.s[d.dst] = static_cast<uint32_t>(start);
  if (loopContinues(f.cmp, start, f.end)) {
    c.control = Core::Control::LoopStart;
    c.pendingLoop = f;
  } else {
    c.control = Core::Control::LoopSkip;
    c.controlTarget = f.endPc + 1;
  }
}

void halt(Core& c, const DecodedSlot&) { c.control = Core::Control::Halt; }

}  // namespace

bool loopIterationContinues(const LoopFrame& f, int32_t iterator) { return loopContinues(f.cmp, iterator, f.end); }

ExecFn controlExec(const isa::SlotInsn& insn) {
  switch (insn.id) {
    case isa::InsnId::SpuJmpr: return &jmpr;
    case isa::InsnId::SpuLoop: return &loop;
    case isa::InsnId::SpuHalt: return &halt;
    default: return nullptr;
  }
}

}  // namespace tpc::sim::exec
