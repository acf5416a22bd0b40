// Dead code elimination on machine IR: instruction selection emits a value's code where the IR defines it,
// and later selections (coordinate constants, folded splats) can leave it unread.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

uint64_t key(const Reg& r) { return (static_cast<uint64_t>(r.file) << 32) | r.id; }

bool hasEffect(const MInst& mi) {
  const isa::InsnInfo& info = isa::insnInfo(mi.op);
  return info.slot == isa::Slot::Store || (info.flags & (isa::F_BRANCH | isa::F_LOOP | isa::F_HALT)) ||
         !mi.dst.valid() || mi.dst.physical;
}

// Liveness of virtual registers over the control flow graph, backwards to a fixed point.
class VirtualLiveness {
 public:
  using Set = std::vector<bool>;

  explicit VirtualLiveness(const MFunction& mf) : mf_(mf) {
    for (const MBlock& b : mf.blocks)
      for (const MInst& mi : b.insts) {
        add(mi.dst);
        forEachRegisterRead(mi, [&](const Reg& r) { add(r); });
      }
    for (const MBlock& b : mf.blocks)
      for (const Reg* r : {&b.condPred, &b.loopCount, &b.loopZero}) add(*r);
    const size_t nb = mf.blocks.size();
    liveIn_.assign(nb, Set(index_.size(), false));
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t b = nb; b-- > 0;) {
        if (mf.blocks[b].dead) continue;
        Set live = liveOut(b);
        for (size_t i = mf.blocks[b].insts.size(); i-- > 0;) step(mf.blocks[b].insts[i], live);
        if (live != liveIn_[b]) {
          liveIn_[b] = std::move(live);
          changed = true;
        }
      }
    }
  }

  // The register's bit in a Set: none for physical registers and those the function never mentions.
  std::optional<size_t> bit(const Reg& r) const {
    if (!r.valid() || r.physical) return std::nullopt;
    auto it = index_.find(key(r));
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }

  std::vector<size_t> successors(size_t b) const {
    std::vector<size_t> s;
    const MBlock& blk = mf_.blocks[b];
    auto add = [&](int t) {
      if (t >= 0 && static_cast<size_t>(t) < mf_.blocks.size()) s.push_back(static_cast<size_t>(t));
    };
    add(blk.condTarget);
    add(blk.next);
    if (blk.loopBody >= 0) {
      add(blk.loopBody);
      add(mf_.blocks[static_cast<size_t>(blk.loopBody)].next);
    }
    if (blk.bodyIter.valid()) add(static_cast<int>(b));
    return s;
  }

  // Live at the block's end: what its successors need, and what the end itself reads (its condition, a
  // preheader's loop count and start).
  Set liveOut(size_t b) const {
    Set out(index_.size(), false);
    for (size_t s : successors(b))
      for (size_t k = 0; k < out.size(); ++k)
        if (liveIn_[s][k]) out[k] = true;
    const MBlock& blk = mf_.blocks[b];
    for (const Reg* r : {&blk.condPred, &blk.loopCount, &blk.loopZero})
      if (auto k = bit(*r)) out[*k] = true;
    return out;
  }

  // Live after mi -> live before it.
  void step(const MInst& mi, Set& live) const {
    if (auto d = bit(mi.dst); d && !mi.pred.valid() && !mi.dstIsRead) live[*d] = false;
    forEachRegisterRead(mi, [&](const Reg& r) {
      if (auto k = bit(r)) live[*k] = true;
    });
  }

 private:
  void add(const Reg& r) {
    if (r.valid() && !r.physical) index_.try_emplace(key(r), index_.size());
  }

  const MFunction& mf_;
  std::map<uint64_t, size_t> index_;  // virtual register -> bit
  std::vector<Set> liveIn_;
};

}  // namespace

