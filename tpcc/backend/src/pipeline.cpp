// Two-stage software pipelining of hardware loop bodies (machine IR, before register allocation).
//
// Stage 2 of a body is its stores and what only feeds them (the arithmetic on loaded values); stage 1 is
// the rest (coordinates, loads, loop-carried updates). The loop
//
//     P: ... loop q times -> B: [S1 S2]  -> E
//
// becomes
//
//     P:   ... skip to E when q == 0
//     PRO: S1                      (iteration 0)
//     P2:  loop q - 1 times -> B
//     B:   S2 (iteration k) and S1 (iteration k + 1), scheduled together
//     EPI: S2                      (the last iteration)
//     E
//
// so that the stores and arithmetic of one iteration overlap the loads of the next instead of trailing
// behind them. Registers need no renaming: stage 2 of iteration k reads what stage 1 of iteration k wrote,
// and stage 1 of iteration k + 1 comes after it in the body, so the scheduler keeps each read before the
// next write of its register. A body qualifies when stage 2 reads nothing that stage 1 writes after it
// (such as loop-carried values the back-edge copies update) and nothing of stage 2 is used elsewhere.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

uint64_t key(const Reg& r) { return (static_cast<uint64_t>(r.file) << 32) | r.id; }

bool isVirtual(const Reg& r) { return r.valid() && !r.physical; }

template <class F> void forEachRead(const MInst& mi, F f) {
  for (const MOperand& o : mi.src)
    if (o.isReg()) f(o.reg);
  if (mi.pred.valid()) f(mi.pred);
  if (mi.dstIsRead && mi.dst.valid()) f(mi.dst);
}

bool isLoad(isa::InsnId op) {
  switch (op) {
    case isa::InsnId::LdTnsr: case isa::InsnId::LdTnsrPartial: case isa::InsnId::LdL: case isa::InsnId::LdLV:
    case isa::InsnId::LdG: case isa::InsnId::LdGV: return true;
    default: return false;
  }
}

void shiftBlocks(MFunction& mf, int at, int count) {
  auto shift = [&](int& b) {
    if (b >= at) b += count;
  };
  for (MBlock& b : mf.blocks) {
    shift(b.condTarget);
    shift(b.next);
    shift(b.loopBody);
  }
}

