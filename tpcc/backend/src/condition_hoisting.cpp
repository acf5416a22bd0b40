// Branch conditions computed a block early (machine IR, before register allocation). A block that only a
// conditional branch reaches often starts by computing its own branch's condition from values known long
// before (`rows == 3` after `rows <= 3`): there it waits a compare's latency before it can branch, and its
// compare cannot share the bundles of the block before. The compare, and the scalar arithmetic it needs
// from its own block, move to the end of the branching block where that block's scalar slot has room
// before its own branch: they run on both of its paths (scalar register arithmetic, which has no effect
// beyond its result), and the list scheduler places them in that block's free slots. Only values with a single definition move, so that nothing else reads the register
// on the other path; intermediate blocks that only fall into the branch's block (straight-line code the
// later merging joins) are crossed when they do not write what the moved instructions read.
#include <algorithm>
#include <map>
#include <vector>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

using isa::InsnId;

// Scalar register arithmetic without side effects or faults (no division, no memory, no core state).
bool isPureScalar(const MInst& mi) {
  switch (mi.op) {
    case InsnId::SpuAdd: case InsnId::SpuSub: case InsnId::SpuMax: case InsnId::SpuMin: case InsnId::SpuAnd:
    case InsnId::SpuOr: case InsnId::SpuXor: case InsnId::SpuShl: case InsnId::SpuShr: case InsnId::SpuNot:
    case InsnId::SpuCmpEq: case InsnId::SpuCmpNeq: case InsnId::SpuCmpLess: case InsnId::SpuCmpLeq:
    case InsnId::SpuCmpGrt: case InsnId::SpuCmpGeq: case InsnId::SpuMov: case InsnId::SpuMovIrfDim:
      return !mi.pred.valid() && !mi.dstIsRead && mi.dst.valid() && !mi.dst.physical &&
             (mi.dst.file == RegFile::S || mi.dst.file == RegFile::SP);
    default:
      return false;
  }
}

uint32_t key(const Reg& r) { return (static_cast<uint32_t>(r.file) << 24) | r.id; }

// Whether `extra` more scalar-slot instructions fit in block b without delaying its branch: the slot's
// instructions (the branch among them) against the cycle the branch's condition lands, each instruction
// issued when what it reads has landed. A block whose scalar slot is already its bound (an entry's set-up)
// would only grow on both of its paths.
bool scalarSlack(const MBlock& b, size_t extra) {
  std::map<uint32_t, int> landed;
  size_t scalar = 1;  // the branch
  for (const MInst& mi : b.insts) {
    int issue = 0;
    forEachRegisterRead(mi, [&](const Reg& r) {
      if (auto it = landed.find(key(r)); it != landed.end()) issue = std::max(issue, it->second);
    });
    if (mi.dst.valid()) landed[key(mi.dst)] = issue + isa::insnInfo(mi.op).latency;
    if (isa::insnInfo(mi.op).slot == isa::Slot::Spu && !mi.copy) ++scalar;
  }
  const auto cond = landed.find(key(b.condPred));
  const int branch = cond == landed.end() ? 0 : cond->second;
  return static_cast<int>(scalar + extra) <= branch + 1;
}

bool writes(const MBlock& b, const Reg& r) {
  return std::any_of(b.insts.begin(), b.insts.end(), [&](const MInst& mi) { return mi.dst == r; });
}

}  // namespace