// `t = copy x; ...; y = copy t` (the two halves of a parallel copy, as PHIs are lowered) becomes
// `y = copy x` when t has no other reader and x is not written in between; the first copy is then dead.
// One register fewer per loop-carried value for the allocator to coalesce.
void forwardCopies(MFunction& mf) {
  std::map<uint64_t, int> reads, writes;
  for (const MBlock& b : mf.blocks)
    for (const MInst& mi : b.insts) {
      for (const MOperand& o : mi.src)
        if (o.isReg()) ++reads[key(o.reg)];
      if (mi.pred.valid()) ++reads[key(mi.pred)];
      if (mi.dstIsRead && mi.dst.valid()) ++reads[key(mi.dst)];
      if (mi.dst.valid()) ++writes[key(mi.dst)];
    }
  for (const MBlock& b : mf.blocks) {
    for (const Reg* r : {&b.condPred, &b.loopCount, &b.loopZero, &b.bodyIter, &b.loopIter})
      if (r->valid()) ++reads[key(*r)];
  }
  auto plainCopy = [](const MInst& mi) {
    return mi.copy && !mi.pred.valid() && !mi.dstIsRead && mi.src[0].isReg() && !mi.dst.physical && !mi.src[0].reg.physical;
  };
  for (MBlock& b : mf.blocks) {
    std::map<uint64_t, size_t> copyOf;  // t -> index of `t = copy x` still valid here
    for (size_t i = 0; i < b.insts.size(); ++i) {
      MInst& mi = b.insts[i];
      if (plainCopy(mi)) {
        auto it = copyOf.find(key(mi.src[0].reg));
        if (it != copyOf.end() && reads[key(mi.src[0].reg)] == 1 && writes[key(mi.src[0].reg)] == 1 &&
            b.insts[it->second].op == mi.op) {
          mi.src[0] = b.insts[it->second].src[0];
          --reads[key(b.insts[it->second].dst)];
          ++reads[key(mi.src[0].reg)];
        }
      }
      // A write ends what copies of the written register stand for.
      if (mi.dst.valid()) {
        for (auto it = copyOf.begin(); it != copyOf.end();)
          it = b.insts[it->second].src[0].reg == mi.dst ? copyOf.erase(it) : std::next(it);
        copyOf.erase(key(mi.dst));
      }
      if (plainCopy(mi)) copyOf[key(mi.dst)] = i;
    }
  }
}

// A copy `t = copy x` whose every read comes before t is written again, in its own block or in the
// blocks it alone leads to (one successor, which has no other predecessor), reads x there instead: the
// copy is then dead (eliminateDeadWrites). Only where x is live after t's new write anyway, so that no
// live range grows (t and x could not have shared a register): modulo scheduling leaves such copies before
// a prologue, a loop-carried counter's start copied from a value the loop still reads, then decremented.
// A copy whose source dies there is left to the allocator, which gives both one register.
void forwardCopiesIntoSinglePaths(MFunction& mf) {
  const VirtualLiveness liveness(mf);
  const size_t nb = mf.blocks.size();
  std::vector<int> predecessors(nb, 0);
  for (size_t b = 0; b < nb; ++b)
    if (!mf.blocks[b].dead)
      for (size_t s : liveness.successors(b)) ++predecessors[s];
  auto endReads = [](const MBlock& blk, const Reg& r) {
    return blk.condPred == r || blk.loopCount == r || blk.loopZero == r;
  };
  // Whether x is live right after instruction i of block b.
  auto liveAfter = [&](const Reg& x, size_t b, size_t i) {
    std::optional<size_t> k = liveness.bit(x);
    if (!k) return false;
    VirtualLiveness::Set live = liveness.liveOut(b);
    const std::vector<MInst>& insts = mf.blocks[b].insts;
    for (size_t j = insts.size(); j-- > i + 1;) liveness.step(insts[j], live);
    return static_cast<bool>(live[*k]);
  };
  for (size_t b = 0; b < nb; ++b) {
    if (mf.blocks[b].dead) continue;
    for (size_t c = 0; c < mf.blocks[b].insts.size(); ++c) {
      const MInst& copy = mf.blocks[b].insts[c];
      if (!copy.copy || copy.pred.valid() || copy.dstIsRead || !copy.src[0].isReg() || copy.dst.physical ||
          copy.src[0].reg.physical)
        continue;
      const Reg t = copy.dst, x = copy.src[0].reg;
      std::vector<MOperand*> reads;
      bool killed = false, blocked = false;
      size_t blk = b, i = c + 1;
      while (!killed && !blocked) {
        MBlock& block = mf.blocks[blk];
        for (; i < block.insts.size(); ++i) {
          MInst& mi = block.insts[i];
          if ((mi.pred.valid() && mi.pred == t) || (mi.dstIsRead && mi.dst == t) || mi.dst == x) {
            blocked = true;  // t read other than as an operand, or x changing while t may still be read
            break;
          }
          for (MOperand& o : mi.src)
            if (o.isReg() && o.reg == t) reads.push_back(&o);
          if (mi.dst == t && !mi.pred.valid()) {
            killed = true;
            break;
          }
        }
        if (killed || blocked) break;
        // The end of the block: on into its only successor, if that has no other way in.
        const std::vector<size_t> next = liveness.successors(blk);
        if (endReads(block, t) || next.size() != 1 || predecessors[next[0]] != 1 || mf.blocks[next[0]].dead) {
          blocked = true;
          break;
        }
        blk = next[0];
        i = 0;
      }
      if (!killed || reads.empty() || !liveAfter(x, blk, i)) continue;
      for (MOperand* o : reads) o->reg = x;
    }
  }
}

