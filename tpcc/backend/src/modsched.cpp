// Modulo scheduling of hardware loop bodies (machine IR, after immediates are legal, before register
// allocation).
//
// Iterative modulo scheduling without backtracking: the initiation interval II starts at the slot bound
// (the busiest of the load, scalar, vector and store slots) and the recurrence bound, and grows until every
// instruction of the body finds a cycle t whose row t mod II of the reservation table has its slot free
// and that keeps every dependence
//
//     t_j >= t_i + latency - distance * II       (distance 0: same iteration, 1: the next one)
//
// Dependences are those of the scheduler (read/write, write/read, write/write of a register; stores
// against loads and stores of the same memory unless their coordinates certainly differ), within an
// iteration and from one iteration to the next. Registers are not renamed: instead, every value must
// be read before the next iteration writes its register again, a dependence from each read to the
// next iteration's write. So the iterations in flight share registers without modulo variable
// expansion, and the code below is correct in program order (the post-allocation list scheduler then
// places it into bundles, honouring latencies):
//
//     P:    ... when q < S - 1 go to F
//     PRO:  stages 0..S-2-r of iterations r = 0..S-2, by time r*II + t
//     P2:   loop q - (S - 1) times -> K
//     K:    every instruction once, by t mod II; stage s works on iteration (pass - s)
//     EPI:  the remaining stages of the last S - 1 iterations; go to E
//     F:    loop q times -> B (the original body, for trip counts too small for the prologue)
//     B
//     E
//
// S is the number of stages (the largest t over II, plus one). See docs/decisions.md.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <string>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

using isa::InsnId;

struct Edge {
  int from, to, latency, distance;
};

uint64_t regKey(const Reg& r) {
  return (static_cast<uint64_t>(r.physical) << 40) | (static_cast<uint64_t>(r.file) << 32) | r.id;
}

// Reads as the hardware sees them (the scheduler's rule): a partial or predicated write reads its
// destination.
template <class F> void forEachRead(const MInst& mi, F f) {
  for (const MOperand& o : mi.src)
    if (o.isReg()) f(o.reg);
  if (mi.pred.valid()) f(mi.pred);
  bool readsDst = mi.dstIsRead || (isa::insnInfo(mi.op).flags & isa::F_READS_DST) ||
                  (mi.pred.valid() && mi.pred.file == RegFile::VP);
  if (readsDst && mi.dst.valid()) f(mi.dst);
}

int latency(const MInst& mi) { return isa::insnInfo(mi.op).latency; }

// Memory an instruction touches: tensor N -> N, local -> 100, global -> 200, printf -> 300; -1 none.
int memoryKey(const MInst& mi) {
  switch (mi.op) {
    case InsnId::LdTnsr: case InsnId::LdTnsrPartial: case InsnId::StTnsr: case InsnId::StTnsrPartial:
      return static_cast<int>(isa::switchField(isa::SwitchField::Tensor).get(mi.sw));
    case InsnId::LdL: case InsnId::LdLV: case InsnId::StL: case InsnId::StLV: return 100;
    case InsnId::LdG: case InsnId::LdGV: case InsnId::StG: case InsnId::StGV: return 200;
    case InsnId::SpuPrintfStr: case InsnId::SpuPrintf: case InsnId::SpuPrintfLane: return 300;
    default: return -1;
  }
}

bool writesMemory(const MInst& mi) {
  return isa::insnInfo(mi.op).slot == isa::Slot::Store || memoryKey(mi) == 300;
}

// Whether access a of iteration k and access b of every later iteration k + d (d >= 1) certainly touch
// different elements: same base, known step, and the step carries b past a for good.
bool disjointAcross(const MInst& a, const MInst& b) {
  if (!a.coordBase || a.coordBase != b.coordBase || !a.coordStep || a.coordStep != b.coordStep) return false;
  int64_t lanes = std::max(dtypeLanes(a.dtype), dtypeLanes(b.dtype));
  int64_t gap = b.coordOffset + a.coordStep - a.coordOffset;  // d = 1; larger d moves further the same way
  return a.coordStep > 0 ? gap >= lanes : -gap >= lanes;
}

bool disjointWithin(const MInst& a, const MInst& b) {
  if (!a.coordBase || a.coordBase != b.coordBase) return false;
  int64_t lanes = std::max(dtypeLanes(a.dtype), dtypeLanes(b.dtype));
  return std::llabs(a.coordOffset - b.coordOffset) >= lanes;
}

