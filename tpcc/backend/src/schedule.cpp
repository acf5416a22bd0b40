// Scheduling of each block into VLIW bundles, after register allocation.
//
// Dependences between instructions i < j of a block (c = issue cycle, lat = latency):
//   read after write   c_j >= c_i + lat_i
//   write after read   c_j >= c_i          (the same bundle is fine: every slot reads the old state)
//   write after write  c_j >= c_i + max(1, lat_i - lat_j + 1)   (the later write lands last)
//   memory             a store before a load or store of the same memory: c_j >= c_i + 1;
//                      a load before a store: c_j >= c_i
// A block may end with writes still in flight when every block it may continue in comes later in the
// layout: those blocks are scheduled after all their predecessors and start with each register's time
// to land (the latest over the predecessors). A block with a successor at or before it in the layout
// (a back edge) ends only when all its writes have landed; hardware loop bodies follow their own rule
// (loopBodyLength). Highest critical path first.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "tpc/cc/passes.h"
#include "tpc/isa/asm_text.h"

namespace tpc::cc {

namespace {

using isa::InsnId;

// CoreState: the core's random stream and MMIO registers (isa::touchesCoreState), kept in program order, so
// that the simulator draws in the order the native reference does and a convert sees the CONV_ROUND_CSR
// that the program wrote before it.
enum class Memory { None, Tensor, Local, Global, Printf, CoreState };

Memory memoryOf(const MInst& mi) {
  if (isa::touchesCoreState(mi.op, mi.sw)) return Memory::CoreState;
  if (isa::accessesTensorData(mi.op)) return Memory::Tensor;
  switch (mi.op) {
    case InsnId::LdL: case InsnId::LdLV: case InsnId::StL: case InsnId::StLV: return Memory::Local;
    case InsnId::LdG: case InsnId::LdGV: case InsnId::StG: case InsnId::StGV: return Memory::Global;
    case InsnId::SpuPrintfStr: case InsnId::SpuPrintf: case InsnId::SpuPrintfLane: return Memory::Printf;
    default: return Memory::None;
  }
}

// Stores, and prints (whose order is their output's order).
using MemoryKey = std::pair<Memory, uint32_t>;  // the tensor's number for Memory::Tensor, else 0

MemoryKey memoryKeyOf(const MInst& mi) {
  Memory kind = memoryOf(mi);
  return {kind, kind == Memory::Tensor ? isa::switchField(isa::SwitchField::Tensor).get(mi.sw) : 0u};
}

// A tensor's data is global memory: a global access (through gen_addr) may touch any tensor.
bool sameMemory(const MemoryKey& a, const MemoryKey& b) {
  return a == b || (a.first == Memory::Global && b.first == Memory::Tensor) ||
         (a.first == Memory::Tensor && b.first == Memory::Global);
}

bool isStore(const MInst& mi) {
  Memory m = memoryOf(mi);
  return isa::insnInfo(mi.op).slot == isa::Slot::Store || m == Memory::Printf || m == Memory::CoreState;
}

// One instruction to place: a machine instruction or a block-ending jump/halt.
struct Node {
  MInst inst;
  int targetBlock = -1;  // jmpr: target; loop: the body, whose last bundle ends the loop
  bool terminator = false;
  std::vector<std::pair<int, int>> preds;  // (node, minimum distance)
  int height = 0;
  int cycle = -1;
};

int latency(const MInst& mi) { return isa::insnInfo(mi.op).latency; }

// The modulo schedule's order where there is one (a loop kernel), else the longest path to the end, then
// the shorter latency.
bool higherPriority(const Node& a, const Node& b) {
  if (a.inst.moduloCycle >= 0 && b.inst.moduloCycle >= 0 && a.inst.moduloCycle != b.inst.moduloCycle)
    return a.inst.moduloCycle < b.inst.moduloCycle;
  if (a.height != b.height) return a.height > b.height;
  // Equally urgent: the one whose own latency is the smaller share of it, so that what waits for it
  // can start.
  return latency(a.inst) < latency(b.inst);
}

// Reads as the hardware (and tpc-sim --strict-hazards) sees them: an instruction that may keep part of
// its destination reads it, whether or not the kept part matters here.
template <class F> void forEachRead(const MInst& mi, F f) {
  for (const MOperand& o : mi.src)
    if (o.isReg()) f(o.reg);
  if (mi.pred.valid() && !(mi.pred.file == RegFile::SP && mi.pred.id == 0)) f(mi.pred);
  bool readsDst = mi.dstIsRead || (isa::insnInfo(mi.op).flags & isa::F_READS_DST) ||
                  (mi.pred.valid() && mi.pred.file == RegFile::VP);
  if (readsDst && mi.dst.valid()) f(mi.dst);
}

bool isVectorLocal(const MInst& mi) { return mi.op == InsnId::LdLV || mi.op == InsnId::StLV; }

// Whether two accesses of one memory (a tensor, or local memory) certainly touch different elements.
bool disjoint(const MInst& a, const MInst& b) {
  if (memoryOf(a) == Memory::Local && memoryOf(b) == Memory::Local) {
    // Scalar and vector local memory are separate; within one, accesses at known addresses (local arrays
    // indexed by constants: a batch's per-row values) touch different bytes when they are far enough apart.
    if (isVectorLocal(a) != isVectorLocal(b)) return true;
    if (!a.src[0].isImm() || !b.src[0].isImm()) return false;
    const int64_t bytes = isVectorLocal(a) ? 256 : 4;
    return std::llabs(static_cast<int64_t>(a.src[0].imm) - static_cast<int64_t>(b.src[0].imm)) >= bytes;
  }
  if (!a.coordBase || a.coordBase != b.coordBase) return false;
  int64_t lanes = std::max(dtypeLanes(a.dtype), dtypeLanes(b.dtype));
  return std::llabs(a.coordOffset - b.coordOffset) >= lanes;
}

uint32_t regKey(const Reg& r) { return static_cast<uint32_t>(r.file) * 64 + r.id; }

isa::SlotInsn toSlot(const MInst& mi, uint32_t imm) {
  isa::SlotInsn s;
  s.id = mi.op;
  s.dtype = mi.dtype;
  s.sw = mi.sw;
  if (mi.dst.valid()) s.dst = isa::Operand{mi.dst.file, static_cast<uint8_t>(mi.dst.id)};
  for (int k = 0; k < 4; ++k) {
    const MOperand& o = mi.src[static_cast<size_t>(k)];
    if (o.isReg()) s.src[static_cast<size_t>(k)] = isa::Operand{o.reg.file, static_cast<uint8_t>(o.reg.id)};
    if (o.isImm()) {
      s.src[static_cast<size_t>(k)] = isa::Operand{RegFile::Imm, 0};
      s.imm = o.imm;
    }
  }
  if (isa::insnInfo(mi.op).flags & isa::F_IMM_ADDR) {
    s.src[0] = isa::Operand{RegFile::Imm, 0};
    s.imm = imm;
  }
  if (mi.pred.valid()) {
    s.predIndex = static_cast<uint8_t>(mi.pred.id);
    s.predVector = mi.pred.file == RegFile::VP;
    s.predNegate = mi.predNegate;
  }
  return s;
}

// Registers whose writes are still in flight where a block starts or ends: the cycle (from that point)
// at which each one lands.
using InFlight = std::map<uint32_t, int>;

struct BlockSchedule {
  std::vector<std::array<int, isa::kNumSlots>> bundles;  // node index per slot, -1 empty
  std::vector<Node> nodes;
  int exitDelay = 0;  // cycles the next block must wait for writes still in flight (hardware loop bodies)
  InFlight inFlightAtEnd;  // writes still landing when the block ends (or its loop's last iteration does)
};

// A hardware loop body repeats back to back with nothing between iterations, so instead of letting every
// write land before its end, it only needs to be long enough that each iteration's reads and writes come
// late enough after the previous iteration's writes (the same rules as within a block, across the back
// edge: L is the body's length, c a cycle within it):
//   read after write   L + c_read  >= c_write + lat                (reads of the previous iteration's value)
//   write after write  L + c_first + lat_first > c_last + lat_last  (the next iteration's first write lands last)
//   write after read   L + c_first >= c_read                       (... and comes no earlier than the last read)
//   memory             L + c_load >= c_store + 1 for one tensor, L + c_store >= c_store' + 1
// Whatever is still in flight when the loop ends, the block after it waits for.
int loopBodyLength(const BlockSchedule& bs, int body) {
  int length = static_cast<int>(bs.bundles.size());
  struct Access {
    int firstWrite = -1, firstWriteLat = 0, lastWrite = -1, lastWriteLat = 0, firstExposedRead = -1, lastRead = -1;
  };
  std::map<uint32_t, Access> regs;
  std::map<std::pair<Memory, uint32_t>, std::pair<int, int>> memory;  // first load, last store cycles
  std::map<std::pair<Memory, uint32_t>, int> firstStore;
  // With a global access in the body, every tensor counts as global memory (they may be the same bytes).
  bool global = false;
  for (int i = 0; i < body; ++i) global = global || memoryOf(bs.nodes[static_cast<size_t>(i)].inst) == Memory::Global;
  for (int i = 0; i < body; ++i) {
    const Node& n = bs.nodes[static_cast<size_t>(i)];
    forEachRead(n.inst, [&](const Reg& r) {
      Access& a = regs[regKey(r)];
      if (a.firstWrite < 0 && a.firstExposedRead < 0) a.firstExposedRead = n.cycle;
      if (a.firstWrite < 0 && a.firstExposedRead >= 0) a.firstExposedRead = std::min(a.firstExposedRead, n.cycle);
      a.lastRead = std::max(a.lastRead, n.cycle);
    });
    if (n.inst.dst.valid()) {
      Access& a = regs[regKey(n.inst.dst)];
      if (a.firstWrite < 0) {
        a.firstWrite = n.cycle;
        a.firstWriteLat = latency(n.inst);
      }
      a.lastWrite = n.cycle;
      a.lastWriteLat = latency(n.inst);
    }
    Memory kind = memoryOf(n.inst);
    if (kind != Memory::None) {
      MemoryKey m = memoryKeyOf(n.inst);
      if (global && kind == Memory::Tensor) m = {Memory::Global, 0u};
      auto& [firstLoad, lastStore] = memory.try_emplace(m, -1, -1).first->second;
      if (isStore(n.inst)) {
        lastStore = n.cycle;
        if (!firstStore.count(m)) firstStore[m] = n.cycle;
      } else if (firstLoad < 0) {
        firstLoad = n.cycle;
      }
    }
  }
  for (const auto& [key, a] : regs) {
    if (a.lastWrite < 0) continue;
    if (a.firstExposedRead >= 0) length = std::max(length, a.lastWrite + a.lastWriteLat - a.firstExposedRead);
    length = std::max(length, a.lastWrite + a.lastWriteLat - a.firstWrite - a.firstWriteLat + 1);
    if (a.lastRead >= 0) length = std::max(length, a.lastRead - a.firstWrite);
  }
  for (const auto& [m, fl] : memory) {
    auto [firstLoad, lastStore] = fl;
    if (lastStore < 0) continue;
    if (firstLoad >= 0) length = std::max(length, lastStore + 1 - firstLoad);
    length = std::max(length, lastStore + 1 - firstStore[m]);
  }
  return length;
}

// `entry`: writes of the predecessors still landing when the block starts; `mustLand`: the block ends only
// when all its writes have landed (a successor cannot be told about them).
BlockSchedule scheduleBlock(const MFunction& mf, int index, int nextInLayout, int entryDelay, const InFlight& entry,
                            bool mustLand) {
  const MBlock& blk = mf.blocks[static_cast<size_t>(index)];
  BlockSchedule bs;
  for (const MInst& mi : blk.insts) bs.nodes.emplace_back().inst = mi;
  const int body = static_cast<int>(bs.nodes.size());
  auto addJump = [&](int target, Reg pred, bool negate) {
    Node n;
    n.inst.op = InsnId::SpuJmpr;
    n.inst.pred = pred;
    n.inst.predNegate = negate;
    n.inst.loc = blk.endLoc;
    n.targetBlock = target;
    n.terminator = true;
    bs.nodes.push_back(n);
  };
  // A conditional jump to the block that follows anyway is the jump elsewhere on the opposite condition.
  const bool invert = blk.condTarget >= 0 && blk.condTarget == nextInLayout && blk.next >= 0 &&
                      blk.next != nextInLayout && blk.loopBody < 0;
  if (invert) addJump(blk.next, blk.condPred, !blk.condNegate);
  else if (blk.condTarget >= 0) addJump(blk.condTarget, blk.condPred, blk.condNegate);
  if (blk.loopBody >= 0) {
    if (blk.next != nextInLayout || blk.loopBody != nextInLayout)
      throw CodegenError("internal: a hardware loop body must follow its preheader", blk.endLoc);
    Node n;
    n.inst.op = InsnId::SpuLoop;
    n.inst.dtype = DType::I32;
    n.inst.dst = blk.loopIter;
    n.inst.src[0] = MOperand::ofReg(blk.loopZero);
    n.inst.src[1] = MOperand::ofReg(blk.loopCount);
    n.inst.src[2] = MOperand::ofImm(1);
    n.inst.loc = blk.endLoc;
    n.targetBlock = blk.loopBody;
    n.terminator = true;
    bs.nodes.push_back(n);
  }
  if (blk.bodyIter.valid() && blk.next != nextInLayout)
    throw CodegenError("internal: a hardware loop's exit must follow its body", blk.endLoc);
  if (blk.loopBody >= 0) {
    // falls through into the loop body
  } else if (blk.next == -1) {
    Node n;
    n.inst.op = InsnId::SpuHalt;
    n.inst.loc = blk.endLoc;
    n.terminator = true;
    bs.nodes.push_back(n);
  } else if (blk.next != nextInLayout && !invert) {
    addJump(blk.next, Reg{}, false);
  }
  const int n = static_cast<int>(bs.nodes.size());
  // The earliest cycle of each instruction that the writes in flight at entry allow: reads wait for them
  // to land, writes land after them.
  std::vector<int> notBefore(static_cast<size_t>(n), 0);
  for (int j = 0; j < n; ++j) {
    Node& node = bs.nodes[static_cast<size_t>(j)];
    int& nb = notBefore[static_cast<size_t>(j)];
    forEachRead(node.inst, [&](const Reg& r) {
      if (auto it = entry.find(regKey(r)); it != entry.end()) nb = std::max(nb, it->second);
    });
    if (node.inst.dst.valid())
      if (auto it = entry.find(regKey(node.inst.dst)); it != entry.end())
        nb = std::max(nb, it->second + 1 - latency(node.inst));
  }

  // Dependences.
  std::map<uint32_t, int> lastWrite;
  std::map<uint32_t, std::vector<int>> readsSinceWrite;
  // Memory is tracked per tensor (distinct tensors are distinct memory), local and global memory whole;
  // global memory holds every tensor's data, so global accesses are ordered with tensor accesses.
  std::map<std::pair<Memory, uint32_t>, std::vector<int>> storesSoFar;
  std::map<std::pair<Memory, uint32_t>, std::vector<int>> loadsSoFar;
  for (int j = 0; j < body; ++j) {
    Node& node = bs.nodes[static_cast<size_t>(j)];
    const MInst& mi = node.inst;
    forEachRead(mi, [&](const Reg& r) {
      auto it = lastWrite.find(regKey(r));
      if (it != lastWrite.end()) node.preds.emplace_back(it->second, latency(bs.nodes[static_cast<size_t>(it->second)].inst));
      readsSinceWrite[regKey(r)].push_back(j);
    });
    if (mi.dst.valid()) {
      uint32_t k = regKey(mi.dst);
      for (int r : readsSinceWrite[k])
        if (r != j) node.preds.emplace_back(r, 0);
      if (auto it = lastWrite.find(k); it != lastWrite.end())
        node.preds.emplace_back(it->second, std::max(1, latency(bs.nodes[static_cast<size_t>(it->second)].inst) - latency(mi) + 1));
      lastWrite[k] = j;
      readsSinceWrite[k].clear();
    }
    Memory kind = memoryOf(mi);
    if (kind != Memory::None) {
      MemoryKey m = memoryKeyOf(mi);
      auto& nodes = bs.nodes;
      for (auto& [other, stores] : storesSoFar)
        if (sameMemory(other, m))
          for (int st : stores)
            if (!disjoint(nodes[static_cast<size_t>(st)].inst, mi)) node.preds.emplace_back(st, 1);
      if (isStore(mi)) {
        for (auto& [other, loads] : loadsSoFar)
          if (sameMemory(other, m))
            for (int l : loads)
              if (!disjoint(nodes[static_cast<size_t>(l)].inst, mi)) node.preds.emplace_back(l, 0);
        storesSoFar[m].push_back(j);
      } else {
        loadsSoFar[m].push_back(j);
      }
    }
  }
  // Terminators: after everything, in order, reading their predicate.
  for (int j = body; j < n; ++j) {
    Node& t = bs.nodes[static_cast<size_t>(j)];
    for (int i = 0; i < j; ++i) t.preds.emplace_back(i, i >= body ? 1 : 0);
    forEachRead(t.inst, [&](const Reg& r) {
      if (auto it = lastWrite.find(regKey(r)); it != lastWrite.end())
        t.preds.emplace_back(it->second, latency(bs.nodes[static_cast<size_t>(it->second)].inst));
    });
  }
  // Priorities: longest latency path to the end.
  std::vector<std::vector<std::pair<int, int>>> succs(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j)
    for (auto [i, d] : bs.nodes[static_cast<size_t>(j)].preds) succs[static_cast<size_t>(i)].emplace_back(j, d);
  // In a hardware loop body, what the next iteration reads first (loop-carried values: induction
  // variables, coordinates) is urgent: the next iteration can start only when it has landed.
  std::vector<int> carriedBonus(static_cast<size_t>(n), 0);
  if (blk.bodyIter.valid()) {
    std::map<uint32_t, bool> writtenBefore;
    std::map<uint32_t, bool> exposed;
    for (int i = 0; i < body; ++i) {
      const MInst& mi = bs.nodes[static_cast<size_t>(i)].inst;
      forEachRead(mi, [&](const Reg& r) {
        if (!writtenBefore.count(regKey(r))) exposed[regKey(r)] = true;
      });
      if (mi.dst.valid()) writtenBefore[regKey(mi.dst)] = true;
    }
    for (const auto& [key, w] : lastWrite)
      if (exposed.count(key) && w < body) carriedBonus[static_cast<size_t>(w)] = 1000;
  }
  // A condition the next block branches on at once (a block of only a branch, as a loop's guard after
  // the block that chose the loop) delays that branch by its latency: as urgent as a branch of this block.
  Reg nextCondition;
  if (nextInLayout >= 0 && blk.next == nextInLayout) {
    const MBlock& after = mf.blocks[static_cast<size_t>(nextInLayout)];
    if (after.insts.empty() && after.condPred.valid()) nextCondition = after.condPred;
  }
  for (int i = n - 1; i >= 0; --i) {
    int h = latency(bs.nodes[static_cast<size_t>(i)].inst) + carriedBonus[static_cast<size_t>(i)];
    if (nextCondition.valid() && i < body && bs.nodes[static_cast<size_t>(i)].inst.dst == nextCondition) h += 1;
    for (auto [j, d] : succs[static_cast<size_t>(i)]) h = std::max(h, d + bs.nodes[static_cast<size_t>(j)].height);
    bs.nodes[static_cast<size_t>(i)].height = h;
  }

  // The block may end (first terminator, or the end of the block) only once every write has landed.
  int placed = 0;
  for (int cycle = 0; placed < n || cycle < entryDelay; ++cycle) {
    std::array<int, isa::kNumSlots> bundle;
    bundle.fill(-1);
    if (cycle < entryDelay) {  // writes of the loop before this block are still landing
      bs.bundles.push_back(bundle);
      continue;
    }
    bool progress = true;
    while (progress) {
      progress = false;
      int best = -1;
      for (int j = 0; j < n; ++j) {
        Node& node = bs.nodes[static_cast<size_t>(j)];
        // A kernel's instruction waits for its cycle in the modulo schedule (then, only for what
        // allocation added).
        if (node.cycle >= 0 || node.inst.moduloCycle > cycle - entryDelay) continue;
        int slot = static_cast<int>(isa::insnInfo(node.inst.op).slot);
        if (bundle[static_cast<size_t>(slot)] >= 0) continue;
        bool ready = cycle - entryDelay >= notBefore[static_cast<size_t>(j)];
        for (auto [i, d] : node.preds) {
          int ci = bs.nodes[static_cast<size_t>(i)].cycle;
          if (ci < 0 || ci + d > cycle) ready = false;
        }
        if (!ready) continue;
        if (node.terminator && j == body) {
          // Its own writes and those of its predecessors still landing when it began (a block passes those
          // on, and a successor that is not told about them assumes they have landed).
          int landed = 0;
          for (const auto& [key, at] : entry) landed = std::max(landed, at);
          for (int i = 0; i < body; ++i)
            landed = std::max(landed, bs.nodes[static_cast<size_t>(i)].cycle + latency(bs.nodes[static_cast<size_t>(i)].inst));
          if (mustLand && cycle + 1 < landed && node.inst.op != InsnId::SpuHalt) continue;
        }
        if (best < 0 || higherPriority(node, bs.nodes[static_cast<size_t>(best)])) best = j;
      }
      if (best >= 0) {
        Node& node = bs.nodes[static_cast<size_t>(best)];
        node.cycle = cycle;
        bundle[static_cast<size_t>(isa::insnInfo(node.inst.op).slot)] = best;
        ++placed;
        progress = true;
      }
    }
    bs.bundles.push_back(bundle);
  }
  // A block without terminator bundles falls through: pad until its writes have landed; a hardware loop
  // body only as far as its next iteration needs, leaving the rest to the block after the loop.
  if (body == n) {
    int landed = 0;
    if (mustLand)
      for (const auto& [key, at] : entry) landed = std::max(landed, at);  // passed on from the predecessors
    for (int i = 0; i < body; ++i)
      landed = std::max(landed, bs.nodes[static_cast<size_t>(i)].cycle + latency(bs.nodes[static_cast<size_t>(i)].inst));
    if (blk.bodyIter.valid()) {
      int length = loopBodyLength(bs, body);
      bs.exitDelay = std::max(0, landed - length);
      landed = length;
    } else if (!mustLand) {
      landed = 0;
    }
    // A hardware loop ends with the last bundle of its body, so a body left empty (its code was dead)
    // still needs one bundle.
    if (blk.bodyIter.valid()) landed = std::max(landed, 1);
    while (static_cast<int>(bs.bundles.size()) < landed) {
      std::array<int, isa::kNumSlots> empty;
      empty.fill(-1);
      bs.bundles.push_back(empty);
    }
  }
  // Trailing cycles with nothing placed (a block of only terminators that waited) are already bundles.
  // What is still landing at the end: the block's last write of each register, and what it did not
  // overwrite of what was landing at its start.
  const int length = static_cast<int>(bs.bundles.size());
  for (const auto& [key, at] : entry)
    if (at - length > 0) bs.inFlightAtEnd[key] = at - length;
  for (int i = 0; i < body; ++i) {
    const Node& node = bs.nodes[static_cast<size_t>(i)];
    if (!node.inst.dst.valid()) continue;
    const int left = node.cycle + entryDelay + latency(node.inst) - length;
    // Writes land in issue order per register (write-after-write), so the last one decides.
    if (left > 0) bs.inFlightAtEnd[regKey(node.inst.dst)] = std::max(bs.inFlightAtEnd[regKey(node.inst.dst)], left);
  }
  return bs;
}

}  // namespace

std::vector<ScheduledBundle> scheduleFunction(const MFunction& mf, const isa::ArchInfo& arch) {
  (void)arch;
  const int nb = static_cast<int>(mf.blocks.size());
  std::vector<BlockSchedule> schedules;
  std::vector<uint32_t> blockAddress(static_cast<size_t>(nb) + 1);
  uint32_t address = 0;
  // Dead blocks produce no code; the layout successor of a block is the next live one.
  std::vector<int> nextLive(static_cast<size_t>(nb), -2);
  for (int b = nb - 1, n = -2; b >= 0; --b) {
    nextLive[static_cast<size_t>(b)] = n;
    if (!mf.blocks[static_cast<size_t>(b)].dead) n = b;
  }
  // The blocks each block may continue in: its jump targets, the next block, a hardware loop's body and,
  // for a loop that runs no iteration, the block after the body.
  std::vector<std::vector<int>> succs(static_cast<size_t>(nb)), preds(static_cast<size_t>(nb));
  for (int b = 0; b < nb; ++b) {
    const MBlock& blk = mf.blocks[static_cast<size_t>(b)];
    if (blk.dead) continue;
    auto add = [&](int s) {
      if (s >= 0 && s < nb) succs[static_cast<size_t>(b)].push_back(s);
    };
    add(blk.condTarget);
    add(blk.next);
    if (blk.loopBody >= 0) add(mf.blocks[static_cast<size_t>(blk.loopBody)].next);
    for (int s : succs[static_cast<size_t>(b)]) preds[static_cast<size_t>(s)].push_back(b);
  }
  // A block can be told what is still landing when all its predecessors are scheduled before it (a
  // hardware loop body's return to itself is its own rule).
  std::vector<bool> takesInFlight(static_cast<size_t>(nb), false);
  for (int b = 0; b < nb; ++b) {
    const bool body = mf.blocks[static_cast<size_t>(b)].bodyIter.valid();
    takesInFlight[static_cast<size_t>(b)] = std::all_of(preds[static_cast<size_t>(b)].begin(), preds[static_cast<size_t>(b)].end(),
                                                        [&](int p) { return p < b || (body && p == b); });
  }
  // What each block was scheduled with (writes landing at its start, cycles to wait), to schedule a
  // preheader again.
  std::vector<InFlight> entries(static_cast<size_t>(nb));
  std::vector<int> delays(static_cast<size_t>(nb), 0);
  std::vector<int> previousLive(static_cast<size_t>(nb), -1);
  for (int b = 0, p = -1; b < nb; ++b) {
    previousLive[static_cast<size_t>(b)] = p;
    if (!mf.blocks[static_cast<size_t>(b)].dead) p = b;
  }
  for (int b = 0; b < nb; ++b) {
    blockAddress[static_cast<size_t>(b)] = address;
    if (mf.blocks[static_cast<size_t>(b)].dead) {
      schedules.emplace_back();
      continue;
    }
    InFlight entry;
    int delay = 0;
    if (takesInFlight[static_cast<size_t>(b)]) {
      for (int p : preds[static_cast<size_t>(b)])
        if (p != b)
          for (const auto& [key, at] : schedules[static_cast<size_t>(p)].inFlightAtEnd) entry[key] = std::max(entry[key], at);
    } else if (b > 0) {
      delay = schedules.back().exitDelay;
    }
    const bool body = mf.blocks[static_cast<size_t>(b)].bodyIter.valid();
    const bool mustLand = std::any_of(succs[static_cast<size_t>(b)].begin(), succs[static_cast<size_t>(b)].end(), [&](int s) {
      return !takesInFlight[static_cast<size_t>(s)] && !(body && s == b);
    });
    BlockSchedule bs = scheduleBlock(mf, b, nextLive[static_cast<size_t>(b)], delay, entry, mustLand);
    // A loop body that waits for writes its preheader left in flight waits in every iteration: when that
    // makes the body longer, the preheader waits for them instead, once.
    const int pre = b > 0 ? previousLive[static_cast<size_t>(b)] : -1;
    if (body && !entry.empty() && pre >= 0 && mf.blocks[static_cast<size_t>(pre)].loopBody == b) {
      BlockSchedule alone = scheduleBlock(mf, b, nextLive[static_cast<size_t>(b)], 0, InFlight{}, mustLand);
      if (alone.bundles.size() < bs.bundles.size()) {
        BlockSchedule& preheader = schedules[static_cast<size_t>(pre)];
        address -= static_cast<uint32_t>(preheader.bundles.size() * isa::kBundleBytes);
        preheader = scheduleBlock(mf, pre, b, delays[static_cast<size_t>(pre)], entries[static_cast<size_t>(pre)], true);
        address += static_cast<uint32_t>(preheader.bundles.size() * isa::kBundleBytes);
        for (int d = pre + 1; d <= b; ++d) blockAddress[static_cast<size_t>(d)] = address;
        bs = std::move(alone);
      }
    }
    entries[static_cast<size_t>(b)] = std::move(entry);
    delays[static_cast<size_t>(b)] = delay;
    schedules.push_back(std::move(bs));
    address += static_cast<uint32_t>(schedules.back().bundles.size() * isa::kBundleBytes);
  }
  blockAddress[static_cast<size_t>(nb)] = address;

  std::vector<ScheduledBundle> out;
  for (int b = 0; b < nb; ++b) {
    const BlockSchedule& bs = schedules[static_cast<size_t>(b)];
    for (const auto& slots : bs.bundles) {
      ScheduledBundle sb;
      bool haveLoc = false;
      for (int s = 0; s < isa::kNumSlots; ++s) {
        int j = slots[static_cast<size_t>(s)];
        if (j < 0) continue;
        const Node& node = bs.nodes[static_cast<size_t>(j)];
        uint32_t target = node.targetBlock >= 0 ? blockAddress[static_cast<size_t>(node.targetBlock)] : 0;
        isa::SlotInsn slot = toSlot(node.inst, target);
        if (node.inst.op == InsnId::SpuLoop) {
          // The loop ends with the last bundle of its body.
          uint32_t end = blockAddress[static_cast<size_t>(node.targetBlock) + 1] - static_cast<uint32_t>(isa::kBundleBytes);
          slot.setField(isa::SwitchField::LoopEnd, end);
          slot.setField(isa::SwitchField::LoopCmp, static_cast<uint32_t>(isa::LoopCmp::Lt));
        }
        std::string why = isa::validateSlot(slot);
        if (!why.empty())
          throw CodegenError(fmt::format("internal: invalid instruction '{}': {}", isa::formatSlot(slot), why),
                             node.inst.loc);
        sb.bundle.slots[static_cast<size_t>(s)] = slot;
        sb.variables.insert(sb.variables.end(), node.inst.variables.begin(), node.inst.variables.end());
        if (!haveLoc && node.inst.loc.line) {
          sb.loc = node.inst.loc;
          haveLoc = true;
        }
      }
      out.push_back(sb);
    }
  }
  if (out.empty()) {
    ScheduledBundle halt;
    halt.bundle[isa::Slot::Spu].id = InsnId::SpuHalt;
    out.push_back(halt);
  }
  return out;
}

std::string printMir(const MFunction& mf) {
  std::string s;
  auto reg = [](const Reg& r) {
    return fmt::format("{}{}{}", r.physical ? "" : "%", isa::regFilePrefix(r.file), r.id);
  };
  for (size_t b = 0; b < mf.blocks.size(); ++b) {
    const MBlock& blk = mf.blocks[b];
    s += fmt::format("bb{}:\n", b);
    for (const MInst& mi : blk.insts) {
      s += "  ";
      if (mi.pred.valid()) s += fmt::format("@{}{} ", mi.predNegate ? "!" : "", reg(mi.pred));
      s += std::string(isa::insnInfo(mi.op).mnemonic) + "." + std::string(dtypeName(mi.dtype));
      if (mi.dst.valid()) s += " " + reg(mi.dst) + (mi.dstIsRead ? "(tied)" : "");
      for (const MOperand& o : mi.src) {
        if (o.isReg()) s += ", " + reg(o.reg);
        if (o.isImm()) s += fmt::format(", #0x{:x}", o.imm);
      }
      if (mi.sw) s += fmt::format(" sw=0x{:x}", mi.sw);
      s += "\n";
    }
    if (blk.condTarget >= 0)
      s += fmt::format("  if {}{} goto bb{}\n", blk.condNegate ? "!" : "", reg(blk.condPred), blk.condTarget);
    s += blk.next >= 0 ? fmt::format("  goto bb{}\n", blk.next) : std::string("  halt\n");
  }
  return s;
}

}  // namespace tpc::cc