// Which instructions of the body form stage 2; empty when the body does not qualify.
std::vector<bool> stageTwo(const MFunction& mf, int bodyIndex) {
  const MBlock& body = mf.blocks[static_cast<size_t>(bodyIndex)];
  const size_t n = body.insts.size();
  std::vector<bool> two(n, false);
  // Registers read outside the body, or at its end.
  std::set<uint64_t> usedOutside;
  for (size_t b = 0; b < mf.blocks.size(); ++b) {
    const MBlock& blk = mf.blocks[b];
    for (const Reg* r : {&blk.condPred, &blk.loopCount, &blk.loopZero, &blk.bodyIter})
      if (r->valid()) usedOutside.insert(key(*r));
    if (static_cast<int>(b) == bodyIndex) continue;
    for (const MInst& mi : blk.insts) forEachRead(mi, [&](const Reg& r) { usedOutside.insert(key(r)); });
  }
  bool anyStore = false;
  for (size_t i = n; i-- > 0;) {
    const MInst& mi = body.insts[i];
    const isa::InsnInfo& info = isa::insnInfo(mi.op);
    if (info.slot == isa::Slot::Store) {
      two[i] = !mi.pred.valid() || isVirtual(mi.pred);
      anyStore |= two[i];
      continue;
    }
    if (!mi.dst.valid() || !isVirtual(mi.dst) || isLoad(mi.op) || mi.copy || usedOutside.count(key(mi.dst))) continue;
    // Every reader in the body must be in stage 2 (and come after it).
    bool onlyStageTwo = true, anyReader = false;
    for (size_t j = 0; j < n; ++j) {
      bool reads = false;
      forEachRead(body.insts[j], [&](const Reg& r) { reads |= r == mi.dst; });
      if (!reads) continue;
      anyReader = true;
      if (j <= i || !two[j]) onlyStageTwo = false;
    }
    // No other instruction may write the register either.
    for (size_t j = 0; j < n; ++j)
      if (j != i && body.insts[j].dst == mi.dst) onlyStageTwo = false;
    two[i] = anyReader && onlyStageTwo;
  }
  if (!anyStore) return {};
  // A store of stage 2 runs after the loads of stage 1 that followed it: none of them may read its memory.
  auto memoryKey = [](const MInst& mi) -> int64_t {
    switch (mi.op) {
      case isa::InsnId::LdTnsr: case isa::InsnId::LdTnsrPartial: case isa::InsnId::StTnsr: case isa::InsnId::StTnsrPartial:
        return isa::switchField(isa::SwitchField::Tensor).get(mi.sw);
      case isa::InsnId::LdL: case isa::InsnId::LdLV: case isa::InsnId::StL: case isa::InsnId::StLV: return 100;
      case isa::InsnId::LdG: case isa::InsnId::LdGV: case isa::InsnId::StG: case isa::InsnId::StGV: return 200;
      default: return -1;
    }
  };
  for (size_t i = 0; i < n; ++i) {
    if (!two[i] || isa::insnInfo(body.insts[i].op).slot != isa::Slot::Store) continue;
    for (size_t j = i + 1; j < n; ++j)
      if (!two[j] && isLoad(body.insts[j].op) && memoryKey(body.insts[j]) == memoryKey(body.insts[i])) return {};
  }
  // Values stage 1 hands to stage 2 stay live across the back edge: they must leave registers to spare.
  std::map<RegFile, std::set<uint32_t>> crossing;
  for (size_t i = 0; i < n; ++i) {
    if (!two[i]) continue;
    forEachRead(body.insts[i], [&](const Reg& r) {
      for (size_t j = 0; j < i; ++j)
        if (!two[j] && body.insts[j].dst == r && isVirtual(r)) crossing[r.file].insert(r.id);
    });
  }
  for (const auto& [file, regs] : crossing)
    if (static_cast<int>(regs.size()) > isa::regFileSize(file) * 5 / 8) return {};
  // The hand-over copies of coordinates and scalars run on the scalar slot: pipelining pays only while
  // that slot stays within twice the load slot's work (measured on the samples: beyond it, the scalar
  // slot becomes the bottleneck and the unpipelined loop is faster).
  int scalarOps = static_cast<int>(crossing[RegFile::I].size() + crossing[RegFile::S].size()), loadOps = 0;
  for (const MInst& mi : body.insts) {
    isa::Slot slot = isa::insnInfo(mi.op).slot;
    scalarOps += slot == isa::Slot::Spu;
    loadOps += slot == isa::Slot::Load;
  }
  if (scalarOps > 2 * loadOps) return {};
  // Stage 2 runs one body later: what it reads must still be there, so stage 1 must not write it after.
  for (size_t i = 0; i < n; ++i) {
    if (!two[i]) continue;
    bool ok = true;
    forEachRead(body.insts[i], [&](const Reg& r) {
      for (size_t j = i + 1; j < n; ++j)
        if (!two[j] && body.insts[j].dst == r) ok = false;
    });
    if (!ok) return {};
  }
  return two;
}

// Index and scalar values that stage 1 hands to stage 2 (coordinates): stage 1 computes them into fresh
// registers and copies them over at its end, after stage 2 has read the previous ones, so the next
// iteration's address arithmetic need not wait for this iteration's stores. The copies are not
// coalescable (that would undo the renaming). Vectors keep their register: stage 2's arithmetic reads
// them first thing, so waiting costs nothing there.
void renameCrossingValues(MFunction& mf, std::vector<MInst>& s1, const std::vector<MInst>& s2) {
  std::set<uint64_t> readByTwo;
  for (const MInst& mi : s2) forEachRead(mi, [&](const Reg& r) { readByTwo.insert(key(r)); });
  std::map<uint64_t, Reg> fresh;  // crossing register -> its stage-1 name
  std::vector<std::pair<Reg, Reg>> handOver;
  for (MInst& mi : s1) {
    // Reads after a renamed definition use the new name.
    for (MOperand& o : mi.src)
      if (o.isReg())
        if (auto it = fresh.find(key(o.reg)); it != fresh.end()) o.reg = it->second;
    if (mi.pred.valid())
      if (auto it = fresh.find(key(mi.pred)); it != fresh.end()) mi.pred = it->second;
    if (!isVirtual(mi.dst) || (mi.dst.file != RegFile::I && mi.dst.file != RegFile::S) || !readByTwo.count(key(mi.dst)))
      continue;
    auto it = fresh.find(key(mi.dst));
    if (it == fresh.end()) {
      Reg t = mf.newVirtual(mi.dst.file);
      handOver.emplace_back(mi.dst, t);
      it = fresh.emplace(key(mi.dst), t).first;
    }
    mi.dst = it->second;  // a tied read (dstIsRead) reads the new name too: its copy came first
  }
  for (auto [crossing, t] : handOver) {
    MInst copy;
    copy.op = crossing.file == RegFile::I ? isa::InsnId::SpuIMov : isa::InsnId::SpuMov;
    copy.dtype = DType::I32;
    if (crossing.file == RegFile::I) copy.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
    copy.dst = crossing;
    copy.src[0] = MOperand::ofReg(t);
    s1.push_back(copy);
  }
}

}  // namespace