std::vector<Edge> dependences(const std::vector<MInst>& body) {
  const int n = static_cast<int>(body.size());
  std::vector<Edge> edges;
  // Register accesses in program order.
  struct Access {
    int inst;
    bool write;
  };
  std::map<uint64_t, std::vector<Access>> accesses;
  for (int i = 0; i < n; ++i) {
    const MInst& mi = body[static_cast<size_t>(i)];
    forEachRead(mi, [&](const Reg& r) {
      if (!(r.file == RegFile::SP && r.id == 0 && r.physical)) accesses[regKey(r)].push_back({i, false});
    });
    if (mi.dst.valid()) accesses[regKey(mi.dst)].push_back({i, true});
  }
  auto pairLatency = [&](const Access& a, const Access& b, int distance) {
    const MInst& x = body[static_cast<size_t>(a.inst)];
    const MInst& y = body[static_cast<size_t>(b.inst)];
    if (a.write && b.write) return std::max(1, latency(x) - latency(y) + 1);
    if (a.write) return latency(x);
    return distance;  // a read before a write: the same bundle is fine within an iteration
  };
  for (const auto& [key, list] : accesses) {
    bool written = std::any_of(list.begin(), list.end(), [](const Access& a) { return a.write; });
    if (!written) continue;
    for (size_t p = 0; p < list.size(); ++p)
      for (size_t q = 0; q < list.size(); ++q) {
        const Access& a = list[p];
        const Access& b = list[q];
        if (!a.write && !b.write) continue;
        if (p < q && a.inst != b.inst) edges.push_back({a.inst, b.inst, pairLatency(a, b, 0), 0});
        edges.push_back({a.inst, b.inst, pairLatency(a, b, 1), 1});
      }
  }
  // A loop-carried value is computed into a register of its own and copied back at the end (x = copy
  // x_next): the allocator can give both one register, so that the copy disappears, only if x_next (and
  // what it is copied through) is written after the last read of x.
  std::map<uint64_t, int> definer;
  for (int i = 0; i < n; ++i)
    if (body[static_cast<size_t>(i)].dst.valid()) {
      uint64_t k = regKey(body[static_cast<size_t>(i)].dst);
      definer[k] = definer.count(k) ? -1 : i;
    }
  for (int c = 0; c < n; ++c) {
    const MInst& copy = body[static_cast<size_t>(c)];
    if (!copy.copy || !copy.src[0].isReg()) continue;
    const auto& reads = accesses[regKey(copy.dst)];
    for (int d = c, hops = 0; hops < 4; ++hops) {
      const MInst& link = body[static_cast<size_t>(d)];
      if (!link.src[0].isReg()) break;
      auto it = definer.find(regKey(link.src[0].reg));
      if (it == definer.end() || it->second < 0) break;
      d = it->second;
      for (const Access& r : reads)
        if (!r.write && r.inst < c && r.inst != d) edges.push_back({r.inst, d, r.inst < d ? 0 : 1, 0});
      if (!body[static_cast<size_t>(d)].copy) break;
    }
  }
  for (int i = 0; i < n; ++i) {
    const MInst& a = body[static_cast<size_t>(i)];
    int m = memoryKey(a);
    if (m < 0) continue;
    for (int j = 0; j < n; ++j) {
      const MInst& b = body[static_cast<size_t>(j)];
      if (memoryKey(b) != m || (!writesMemory(a) && !writesMemory(b))) continue;
      if (i < j && !disjointWithin(a, b)) edges.push_back({i, j, writesMemory(a) ? 1 : 0, 0});
      if (!disjointAcross(a, b)) edges.push_back({i, j, 1, 1});
    }
  }
  return edges;
}

// Earliest times that satisfy every dependence at this II, or empty when a recurrence does not fit.
std::vector<int> earliest(int n, const std::vector<Edge>& edges, int ii) {
  std::vector<int> t(static_cast<size_t>(n), 0);
  for (int round = 0; round <= n; ++round) {
    bool changed = false;
    for (const Edge& e : edges) {
      int v = t[static_cast<size_t>(e.from)] + e.latency - e.distance * ii;
      if (v > t[static_cast<size_t>(e.to)]) {
        t[static_cast<size_t>(e.to)] = v;
        changed = true;
      }
    }
    if (!changed) return t;
  }
  return {};
}

