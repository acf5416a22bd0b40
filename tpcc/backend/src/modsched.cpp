// Modulo scheduling of hardware loop bodies (machine IR, after immediates are legal, before register
// allocation).
//
// Iterative modulo scheduling (Rau): the initiation interval II starts at the slot bound (the busiest of
// the load, scalar, vector and store slots) and grows until every instruction of the body has a cycle t
// whose row t mod II of the reservation table has its slot free and that keeps every dependence
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
//     P:    ... when q < S - 1 go to F (never with S = 2: a hardware loop runs at least once)
//     PRO:  stages 0..S-2-r of iterations r = 0..S-2, by time r*II + t
//     P2:   loop q - (S - 1) times (the iterator from S - 1 up to q) -> K
//     K:    every instruction once, by t mod II; stage s works on iteration (pass - s)
//     EPI:  the remaining stages of the last S - 1 iterations; go to E
//     F:    loop q times -> B (the original body, for trip counts too small for the prologue)
//     B
//     E
//
// S is the number of stages (the largest t over II, plus one). Where the iterative scheduler fails near
// the slot bound, the swing scheduler (swing_schedule.cpp) tries the same II; where both fail, the
// iterative one again with the body's independent parts one after another. See docs/decisions.md.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>

#include <llvm/ADT/STLExtras.h>

#include "modulo_graph.h"
#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

using isa::InsnId;

using Edge = ModuloEdge;

// The swing scheduler's path table grows with the square of the body, its setup with the cube.
constexpr int kSwingMaxInstructions = 160;

// IIs tried one after another before the search for one that works takes growing steps: at least this
// many, and every II up to a third above the first (schedules that fit are not monotonic in II: a larger
// one may need a stage less and keep more values alive at once).
constexpr int kIiStepsOneByOne = 32;

uint64_t regKey(const Reg& r) { return moduloRegKey(r); }

template <class F> void forEachRead(const MInst& mi, F f) { forEachModuloRead(mi, f); }

int latency(const MInst& mi) { return isa::insnInfo(mi.op).latency; }

// Memory an instruction touches: tensor N -> N, local -> 100, global -> 200, printf -> 300, the core's
// state (random stream, MMIO registers: isa::touchesCoreState, kept in program order) -> 400; -1 none.
int memoryKey(const MInst& mi) {
  if (isa::touchesCoreState(mi.op, mi.sw)) return 400;
  if (isa::accessesTensorData(mi.op)) return static_cast<int>(isa::switchField(isa::SwitchField::Tensor).get(mi.sw));
  switch (mi.op) {
    case InsnId::LdL: case InsnId::LdLV: case InsnId::StL: case InsnId::StLV: return 100;
    case InsnId::LdG: case InsnId::LdGV: case InsnId::StG: case InsnId::StGV: return 200;
    case InsnId::SpuPrintfStr: case InsnId::SpuPrintf: case InsnId::SpuPrintfLane: return 300;
    default: return -1;
  }
}

// A tensor's data is global memory: a global access may touch any tensor.
bool sameMemory(int a, int b) {
  auto isTensor = [](int k) { return k >= 0 && k < 100; };
  return a == b || (a == 200 && isTensor(b)) || (b == 200 && isTensor(a));
}

bool writesMemory(const MInst& mi) {
  return isa::insnInfo(mi.op).slot == isa::Slot::Store || memoryKey(mi) == 300 || memoryKey(mi) == 400;
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

// `expandable`: registers whose final values' reads need not come before the next iteration's writes
// (expandLifetimes carries those values on).
std::vector<Edge> dependences(const std::vector<MInst>& body,
                              const std::map<uint64_t, ExpandableValue>& expandable = {}) {
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
    // A copy is expected to coalesce away: counting it with one cycle in and one out keeps the order
    // without adding to the chain through it.
    if (a.write) return x.copy ? 1 : y.copy ? std::max(1, latency(x) - 1) : latency(x);
    return distance;  // a read before a write: the same bundle is fine within an iteration
  };
  for (const auto& [key, list] : accesses) {
    bool written = std::any_of(list.begin(), list.end(), [](const Access& a) { return a.write; });
    if (!written) continue;
    const auto renamed = expandable.find(key);
    for (size_t p = 0; p < list.size(); ++p)
      for (size_t q = 0; q < list.size(); ++q) {
        const Access& a = list[p];
        const Access& b = list[q];
        if (!a.write && !b.write) continue;
        // A read of the final value before a later iteration's write: copies carry the value instead. A
        // copy (the two-address form of an instruction, a carried value's copy back, a bit cast) keeps
        // the rule, so that it may coalesce with its source (modulo_expansion.cpp).
        if (renamed != expandable.end() && !a.write && b.write && a.inst > renamed->second.lastDef &&
            !body[static_cast<size_t>(a.inst)].copy)
          continue;
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
      if (!sameMemory(memoryKey(b), m) || (!writesMemory(a) && !writesMemory(b))) continue;
      if (i < j && !disjointWithin(a, b)) edges.push_back({i, j, writesMemory(a) ? 1 : 0, 0});
      if (!disjointAcross(a, b)) edges.push_back({i, j, 1, 1});
    }
  }
  // A value updated in place (a copy, then accumulating writes) must reach its final write early enough
  // before the next iteration's first write of its register (or of the copy's source, which it shares
  // once they coalesce) that a copy can still take it on (modulo_expansion.cpp).
  for (const auto& [key, value] : expandable)
    if (value.lastDef != value.origin)
      edges.push_back({value.lastDef, value.origin, latency(body[static_cast<size_t>(value.lastDef)]) + 2, 1});
  // In program order of their sources: most edges point forward, so the longest-path passes over them
  // (earliestTimes) settle in a few rounds.
  std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.from < b.from; });
  return edges;
}