void pipelineLoops(MFunction& mf) {
  for (int pre = 0; pre < static_cast<int>(mf.blocks.size()); ++pre) {
    if (mf.blocks[static_cast<size_t>(pre)].loopBody < 0) continue;
    const int body = mf.blocks[static_cast<size_t>(pre)].loopBody;
    std::vector<bool> two = stageTwo(mf, body);
    if (two.empty()) continue;

    MBlock original = mf.blocks[static_cast<size_t>(body)];
    std::vector<MInst> s1, s2;
    for (size_t i = 0; i < original.insts.size(); ++i) {
      MInst mi = original.insts[i];
      if (two[i]) {
        mi.coordBase = 0;  // its coordinates belong to another iteration than stage 1's around it
        s2.push_back(mi);
      } else {
        s1.push_back(mi);
      }
    }
    renameCrossingValues(mf, s1, s2);
    if (std::getenv("TPC_DEBUG_PIPELINE"))
      std::fprintf(stderr, "tpc-clang: pipelined the loop body of block %d (%zu + %zu instructions)\n", body, s1.size(),
                   s2.size());
    const int exit = original.next;

    // P: skip everything when q == 0.
    MBlock& p = mf.blocks[static_cast<size_t>(pre)];
    Reg q = p.loopCount;
    Reg none = mf.newVirtual(RegFile::SP);
    MInst cmp;
    cmp.op = isa::InsnId::SpuCmpEq;
    cmp.dtype = DType::I32;
    cmp.dst = none;
    cmp.src[0] = MOperand::ofReg(q);
    cmp.src[1] = MOperand::ofImm(0);
    p.insts.push_back(cmp);
    Reg count = mf.newVirtual(RegFile::S);
    MInst dec;
    dec.op = isa::InsnId::SpuSub;
    dec.dtype = DType::I32;
    dec.dst = count;
    dec.src[0] = MOperand::ofReg(q);
    dec.src[1] = MOperand::ofImm(1);
    p.insts.push_back(dec);
    MBlock loopPre;  // P2
    loopPre.loopCount = count;
    loopPre.loopZero = p.loopZero;
    loopPre.loopIter = p.loopIter;
    p.loopBody = -1;
    p.loopCount = p.loopZero = p.loopIter = Reg{};

    // Blocks: P, PRO, P2, B, EPI, E...
    shiftBlocks(mf, body, 2);       // B moves two down (PRO and P2 come before it)
    shiftBlocks(mf, body + 3, 1);   // and EPI follows it
    const int newBody = body + 2;
    MBlock& p2 = mf.blocks[static_cast<size_t>(pre)];
    p2.condPred = none;
    p2.condNegate = false;
    p2.condTarget = exit >= body + 1 ? exit + 3 : exit;
    p2.next = body;  // PRO
    MBlock prologue;
    prologue.insts = s1;
    prologue.next = body + 1;
    loopPre.loopBody = newBody;
    loopPre.next = newBody;
    MBlock rotated = original;
    rotated.insts = s2;
    rotated.insts.insert(rotated.insts.end(), s1.begin(), s1.end());
    rotated.next = newBody + 1;
    MBlock epilogue;
    epilogue.insts = s2;
    epilogue.next = p2.condTarget;
    mf.blocks[static_cast<size_t>(body)] = rotated;
    mf.blocks.insert(mf.blocks.begin() + body, {prologue, loopPre});
    mf.blocks.insert(mf.blocks.begin() + newBody + 1, epilogue);
    pre = newBody + 1;
  }
}

}  // namespace tpc::cc