int hoistBranchConditions(MFunction& mf) {
  const int n = static_cast<int>(mf.blocks.size());
  // Predecessors, and how often each virtual register is written.
  std::vector<std::vector<int>> preds(static_cast<size_t>(n));
  std::map<uint32_t, int> definitions;
  for (int b = 0; b < n; ++b) {
    const MBlock& blk = mf.blocks[static_cast<size_t>(b)];
    if (blk.dead) continue;
    auto edge = [&](int to) {
      if (to >= 0 && to < n) preds[static_cast<size_t>(to)].push_back(b);
    };
    edge(blk.condTarget);
    edge(blk.next);
    if (blk.loopBody >= 0) {
      edge(blk.loopBody);
      edge(mf.blocks[static_cast<size_t>(blk.loopBody)].next);
    }
    for (const MInst& mi : blk.insts)
      if (mi.dst.valid() && !mi.dst.physical) ++definitions[key(mi.dst)];
  }
  auto plainBlock = [&](const MBlock& b) { return !b.dead && b.loopBody < 0 && !b.bodyIter.valid() && b.moduloLoop < 0; };
  int moved = 0;
  for (int b = 0; b < n; ++b) {
    MBlock& blk = mf.blocks[static_cast<size_t>(b)];
    if (!plainBlock(blk) || !blk.condPred.valid() || blk.condPred.physical) continue;
    // Up through blocks that only fall into this one, to the block whose conditional branch leads here.
    std::vector<int> between;
    int at = b, from = -1;
    while (preds[static_cast<size_t>(at)].size() == 1) {
      const int p = preds[static_cast<size_t>(at)][0];
      const MBlock& pb = mf.blocks[static_cast<size_t>(p)];
      if (!plainBlock(pb) || p == b) break;
      if (pb.condTarget >= 0) {
        if (pb.condTarget != pb.next) from = p;
        break;
      }
      if (pb.next != at || std::find(between.begin(), between.end(), p) != between.end()) break;
      between.push_back(p);
      at = p;
    }
    if (from < 0) continue;
    // The condition's instructions in this block: its definition and what that reads from here.
    std::vector<bool> take(blk.insts.size(), false);
    std::vector<uint32_t> wanted = {key(blk.condPred)};
    bool ok = true;
    for (size_t i = blk.insts.size(); i-- > 0 && ok;) {
      const MInst& mi = blk.insts[i];
      if (!mi.dst.valid()) continue;
      const auto it = std::find(wanted.begin(), wanted.end(), key(mi.dst));
      if (it == wanted.end()) continue;
      if (!isPureScalar(mi) || definitions[key(mi.dst)] != 1) ok = false;
      wanted.erase(it);
      take[i] = true;
      for (const MOperand& o : mi.src)
        if (o.isReg() && !o.reg.physical) wanted.push_back(key(o.reg));
    }
    if (!ok || std::none_of(take.begin(), take.end(), [](bool t) { return t; })) continue;
    // What the moved instructions read must hold the same value at the end of `from`: written neither by
    // an instruction that stays before them here nor in the blocks between.
    std::vector<MInst> code;
    for (size_t i = 0; i < blk.insts.size() && ok; ++i) {
      if (!take[i]) continue;
      const MInst& mi = blk.insts[i];
      for (const MOperand& o : mi.src) {
        if (!o.isReg()) continue;
        for (size_t j = 0; j < i; ++j)
          if (!take[j] && blk.insts[j].dst == o.reg) ok = false;
        for (int m : between)
          if (writes(mf.blocks[static_cast<size_t>(m)], o.reg)) ok = false;
      }
      code.push_back(mi);
    }
    // Nor read before them (a value read before its single definition is not one this pass may move).
    auto readsAny = [&](const MInst& mi) {
      bool reads = false;
      forEachRegisterRead(mi, [&](const Reg& r) {
        for (const MInst& c : code)
          if (c.dst == r) reads = true;
      });
      return reads;
    };
    for (size_t j = 0; j < blk.insts.size() && ok; ++j)
      forEachRegisterRead(blk.insts[j], [&](const Reg& r) {
        for (size_t i = j; i < blk.insts.size(); ++i)
          if (take[i] && blk.insts[i].dst == r) ok = false;  // read here before (or by) its definition
      });
    for (int m : between)
      for (const MInst& mi : mf.blocks[static_cast<size_t>(m)].insts) ok = ok && !readsAny(mi);
    for (const MInst& mi : mf.blocks[static_cast<size_t>(from)].insts) ok = ok && !readsAny(mi);
    if (!ok || !scalarSlack(mf.blocks[static_cast<size_t>(from)], code.size())) continue;
    std::vector<MInst> kept;
    for (size_t i = 0; i < blk.insts.size(); ++i)
      if (!take[i]) kept.push_back(blk.insts[i]);
    blk.insts = std::move(kept);
    MBlock& into = mf.blocks[static_cast<size_t>(from)];
    into.insts.insert(into.insts.end(), code.begin(), code.end());
    moved += static_cast<int>(code.size());
  }
  return moved;
}

}  // namespace tpc::cc