// Instructions joined into parts (union-find).
struct Components {
  std::vector<int> parent;
  explicit Components(int n) : parent(static_cast<size_t>(n)) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    return x;
  }
  void join(int a, int b) { parent[static_cast<size_t>(find(a))] = find(b); }
};

// The vector chains of a body: instructions joined by vector values passed within an iteration (the
// unrolled copies of an elementwise computation are separate chains; the coordinates they share are not
// vector values). Returns each instruction's chain rank: 0 for instructions in no chain of at least
// `minSize`, then 1, 2, ... by the chains' first instruction.
std::vector<int> vectorChainRanks(const std::vector<MInst>& body, const std::vector<Edge>& edges, int minSize,
                                  bool splitShortStarts, bool splitShortEnds) {
  const int n = static_cast<int>(body.size());
  Components parts(n);
  const auto vectorEdge = [&](const Edge& e) {
    const Reg& d = body[static_cast<size_t>(e.from)].dst;
    return e.distance == 0 && e.from != e.to && d.valid() && (d.file == RegFile::V || d.file == RegFile::VP);
  };
  // With splitShortStarts, a short shared start (a load and the convert that splits it in two halves) does
  // not join the chains it feeds: an instruction with at most two vector ancestors and more than one
  // reader is left out; with splitShortEnds, likewise a short shared end (the convert that packs two
  // halves, and the store): at most two vector descendants and more than one vector source.
  std::vector<std::set<int>> ancestors(static_cast<size_t>(n)), descendants(static_cast<size_t>(n));
  std::vector<int> readers(static_cast<size_t>(n), 0), sources(static_cast<size_t>(n), 0);
  for (int round = 0; round < 4; ++round)  // edges mostly point forward: a few passes settle short ones
    for (const Edge& e : edges) {
      if (!vectorEdge(e)) continue;
      auto& up = ancestors[static_cast<size_t>(e.to)];
      if (up.size() <= 3) {
        up.insert(e.from);
        up.insert(ancestors[static_cast<size_t>(e.from)].begin(), ancestors[static_cast<size_t>(e.from)].end());
      }
      auto& down = descendants[static_cast<size_t>(e.from)];
      if (down.size() <= 3) {
        down.insert(e.to);
        down.insert(descendants[static_cast<size_t>(e.to)].begin(), descendants[static_cast<size_t>(e.to)].end());
      }
    }
  for (const Edge& e : edges)
    if (vectorEdge(e)) ++readers[static_cast<size_t>(e.from)], ++sources[static_cast<size_t>(e.to)];
  const auto shortStart = [&](int i) {
    return readers[static_cast<size_t>(i)] > 1 && ancestors[static_cast<size_t>(i)].size() <= 2;
  };
  const auto shortEnd = [&](int i) {
    return sources[static_cast<size_t>(i)] > 1 && descendants[static_cast<size_t>(i)].size() <= 2;
  };
  for (const Edge& e : edges)
    if (vectorEdge(e) && !(splitShortStarts && shortStart(e.from)) && !(splitShortEnds && shortEnd(e.to)))
      parts.join(e.from, e.to);
  std::map<int, int> size, rank;
  for (int i = 0; i < n; ++i) ++size[parts.find(i)];
  std::vector<int> ranks(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const int root = parts.find(i);
    if (size[root] < minSize) continue;
    auto it = rank.find(root);
    if (it == rank.end()) it = rank.emplace(root, static_cast<int>(rank.size()) + 1).first;
    ranks[static_cast<size_t>(i)] = it->second;
  }
  return ranks;
}

// Ranks of the body's independent parts: instructions joined by values passed within an iteration (a
// register written and read), numbered by their first instruction in program order. Scheduled part by
// part, each part's chain takes the rows of the reservation table the parts before it left, where by
// height every part's first instructions come first and compete for the same rows: with three slots
// full (the narrowing casts' 16 rows side by side: 32 loads, 32 conversions, 32 coordinate adds), the
// holes that leaves cannot be filled (II 36 against 33).
std::vector<int> dataComponentRanks(const std::vector<MInst>& body, const std::vector<Edge>& edges) {
  const int n = static_cast<int>(body.size());
  Components parts(n);
  for (const Edge& e : edges) {
    if (e.from == e.to) continue;
    const MInst& from = body[static_cast<size_t>(e.from)];
    bool flows = false;
    if (from.dst.valid()) forEachModuloRead(body[static_cast<size_t>(e.to)], [&](const Reg& r) { flows |= r == from.dst; });
    if (flows) parts.join(e.from, e.to);
  }
  std::map<int, int> rank;
  std::vector<int> ranks(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    auto it = rank.find(parts.find(i));
    if (it == rank.end()) it = rank.emplace(parts.find(i), static_cast<int>(rank.size()) + 1).first;
    ranks[static_cast<size_t>(i)] = it->second;
  }
  return ranks;
}

