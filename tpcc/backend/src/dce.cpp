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
  const size_t nb = mf.blocks.size();
  std::map<uint64_t, size_t> index;  // virtual register -> bit
  auto bit = [&](const Reg& r) -> std::optional<size_t> {
    if (!r.valid() || r.physical) return std::nullopt;
    auto [it, fresh] = index.try_emplace(key(r), index.size());
    return it->second;
  };
  for (const MBlock& b : mf.blocks)
    for (const MInst& mi : b.insts) {
      bit(mi.dst);
      forEachRegisterRead(mi, [&](const Reg& r) { bit(r); });
    }
  const size_t n = index.size();
  using Set = std::vector<bool>;
  auto successors = [&](size_t b) {
    std::vector<size_t> s;
    const MBlock& blk = mf.blocks[b];
    auto add = [&](int t) {
      if (t >= 0 && static_cast<size_t>(t) < nb) s.push_back(static_cast<size_t>(t));
    };
    add(blk.condTarget);
    add(blk.next);
    if (blk.loopBody >= 0) {
      add(blk.loopBody);
      add(mf.blocks[static_cast<size_t>(blk.loopBody)].next);
    }
    if (blk.bodyIter.valid()) add(static_cast<int>(b));
    return s;
  };
  // What a block's end reads: its condition, and a preheader's loop count and start.
  auto endReads = [&](const MBlock& blk, Set& live) {
    for (const Reg* r : {&blk.condPred, &blk.loopCount, &blk.loopZero})
      if (auto k = bit(*r); k && *k < n) live[*k] = true;
  };
  auto step = [&](const MInst& mi, Set& live) {  // live after mi -> live before it
    if (auto d = bit(mi.dst); d && !mi.pred.valid() && !mi.dstIsRead) live[*d] = false;
    forEachRegisterRead(mi, [&](const Reg& r) {
      if (auto k = bit(r)) live[*k] = true;
    });
  };
  std::vector<Set> liveIn(nb, Set(n, false));
  auto liveOut = [&](size_t b) {
    Set out(n, false);
    for (size_t s : successors(b))
      for (size_t k = 0; k < n; ++k)
        if (liveIn[s][k]) out[k] = true;
    endReads(mf.blocks[b], out);
    return out;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      if (mf.blocks[b].dead) continue;
      Set live = liveOut(b);
      for (size_t i = mf.blocks[b].insts.size(); i-- > 0;) step(mf.blocks[b].insts[i], live);
      if (live != liveIn[b]) {
        liveIn[b] = std::move(live);
        changed = true;
      }
    }
  }
  for (size_t b = 0; b < nb; ++b) {
    MBlock& blk = mf.blocks[b];
    if (blk.dead) continue;
    Set live = liveOut(b);
    std::vector<bool> drop(blk.insts.size(), false);
    for (size_t i = blk.insts.size(); i-- > 0;) {
      const MInst& mi = blk.insts[i];
      if (auto d = bit(mi.dst); d && !hasEffect(mi) && !live[*d]) {
        drop[i] = true;
        continue;
      }
      step(mi, live);
    }
    std::vector<MInst> kept;
    kept.reserve(blk.insts.size());
    for (size_t i = 0; i < blk.insts.size(); ++i)
      if (!drop[i]) kept.push_back(std::move(blk.insts[i]));
    blk.insts = std::move(kept);
  }
}

}  // namespace tpc::cc
