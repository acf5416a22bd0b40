// Dead code elimination on machine IR: instruction selection emits a value's code where the IR defines it,
// and later selections (coordinate constants, folded splats) can leave it unread.
#include <set>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

uint64_t key(const Reg& r) { return (static_cast<uint64_t>(r.file) << 32) | r.id; }

bool hasEffect(const MInst& mi) {
  const isa::InsnInfo& info = isa::insnInfo(mi.op);
  return info.slot == isa::Slot::Store || (info.flags & (isa::F_BRANCH | isa::F_LOOP | isa::F_HALT)) ||
         !mi.dst.valid() || mi.dst.physical;
}

}  // namespace

void eliminateDeadCode(MFunction& mf) {
  for (bool changed = true; changed;) {
    changed = false;
    std::set<uint64_t> read;
    auto use = [&](const Reg& r) {
      if (r.valid()) read.insert(key(r));
    };
    for (const MBlock& b : mf.blocks) {
      for (const MInst& mi : b.insts) {
        for (const MOperand& o : mi.src)
          if (o.isReg()) use(o.reg);
        use(mi.pred);
        if (mi.dstIsRead) use(mi.dst);
      }
      use(b.condPred);
      use(b.loopCount);
      use(b.loopZero);
      use(b.bodyIter);
    }
    for (MBlock& b : mf.blocks) {
      std::vector<MInst> kept;
      kept.reserve(b.insts.size());
      for (MInst& mi : b.insts) {
        if (!hasEffect(mi) && !read.count(key(mi.dst))) {
          changed = true;
          continue;
        }
        kept.push_back(mi);
      }
      b.insts = std::move(kept);
    }
  }
}

}  // namespace tpc::cc