// One attempt at II (Rau's iterative modulo scheduling): instructions by height, each at the first
// cycle from its earliest start whose slot is free in the reservation table, else forced in, evicting
// what it conflicts with (the slot's holder, successors it now comes too late for); a budget of steps.
// With `chains` (vectorChainRanks), a chain's instructions all come before the next chain's: by height
// alone the copies of a long computation advance side by side, each at the same point of its chain at
// the same cycle, so that the registers they hold peak together; one chain after another, each takes
// the free slots after the previous one's and the peaks are spread over II. Returns times per
// instruction, or empty.
std::vector<int> scheduleAt(const std::vector<MInst>& body, const std::vector<Edge>& edges, int ii,
                            const std::vector<int>* chains = nullptr) {
  const int n = static_cast<int>(body.size());
  const auto at = [](auto& v, int i) -> auto& { return v[static_cast<size_t>(i)]; };
  std::vector<int> asap = earliestTimes(n, edges, ii);
  if (asap.empty()) return {};  // a recurrence does not fit
  std::vector<int> height(static_cast<size_t>(n), 0);
  for (int round = 0; round <= n; ++round) {
    bool changed = false;
    for (const Edge& e : llvm::reverse(edges)) {  // heights flow backwards: from the last source first
      int h = e.latency - e.distance * ii + at(height, e.to);
      if (h > at(height, e.from)) {
        at(height, e.from) = h;
        changed = true;
      }
    }
    if (!changed) break;
  }
  std::vector<std::vector<Edge>> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (const Edge& e : edges) {
    at(in, e.to).push_back(e);
    at(out, e.from).push_back(e);
  }
  std::vector<std::array<int, isa::kNumSlots>> table(static_cast<size_t>(ii));
  for (auto& row : table) row.fill(-1);
  std::vector<int> t(static_cast<size_t>(n), -1), last(static_cast<size_t>(n), -1);
  // Unscheduled instructions by priority: the highest first, then the earliest, then program order.
  std::set<std::tuple<int, int, int, int>> waiting;
  const auto priority = [&](int i) { return std::make_tuple(chains ? at(*chains, i) : 0, -at(height, i), at(asap, i), i); };
  for (int i = 0; i < n; ++i) waiting.insert(priority(i));
  auto unschedule = [&](int i) {
    const int slot = static_cast<int>(isa::insnInfo(at(body, i).op).slot);
    if (!at(body, i).copy) table[static_cast<size_t>(at(t, i) % ii)][static_cast<size_t>(slot)] = -1;
    at(t, i) = -1;
    waiting.insert(priority(i));
  };
  for (int budget = 8 * n;; --budget) {
    if (waiting.empty()) break;
    if (budget == 0) return {};
    const int i = std::get<3>(*waiting.begin());
    waiting.erase(waiting.begin());
    const MInst& mi = at(body, i);
    int lo = 0;
    for (const Edge& e : at(in, i))
      if (e.from != i && at(t, e.from) >= 0) lo = std::max(lo, at(t, e.from) + e.latency - e.distance * ii);
    const int slot = static_cast<int>(isa::insnInfo(mi.op).slot);
    const bool free = mi.copy;  // copies are expected to coalesce away
    int when = -1;
    for (int c = lo; c < lo + ii && when < 0; ++c)
      if (free || table[static_cast<size_t>(c % ii)][static_cast<size_t>(slot)] < 0) when = c;
    if (when < 0) when = at(last, i) < 0 || lo > at(last, i) ? lo : at(last, i) + 1;
    if (!free)
      if (int holder = table[static_cast<size_t>(when % ii)][static_cast<size_t>(slot)]; holder >= 0) unschedule(holder);
    for (const Edge& e : at(out, i))
      if (e.to != i && at(t, e.to) >= 0 && at(t, e.to) < when + e.latency - e.distance * ii) unschedule(e.to);
    at(t, i) = at(last, i) = when;
    if (!free) table[static_cast<size_t>(when % ii)][static_cast<size_t>(slot)] = i;
  }
  // No stage left empty at the start.
  const int shift = *std::min_element(t.begin(), t.end()) / ii * ii;
  for (int& x : t) x -= shift;
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

// The fallback loop's body is the loop body before scheduling, with the kernel's virtual registers. A value
// that lives within one iteration of it (written before any read, and named nowhere outside the loop's
// blocks) gets registers of its own there: otherwise the values the kernel's overlapping stages keep
// apart stay apart in the fallback loop too, and copies the allocator could join there remain (a chain
// of tied writes then pays each copy's latency).
void renameFallbackLocals(MFunction& mf, int body, std::vector<MInst>& fallback) {
  // Without copies there is nothing to join, and new names would only move the allocator's choices.
  if (std::none_of(fallback.begin(), fallback.end(), [](const MInst& mi) { return mi.copy; })) return;
  std::set<uint64_t> elsewhere, seen;
  auto note = [&](const Reg& r) {
    if (r.valid()) elsewhere.insert(regKey(r));
  };
  for (size_t b = 0; b < mf.blocks.size(); ++b) {
    const MBlock& blk = mf.blocks[b];
    for (const Reg& r : {blk.condPred, blk.loopCount, blk.loopZero, blk.loopIter, blk.bodyIter}) note(r);
    if (static_cast<int>(b) == body) continue;
    for (const MInst& mi : blk.insts) {
      note(mi.dst);
      note(mi.pred);
      for (const MOperand& o : mi.src)
        if (o.isReg()) note(o.reg);
      for (const auto& v : mi.variables) note(v.second);
    }
  }
  for (const auto& pc : mf.precolored) note(pc.first);
  std::map<uint64_t, Reg> fresh;
  for (const MInst& mi : fallback) {
    forEachRead(mi, [&](const Reg& r) { seen.insert(regKey(r)); });
    if (!mi.dst.valid()) continue;
    const uint64_t k = regKey(mi.dst);
    // A predicated write keeps the old value where its predicate is false: a read.
    if (!mi.dst.physical && !mi.pred.valid() && !seen.count(k) && !elsewhere.count(k))
      fresh.emplace(k, mf.newVirtual(mi.dst.file));
    seen.insert(k);
  }
  auto rename = [&](Reg& r) {
    if (auto it = fresh.find(regKey(r)); r.valid() && it != fresh.end()) r = it->second;
  };
  for (MInst& mi : fallback) {
    rename(mi.dst);
    rename(mi.pred);
    for (MOperand& o : mi.src)
      if (o.isReg()) rename(o.reg);
    for (auto& v : mi.variables) rename(v.second);
  }
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

int slotBound(const std::vector<MInst>& insts) {
  std::array<int, isa::kNumSlots> perSlot{};
  for (const MInst& mi : insts)
    if (!mi.copy) ++perSlot[static_cast<size_t>(isa::insnInfo(mi.op).slot)];
  return std::max(1, *std::max_element(perSlot.begin(), perSlot.end()));
}

// A coordinate induction variable (R = copy X at the end, X = i_add S, R or i_sub R, S) read by loads
// early in an iteration and by stores late in it holds its register from the first load to the last
// store, and the next iteration's loads wait for its update: a recurrence as long as the iteration. When that comes
// close to the slot bound and the scalar slot has room, the stores get an induction variable of their own
// (one more index-register add per iteration), which breaks the recurrence in two short ones.
// Returns how many it split; `extraRoom` lets the scalar slot exceed the slot bound by that much.
int splitCoordinateIvs(MFunction& mf, int pre, int body, int extraRoom) {
  std::vector<MInst>& insts = mf.blocks[static_cast<size_t>(body)].insts;
  const int n = static_cast<int>(insts.size());
  const int bound = slotBound(insts);
  int room = bound + extraRoom;
  for (const MInst& mi : insts) room -= isa::insnInfo(mi.op).slot == isa::Slot::Spu && !mi.copy;
  struct Iv {
    int copy, add;
    int span;
  };
  std::vector<Iv> ivs;
  std::vector<int> asap = earliestTimes(n, dependences(insts), 1 << 16);
  for (int c = 0; c < n; ++c) {
    const MInst& cp = insts[static_cast<size_t>(c)];
    if (!cp.copy || cp.dst.file != RegFile::I || !cp.src[0].isReg() || cp.pred.valid()) continue;
    int add = -1, firstLoad = 1 << 30, lastStore = -1, writes = 0;
    for (int i = 0; i < n; ++i) {
      const MInst& mi = insts[static_cast<size_t>(i)];
      if (mi.dst == cp.dst) ++writes;
      // X = i_add S, R or X = i_sub R, S (the kernels' row walk subtracts a step it picks each iteration).
      const int ivOperand = mi.op == InsnId::SpuIAdd ? 1 : mi.op == InsnId::SpuISub ? 0 : -1;
      if (mi.dst == cp.src[0].reg && ivOperand >= 0 && mi.src[ivOperand].isReg() && mi.src[ivOperand].reg == cp.dst &&
          !mi.pred.valid())
        add = i;
      if (mi.src[0].isReg() && mi.src[0].reg == cp.dst && memoryKey(mi) >= 0 && memoryKey(mi) != 400) {
        if (writesMemory(mi))
          lastStore = std::max(lastStore, asap[static_cast<size_t>(i)]);
        else
          firstLoad = std::min(firstLoad, asap[static_cast<size_t>(i)]);
      }
    }
    if (add < 0 || writes != 1 || lastStore < 0 || firstLoad > lastStore) continue;
    // The stores' variable takes the same step: its update goes right after X's, so it reads the step
    // X did, invariant or not. Tight: within a quarter of the slot bound (the scheduler rarely packs that
    // close).
    if (4 * (lastStore - firstLoad + 2) > 3 * bound) ivs.push_back({c, add, lastStore - firstLoad});
  }
  std::stable_sort(ivs.begin(), ivs.end(), [](const Iv& a, const Iv& b) { return a.span > b.span; });
  if (static_cast<int>(ivs.size()) > room) ivs.resize(static_cast<size_t>(std::max(0, room)));
  if (ivs.empty()) return 0;
  // The new instructions go right after their models; inserted from the back, indices stay valid.
  std::vector<std::pair<int, MInst>> inserts;
  MBlock& p = mf.blocks[static_cast<size_t>(pre)];
  for (const Iv& iv : ivs) {
    const Reg r = insts[static_cast<size_t>(iv.copy)].dst;
    const Reg r2 = mf.newVirtual(RegFile::I), x2 = mf.newVirtual(RegFile::I);
    MInst init = insts[static_cast<size_t>(iv.copy)];
    init.dst = r2;
    init.src[0] = MOperand::ofReg(r);
    init.copy = false;  // both live through the loop
    init.variables.clear();
    p.insts.push_back(init);
    MInst add2 = insts[static_cast<size_t>(iv.add)];
    add2.dst = x2;
    add2.src[add2.op == InsnId::SpuIAdd ? 1 : 0] = MOperand::ofReg(r2);
    add2.variables.clear();
    MInst copy2 = insts[static_cast<size_t>(iv.copy)];
    copy2.dst = r2;
    copy2.src[0] = MOperand::ofReg(x2);
    copy2.variables.clear();
    inserts.emplace_back(iv.add + 1, add2);
    inserts.emplace_back(iv.copy + 1, copy2);
    for (MInst& mi : insts)
      if (writesMemory(mi) && mi.src[0].isReg() && mi.src[0].reg == r) mi.src[0].reg = r2;
  }
  std::stable_sort(inserts.begin(), inserts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [at, mi] : inserts) insts.insert(insts.begin() + at, mi);
  return static_cast<int>(ivs.size());
}

// Registers are not renamed between iterations, so a value must be read for the last time before the
// next iteration writes it: a value read by many instructions of one slot (matmul's a[m, k], one scalar
// for the F macs of the jammed copies) is live for at least its latency plus one cycle per reader, and when
// that reaches the slot bound it bounds the II instead. A copy made as soon as the value lands serves the
// later half of the readers; each register then lives half as long (one scalar- or vector-slot move).
void splitWideReads(MFunction& mf, int body) {
  std::vector<MInst>& insts = mf.blocks[static_cast<size_t>(body)].insts;
  const int bound = slotBound(insts);
  std::map<uint64_t, int> defs;  // register -> its one definition in the body (-1: more)
  for (int i = 0; i < static_cast<int>(insts.size()); ++i)
    if (insts[static_cast<size_t>(i)].dst.valid()) {
      const uint64_t k = regKey(insts[static_cast<size_t>(i)].dst);
      defs[k] = defs.count(k) ? -1 : i;
    }
  std::vector<std::pair<int, MInst>> inserts;
  for (auto [key, def] : defs) {
    if (def < 0) continue;
    const MInst& d = insts[static_cast<size_t>(def)];
    if (d.copy || d.pred.valid() || (d.dst.file != RegFile::S && d.dst.file != RegFile::V)) continue;
    std::map<isa::Slot, std::vector<int>> readers;
    for (int i = def + 1; i < static_cast<int>(insts.size()); ++i) {
      const MInst& mi = insts[static_cast<size_t>(i)];
      bool reads = false;
      for (const MOperand& o : mi.src) reads |= o.isReg() && o.reg == d.dst;
      if (reads) readers[isa::insnInfo(mi.op).slot].push_back(i);
      if (mi.dst == d.dst) break;
    }
    for (auto& [slot, rs] : readers) {
      if (rs.size() < 4 || latency(d) + static_cast<int>(rs.size()) - 1 < bound) continue;
      const Reg copy = mf.newVirtual(d.dst.file);
      MInst mov;
      mov.op = d.dst.file == RegFile::S ? InsnId::SpuMov : InsnId::VpuMov;
      mov.dtype = DType::I32;
      mov.dst = copy;
      mov.src[0] = MOperand::ofReg(d.dst);
      mov.loc = d.loc;
      for (size_t k = rs.size() / 2; k < rs.size(); ++k)
        for (MOperand& o : insts[static_cast<size_t>(rs[k])].src)
          if (o.isReg() && o.reg == d.dst) o.reg = copy;
      inserts.emplace_back(def + 1, mov);
      break;
    }
  }
  std::stable_sort(inserts.begin(), inserts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [at, mi] : inserts) insts.insert(insts.begin() + at, mi);
}

// TPC_DEBUG_RECURRENCE: the longest loop-carried cycles of the dependence graph, each a distance-1 edge
// closed by the longest same-iteration path, with the edge's two instructions.
void printLongestRecurrences(const std::vector<MInst>& insts, const std::vector<Edge>& edges) {
  const int n = static_cast<int>(insts.size());
  std::vector<std::tuple<int, int, int>> cycles;
  for (const Edge& back : edges) {
    if (back.distance != 1) continue;
    std::vector<int> dist(static_cast<size_t>(n), -1);
    dist[static_cast<size_t>(back.to)] = 0;
    for (int round = 0; round < n; ++round) {
      bool changed = false;
      for (const Edge& e : edges)
        if (e.distance == 0 && dist[static_cast<size_t>(e.from)] >= 0 &&
            dist[static_cast<size_t>(e.from)] + e.latency > dist[static_cast<size_t>(e.to)]) {
          dist[static_cast<size_t>(e.to)] = dist[static_cast<size_t>(e.from)] + e.latency;
          changed = true;
        }
      if (!changed) break;
    }
    if (dist[static_cast<size_t>(back.from)] >= 0)
      cycles.emplace_back(dist[static_cast<size_t>(back.from)] + back.latency, back.from, back.to);
  }
  std::sort(cycles.rbegin(), cycles.rend());
  MFunction pair;
  pair.blocks.push_back(MBlock{});
  for (size_t k = 0; k < std::min<size_t>(cycles.size(), 6); ++k) {
    auto [length, from, to] = cycles[k];
    pair.blocks[0].insts = {insts[static_cast<size_t>(from)], insts[static_cast<size_t>(to)]};
    std::fprintf(stderr, "    cycle of %d: back edge %d -> %d\n%s", length, from, to, printMir(pair).c_str());
  }
}

// The first register file whose live registers (maxLive) exceed what allocation may hand out, or None.
// `margin`: registers of each file to leave free (the figure is a lower bound of what allocation needs).
RegFile tooFewRegisters(const std::array<int, 8>& live, int margin) {
  for (RegFile f : {RegFile::V, RegFile::S, RegFile::I, RegFile::VP, RegFile::SP}) {
    const int reserved = f == RegFile::I ? 2 : f == RegFile::SP ? 1 : 0;  // i0, i1; sp0
    if (live[static_cast<size_t>(f)] > isa::regFileSize(f) - reserved - margin) return f;
  }
  return RegFile::None;
}

// The fallback loop's body: in program order, unless that keeps more vectors alive than the core has (a
// body that makes 44 products before it sums them); then in the order of one iteration of the modulo
// schedule (by cycle, then program order; every dependence within an iteration holds there), which needs
// at most what the schedule keeps live. Program order is kept where it fits: the order the list scheduler
// starts from changes the registers allocation picks, and with them the bundles (softmax_bwd bf16 took 10%
// longer with its fallback loop in schedule order). Judged on vectors alone: a flat body's figure for index
// registers is far above what allocation needs (34 for softmax, which allocates).
std::vector<MInst> fallbackBody(const std::vector<MInst>& body, const std::vector<int>& times) {
  const int n = static_cast<int>(body.size());
  std::vector<int> position(body.size());
  std::iota(position.begin(), position.end(), 0);
  const int vectors = maxLive(body, position, n + 1)[static_cast<size_t>(RegFile::V)];
  if (vectors <= isa::regFileSize(RegFile::V)) return body;
  std::vector<size_t> order(body.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return times[a] < times[b]; });
  std::vector<MInst> out;
  for (size_t i : order) out.push_back(body[i]);
  return out;
}

}  // namespace