// Marks from the roots (effects, branch and loop operands) backwards: a register is needed when a needed
// instruction reads it, and every instruction writing a needed register is needed. Values that only feed
// themselves around a loop (counters the hardware loop made redundant) are never marked.
void eliminateDeadCode(MFunction& mf) {
  std::set<uint64_t> needed;
  std::vector<uint64_t> work;
  auto need = [&](const Reg& r) {
    if (r.valid() && needed.insert(key(r)).second) work.push_back(key(r));
  };
  auto needReads = [&](const MInst& mi) {
    for (const MOperand& o : mi.src)
      if (o.isReg()) need(o.reg);
    need(mi.pred);
    if (mi.dstIsRead) need(mi.dst);
  };
  std::map<uint64_t, std::vector<const MInst*>> writers;
  for (const MBlock& b : mf.blocks) {
    for (const MInst& mi : b.insts) {
      if (hasEffect(mi))
        needReads(mi);
      else
        writers[key(mi.dst)].push_back(&mi);
    }
    need(b.condPred);
    need(b.loopCount);
    need(b.loopZero);
    need(b.bodyIter);
  }
  while (!work.empty()) {
    uint64_t k = work.back();
    work.pop_back();
    if (auto it = writers.find(k); it != writers.end())
      for (const MInst* mi : it->second) needReads(*mi);
  }
  for (MBlock& b : mf.blocks)
    b.insts.erase(std::remove_if(b.insts.begin(), b.insts.end(),
                                 [&](const MInst& mi) { return !hasEffect(mi) && !needed.count(key(mi.dst)); }),
                  b.insts.end());
}

// Liveness over the control flow graph, backwards to a fixed point, then one backward walk per block that
// drops each write (of a virtual register, with no other effect) whose register is not live after it.
// A predicated or partial write keeps the register's old value alive; the iterators of hardware loops,
// which the `loop` instruction updates, are never dropped (no instruction here writes them).
void eliminateDeadWrites(MFunction& mf) {
  const VirtualLiveness liveness(mf);
  for (size_t b = 0; b < mf.blocks.size(); ++b) {
    MBlock& blk = mf.blocks[b];
    if (blk.dead) continue;
    VirtualLiveness::Set live = liveness.liveOut(b);
    std::vector<bool> drop(blk.insts.size(), false);
    for (size_t i = blk.insts.size(); i-- > 0;) {
      const MInst& mi = blk.insts[i];
      if (auto d = liveness.bit(mi.dst); d && !hasEffect(mi) && !live[*d]) {
        drop[i] = true;
        continue;
      }
      liveness.step(mi, live);
    }
    std::vector<MInst> kept;
    kept.reserve(blk.insts.size());
    for (size_t i = 0; i < blk.insts.size(); ++i)
      if (!drop[i]) kept.push_back(std::move(blk.insts[i]));
    blk.insts = std::move(kept);
  }
}

}  // namespace tpc::cc