// One attempt at II: times per instruction, or empty.
std::vector<int> scheduleAt(const std::vector<MInst>& body, const std::vector<Edge>& edges, int ii) {
  const int n = static_cast<int>(body.size());
  std::vector<int> asap = earliest(n, edges, ii);
  if (asap.empty()) return {};
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return asap[static_cast<size_t>(a)] < asap[static_cast<size_t>(b)]; });
  std::vector<std::vector<Edge>> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (const Edge& e : edges) {
    in[static_cast<size_t>(e.to)].push_back(e);
    out[static_cast<size_t>(e.from)].push_back(e);
  }
  std::vector<std::array<bool, isa::kNumSlots>> table(static_cast<size_t>(ii));
  for (auto& row : table) row.fill(false);
  std::vector<int> t(static_cast<size_t>(n), -1);
  for (int i : order) {
    const MInst& mi = body[static_cast<size_t>(i)];
    int lo = 0, hi = 1 << 20;
    for (const Edge& e : in[static_cast<size_t>(i)])
      if (t[static_cast<size_t>(e.from)] >= 0) lo = std::max(lo, t[static_cast<size_t>(e.from)] + e.latency - e.distance * ii);
    for (const Edge& e : out[static_cast<size_t>(i)])
      if (t[static_cast<size_t>(e.to)] >= 0) hi = std::min(hi, t[static_cast<size_t>(e.to)] - e.latency + e.distance * ii);
    const int slot = static_cast<int>(isa::insnInfo(mi.op).slot);
    const bool free = mi.copy;  // copies are expected to coalesce away
    int at = -1;
    for (int c = lo; c <= std::min(hi, lo + ii - 1); ++c)
      if (free || !table[static_cast<size_t>(c % ii)][static_cast<size_t>(slot)]) {
        at = c;
        break;
      }
    if (at < 0) return {};
    if (!free) table[static_cast<size_t>(at % ii)][static_cast<size_t>(slot)] = true;
    t[static_cast<size_t>(i)] = at;
  }
  return t;
}

// A copy of `mi` as the instance of iteration `r` (relative to the others in the same block): accesses
// of different iterations get coordinates that tell them apart (or none they could be confused by).
MInst instance(const MInst& mi, int r) {
  MInst c = mi;
  if (c.coordBase && r) {
    if (c.coordStep)
      c.coordOffset += static_cast<int64_t>(r) * c.coordStep;
    else
      c.coordBase = c.coordBase * 1000003u + static_cast<uint64_t>(r) + 1;
  }
  return c;
}

void remapBlocks(MFunction& mf, int at, int count) {
  auto shift = [&](int& b) {
    if (b >= at) b += count;
  };
  for (MBlock& b : mf.blocks) {
    shift(b.condTarget);
    shift(b.next);
    shift(b.loopBody);
  }
}

// Whether the body may be modulo scheduled at all.
bool eligible(const MFunction& mf, int pre, int body) {
  const MBlock& p = mf.blocks[static_cast<size_t>(pre)];
  const MBlock& b = mf.blocks[static_cast<size_t>(body)];
  if (p.condTarget >= 0 || !b.bodyIter.valid() || b.condTarget >= 0 || b.insts.size() < 2 || b.insts.size() > 400)
    return false;
  for (const MInst& mi : b.insts) {
    bool readsIter = false;
    forEachRead(mi, [&](const Reg& r) { readsIter |= r == b.bodyIter; });
    // The iterator would be another iteration's in later stages; prints keep their order more simply
    // without overlap.
    if (readsIter || mi.dst == b.bodyIter || memoryKey(mi) == 300) return false;
  }
  return true;
}

}  // namespace