// Earliest times that satisfy every dependence at this II, or empty when a recurrence does not fit.
std::vector<int> earliestTimes(int n, const std::vector<ModuloEdge>& edges, int ii) {
  std::vector<int> t(static_cast<size_t>(n), 0);
  for (int round = 0; round <= n; ++round) {
    bool changed = false;
    for (const ModuloEdge& e : edges) {
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

int moduloScheduleLoops(MFunction& mf, const ModuloPlan& plan, ModuloResult* result) {
  int done = 0, loop = -1;
  const bool debug = std::getenv("TPC_DEBUG_MODSCHED") != nullptr;
  const char* mode = std::getenv("TPC_MODSCHED");
  if (mode && std::string(mode) == "0") return 0;
  // Every loop the swing scheduler can take, whatever the iterative one finds: a second execution path
  // for tests (the samples run with it), not a setting for users.
  const bool swingFirst = mode && std::string(mode) == "swing";
  const bool noExpansion = [] {
    const char* e = std::getenv("TPC_MODULO_EXPANSION");
    return e && std::string(e) == "0";
  }();
  for (int pre = 0; pre < static_cast<int>(mf.blocks.size()); ++pre) {
    const int body = mf.blocks[static_cast<size_t>(pre)].loopBody;
    if (body < 0) continue;
    const ModuloOptions& options = plan.of(++loop);
    if (!options.overlap || !eligible(mf, pre, body)) continue;
    const bool splitIvs = options.splitIvs, expand = options.expand && !noExpansion;
    const int registerMargin = options.registerMargin;
    // Without a second induction variable for stores, with as many as the scalar slot has room for,
    // and with one more than that: whichever gives the shortest II (the fewest instructions on a tie).
    std::vector<int> t;
    int ii = 0, resMii = 0, split = -1;
    std::vector<MInst> unexpanded;  // the chosen body before expansion's copies: the fallback loop's
    int chosenSplit = 0, chosenCopies = 0;
    const MFunction unsplit = mf;
    // Each number of second induction variables without copies carrying values, then with them: a
    // schedule with copies is kept only when its II is shorter (it needs more registers).
    const int extraLast = splitIvs ? 1 : -1;
    for (int trialNo = 0; trialNo < (expand ? 2 : 1) * (extraLast + 2); ++trialNo) {
      const int extra = trialNo % (extraLast + 2) - 1;
      const bool expanding = trialNo >= extraLast + 2;
      if (extra < 0) split = -1;
      MFunction trial = unsplit;
      splitWideReads(trial, body);
      const int count = extra < 0 ? 0 : splitCoordinateIvs(trial, pre, body, extra);
      if (extra >= 0 && count <= split) continue;  // nothing new to try
      split = count;
      const std::vector<MInst> insts = trial.blocks[static_cast<size_t>(body)].insts;
      const int n = static_cast<int>(insts.size());
      std::map<uint64_t, ExpandableValue> expandable =
          expanding ? expandableRegisters(insts) : std::map<uint64_t, ExpandableValue>{};
      std::vector<Edge> edges = dependences(insts, expandable);
      const int bound = slotBound(insts);
      int flat = 0;  // the body's critical path
      const std::vector<int> earliest = earliestTimes(n, edges, 1 << 16);
      for (int i = 0; i < n; ++i) flat = std::max(flat, earliest[static_cast<size_t>(i)] + latency(insts[static_cast<size_t>(i)]));
      // The smallest II at which the recurrences fit (a failing longest-path pass costs n rounds, so this
      // is found by bisection rather than by trying each II from the slot bound up).
      int lo = bound, hi = bound + flat;
      while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (earliestTimes(n, edges, mid).empty()) lo = mid + 1;
        else hi = mid;
      }
      if (debug) std::fprintf(stderr, "  recurrences fit from II %d\n", lo);
      if (debug && std::getenv("TPC_DEBUG_RECURRENCE")) printLongestRecurrences(insts, edges);
      const int near = std::max(bound, lo);  // the II the swing scheduler is tried near
      // One II: a schedule (with copies where expanding) whose registers fit, or nothing.
      struct Candidate {
        std::vector<int> times;
        std::vector<MInst> expanded;
        int ii = 0, copies = 0;
      };
      // Chains of at least 8 instructions, and at least two of them, for the staggered fallback.
      // The chains joined by every vector value, then (where that gives other chains) with short shared
      // starts left out, then starts and ends: each try only when it has two chains or more. (Which one a
      // loop needs is measured: splitting first was slower for layernorm bf16, splitting the ends too for
      // rmsnorm and adamw bf16; gelu bf16's tanh form needs both.)
      std::vector<std::vector<int>> chainTries;
      for (int split = 0; split < 3; ++split) {
        std::vector<int> ranks = vectorChainRanks(insts, edges, 8, split >= 1, split >= 2);
        if (*std::max_element(ranks.begin(), ranks.end()) >= 2 &&
            std::find(chainTries.begin(), chainTries.end(), ranks) == chainTries.end())
          chainTries.push_back(std::move(ranks));
      }
      const std::vector<int> componentRanks = dataComponentRanks(insts, edges);
      const std::vector<int>* chainRanks = nullptr;
      bool staggered = false, swingForRegisters = false;
      const auto attemptOnce = [&](int at, Candidate* c) {
        // The iterative scheduler first: its schedules have the better record with the register allocator
        // (the swing scheduler's can keep more vectors alive). A swing schedule is taken only when it gains
        // more than a sixteenth of II. It is tried near the slot bound or the recurrences' bound, where the
        // iterative scheduler's order by height is what fails (one copy of a chain after another; chains
        // of accumulating writes that must each fit within II), and only on bodies small enough for its
        // all-pairs path table.
        int found = at;
        std::vector<int> times;
        if ((swingFirst || swingForRegisters) && !(times = swingSchedule(insts, edges, at, swingForRegisters)).empty()) {
          if (debug) std::fprintf(stderr, "  swing schedule at II %d\n", at);
        } else if (swingForRegisters) {
          return false;
        } else if (times = scheduleAt(insts, edges, at); times.empty() && n <= kSwingMaxInstructions && at <= near + near / 16) {
          times = swingSchedule(insts, edges, at);
          for (int later = at + 1; !times.empty() && later <= at + at / 16; ++later)
            if (std::vector<int> iterative = scheduleAt(insts, edges, later); !iterative.empty()) {
              found = later;
              times = std::move(iterative);
              break;
            }
        }
        // Last the independent parts one after another (dataComponentRanks): after the swing scheduler,
        // whose schedules at the same II have fewer stages where both succeed (the widening casts' bands:
        // 2 against 3, 2.5% faster).
        if (times.empty() && !swingFirst && !(times = scheduleAt(insts, edges, at, &componentRanks)).empty()) {
          found = at;
          if (debug) std::fprintf(stderr, "  II %d: independent parts one after another\n", at);
        }
        if (times.empty()) return false;
        if (staggered) {
          // Registers did not fit at this II with the chains side by side: one after another instead.
          std::vector<int> apart = scheduleAt(insts, edges, at, chainRanks);
          // Chains one after another stretch the iteration; beyond three stages the longer fill and drain
          // cost short loops more than the shorter II gains (rmsnorm bf16's pair loop: 5 stages at II 83,
          // slower at 2-3 rows per core than 2 stages at II 87).
          if (apart.empty() || *std::max_element(apart.begin(), apart.end()) / at + 1 > 3) return false;
          times = std::move(apart);
          found = at;
        }
        reduceLifetimes(insts, edges, times, found);
        std::vector<MInst> expanded = insts;
        int copies = 0;
        if (!expandable.empty()) {
          std::set<uint64_t> failed;
          const size_t before = expanded.size();
          if (!expandLifetimes(trial, expanded, times, found, expandable, &failed)) {
            // Some values find no slot for their copies at this II (the schedule without copies is the
            // fallback a larger II is compared with).
            if (debug) std::fprintf(stderr, "  II %d: %zu values find no slot for copies\n", found, failed.size());
            return false;
          }
          if (debug && expanded.size() > before)
            std::fprintf(stderr, "  II %d: %zu copies carry values beyond II\n", found, expanded.size() - before);
          copies = static_cast<int>(expanded.size() - before);
        }
        if (const RegFile short_ = tooFewRegisters(maxLive(expanded, times, found), registerMargin); short_ != RegFile::None) {
          if (debug)
            std::fprintf(stderr, "  II %d: %d %s registers live, more than the core has\n", found,
                         maxLive(expanded, times, found)[static_cast<size_t>(short_)], std::string(isa::regFilePrefix(short_)).c_str());
          return false;
        }
        *c = Candidate{std::move(times), std::move(expanded), found, copies};
        return true;
      };
      const auto attempt = [&](int at, Candidate* c) {
        staggered = false;
        if (attemptOnce(at, c)) return true;
        if (std::getenv("TPC_MODSCHED_NO_STAGGER")) return false;
        bool ok = false;
        for (size_t k = 0; k < chainTries.size() && !ok; ++k) {
          staggered = true;
          chainRanks = &chainTries[k];
          ok = attemptOnce(at, c);
          if (ok && debug) std::fprintf(stderr, "  II %d: chains one after another (try %zu)\n", c->ii, k + 1);
        }
        staggered = false;
        // Last a swing schedule ordered by latest starts (an operand made for one late user placed next to
        // it), which keeps values alive for less time: a chain of sums over shared products
        // (many_live_vectors) needs 80 vectors in the iterative scheduler's order and fits in 40 in this one.
        // Only where copies may carry values beyond II, the trials meant for long lifetimes: in a trial
        // without them it would take an II that a trial with copies reaches in fewer stages (rmsnorm f32:
        // 3 stages at II 32 against 2, 2% slower at 32 rows per core).
        if (!ok && expanding && !swingFirst && n <= kSwingMaxInstructions) {
          swingForRegisters = true;
          ok = attemptOnce(at, c);
          swingForRegisters = false;
          if (ok && debug) std::fprintf(stderr, "  II %d: swing schedule for registers\n", c->ii);
        }
        return ok;
      };
      // The smallest II that works, each II in turn for the first few, then in growing steps (a body
      // whose registers do not fit near the slot bound may need many cycles more, and each attempt costs
      // a schedule and a lifetime pass), and by bisection back between the last failure and a success.
      const int end = bound + flat;  // beyond it, overlapping iterations gains nothing
      Candidate chosen;
      int failed = lo - 1, step = 1, failures = 0;
      for (int at = lo; at < end && (t.empty() || at < ii);) {
        if (!attempt(at, &chosen)) {
          failed = at;
          if (++failures >= kIiStepsOneByOne && at >= lo + lo / 3) step *= 2;
          at = at + step < end || at == end - 1 ? at + step : end - 1;
          continue;
        }
        for (int good = at; good - failed > 1;) {
          const int mid = failed + (good - failed) / 2;
          if (Candidate c; attempt(mid, &c)) {
            good = mid;
            chosen = std::move(c);
          } else {
            failed = mid;
          }
        }
        if (!t.empty() && chosen.ii >= ii) break;
        if (debug) std::fprintf(stderr, "  %d second induction variables: II %d, %d stages\n", count, chosen.ii, *std::max_element(chosen.times.begin(), chosen.times.end()) / chosen.ii + 1);
        unexpanded = insts;
        trial.blocks[static_cast<size_t>(body)].insts = std::move(chosen.expanded);
        chosenSplit = count;
        chosenCopies = chosen.copies;
        t = std::move(chosen.times);
        ii = chosen.ii;
        resMii = bound;
        mf = std::move(trial);
        break;
      }
      if (!t.empty() && ii == resMii) break;  // at the slot bound: nothing better to find
    }
    if (t.empty()) continue;
    if (result) {
      result->splits += chosenSplit;
      result->copies += chosenCopies;
      result->loops += 1;
      result->perLoop[loop] = ModuloLoopResult{chosenSplit, chosenCopies};
    }
    const std::vector<MInst> insts = mf.blocks[static_cast<size_t>(body)].insts;
    const int n = static_cast<int>(insts.size());
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
    for (int i : order) {
      kernel.push_back(instance(insts[static_cast<size_t>(i)], -stage(i)));
      kernel.back().moduloCycle = t[static_cast<size_t>(i)] % ii;
    }
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
    auto withPrologueCount = [&](InsnId op, RegFile file) {
      MInst mi;
      mi.op = op;
      mi.dtype = DType::I32;
      mi.dst = mf.newVirtual(file);
      mi.src[0] = MOperand::ofReg(q);
      mi.src[1] = MOperand::ofImm(static_cast<uint32_t>(stages - 1));
      p.insts.push_back(mi);
      return mi.dst;
    };
    // A hardware loop runs at least once (its IR loop is rotated: entering it runs the body), so with two
    // stages the prologue's one iteration is always there and the original loop is never needed.
    const bool fallback = stages > 2;
    const Reg few = fallback ? withPrologueCount(InsnId::SpuCmpLess, RegFile::SP) : Reg{};  // q < S - 1
    // The kernel runs q - (S - 1) times: its iterator counts from S - 1 up to q, which costs one
    // instruction (the start) where counting q - (S - 1) from zero cost two (the count and the zero).
    MInst startAt;
    startAt.op = InsnId::SpuMov;
    startAt.dtype = DType::I32;
    startAt.dst = mf.newVirtual(RegFile::S);
    startAt.src[0] = MOperand::ofImm(static_cast<uint32_t>(stages - 1));
    p.insts.push_back(startAt);
    MBlock fallbackPre;  // F
    fallbackPre.loopBody = -1;  // set below
    fallbackPre.loopCount = q;
    fallbackPre.loopZero = p.loopZero;
    fallbackPre.loopIter = p.loopIter;
    fallbackPre.endLoc = p.endLoc;
    MBlock kernelPre;  // P2
    kernelPre.loopCount = q;
    kernelPre.loopZero = startAt.dst;
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
    p0.condTarget = fallback ? body + 4 : -1;  // F (else unreached, left to threadJumps to drop)
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
    renameFallbackLocals(mf, body, unexpanded);
    b.insts = fallbackBody(unexpanded, t);
    b.next = newExit;
    for (MBlock* part : {&pro, &kernelPre, &k, &epi}) part->moduloLoop = loop;
    mf.blocks.insert(mf.blocks.begin() + body, {pro, kernelPre, k, epi, fallbackPre});
    pre = body + 5;
    ++done;
  }
  return done;
}

}  // namespace tpc::cc