int moduloScheduleLoops(MFunction& mf) {
  int done = 0;
  const bool debug = std::getenv("TPC_DEBUG_MODSCHED") != nullptr;
  if (const char* off = std::getenv("TPC_MODSCHED"); off && std::string(off) == "0") return 0;
  for (int pre = 0; pre < static_cast<int>(mf.blocks.size()); ++pre) {
    const int body = mf.blocks[static_cast<size_t>(pre)].loopBody;
    if (body < 0 || !eligible(mf, pre, body)) continue;
    const std::vector<MInst> insts = mf.blocks[static_cast<size_t>(body)].insts;
    const int n = static_cast<int>(insts.size());
    std::vector<Edge> edges = dependences(insts);
    // The slot bound.
    std::array<int, isa::kNumSlots> perSlot{};
    for (const MInst& mi : insts)
      if (!mi.copy) ++perSlot[static_cast<size_t>(isa::insnInfo(mi.op).slot)];
    int resMii = std::max(1, *std::max_element(perSlot.begin(), perSlot.end()));
    // Beyond the slot bound plus the body's critical path, overlapping iterations gains nothing.
    int flat = 0;
    {
      std::vector<int> t = earliest(n, edges, 1 << 16);
      for (int i = 0; i < n; ++i) flat = std::max(flat, t[static_cast<size_t>(i)] + latency(insts[static_cast<size_t>(i)]));
    }
    std::vector<int> t;
    int ii = resMii;
    for (; ii < resMii + flat; ++ii)
      if (!(t = scheduleAt(insts, edges, ii)).empty()) break;
    if (t.empty()) continue;
    int last = *std::max_element(t.begin(), t.end());
    const int stages = last / ii + 1;
    if (debug)
      std::fprintf(stderr, "tpc-clang: modulo schedule of block %d: %d instructions, II %d (slot bound %d), %d stages\n",
                   body, n, ii, resMii, stages);
    if (stages < 2) continue;  // nothing overlaps: the list scheduler does as well
    auto stage = [&](int i) { return t[static_cast<size_t>(i)] / ii; };

    // Kernel: by t mod II, then program order.
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return t[static_cast<size_t>(a)] % ii < t[static_cast<size_t>(b)] % ii; });
    std::vector<MInst> kernel;
    for (int i : order) kernel.push_back(instance(insts[static_cast<size_t>(i)], -stage(i)));
    // Prologue and epilogue: instances (r, i) by time r * II + t_i, then iteration, then program order.
    auto straight = [&](bool prologue) {
      std::vector<std::tuple<int, int, int>> keys;
      for (int r = 0; r <= stages - 2; ++r)
        for (int i = 0; i < n; ++i) {
          bool early = r + stage(i) <= stages - 2;
          if (early == prologue) keys.emplace_back(r * ii + t[static_cast<size_t>(i)], r, i);
        }
      std::sort(keys.begin(), keys.end());
      std::vector<MInst> out;
      for (auto [time, r, i] : keys) out.push_back(instance(insts[static_cast<size_t>(i)], r));
      return out;
    };
    std::vector<MInst> prologue = straight(true), epilogue = straight(false);

    MBlock original = mf.blocks[static_cast<size_t>(body)];
    const int exit = original.next;
    MBlock& p = mf.blocks[static_cast<size_t>(pre)];
    const Reg q = p.loopCount;
    // P: too few iterations for the prologue -> the original loop.
    Reg few = mf.newVirtual(RegFile::SP);
    MInst cmp;
    cmp.op = InsnId::SpuCmpLess;
    cmp.dtype = DType::I32;
    cmp.dst = few;
    cmp.src[0] = MOperand::ofReg(q);
    cmp.src[1] = MOperand::ofImm(static_cast<uint32_t>(stages - 1));
    p.insts.push_back(cmp);
    Reg count = mf.newVirtual(RegFile::S);
    MInst sub;
    sub.op = InsnId::SpuSub;
    sub.dtype = DType::I32;
    sub.dst = count;
    sub.src[0] = MOperand::ofReg(q);
    sub.src[1] = MOperand::ofImm(static_cast<uint32_t>(stages - 1));
    p.insts.push_back(sub);
    MBlock fallbackPre;  // F
    fallbackPre.loopBody = -1;  // set below
    fallbackPre.loopCount = q;
    fallbackPre.loopZero = p.loopZero;
    fallbackPre.loopIter = p.loopIter;
    fallbackPre.endLoc = p.endLoc;
    MBlock kernelPre;  // P2
    kernelPre.loopCount = count;
    kernelPre.loopZero = p.loopZero;
    kernelPre.loopIter = mf.newVirtual(RegFile::S);
    kernelPre.endLoc = p.endLoc;
    p.loopBody = -1;
    p.loopCount = p.loopZero = p.loopIter = Reg{};

    // Layout: P, PRO, P2, K, EPI, F, B, E: the blocks from B on move five down.
    remapBlocks(mf, body, 5);
    const int newExit = exit >= body ? exit + 5 : exit;
    MBlock& p0 = mf.blocks[static_cast<size_t>(pre)];
    p0.condPred = few;
    p0.condNegate = false;
    p0.condTarget = body + 4;  // F
    p0.next = body;            // PRO
    MBlock pro;
    pro.insts = prologue;
    pro.next = body + 1;
    kernelPre.loopBody = body + 2;
    kernelPre.next = body + 2;
    MBlock k = original;
    k.insts = kernel;
    k.bodyIter = kernelPre.loopIter;
    k.next = body + 3;
    MBlock epi;
    epi.insts = epilogue;
    epi.next = newExit;
    fallbackPre.loopBody = body + 5;
    fallbackPre.next = body + 5;
    MBlock& b = mf.blocks[static_cast<size_t>(body)];
    b.next = newExit;
    mf.blocks.insert(mf.blocks.begin() + body, {pro, kernelPre, k, epi, fallbackPre});
    pre = body + 5;
    ++done;
  }
  return done;
}

}  // namespace tpc::cc
