// Swing modulo scheduling (after Llosa, González, Ayguadé and Valero, PACT 1996) of a loop body at a
// given II.
//
// The iterative scheduler orders instructions by height alone, so in an unrolled body it lays out all
// copies of one kind before the next: eight loads that start eight conversion chains, then the eight
// loads the chains also need, eight cycles later. Each chain's store then comes too late for the
// induction variable it shares with its load, and the schedule never settles. Swing scheduling orders
// the instructions recurrence by recurrence, the one with the least room first, and within one it
// alternates between the predecessors and the successors of what is ordered, so that each instruction
// but the first of a group is placed next to one already placed:
//
//     ordered after its successors (bottom-up): the first free slot from the latest time they allow, down;
//     otherwise:                                the first free slot from the earliest time allowed, up;
//
// where "allow" counts every placed instruction with a path to or from this one, not only neighbours.
// Instructions whose recurrences leave them at least half of II are placed after every tight one, and
// those on no recurrence last, in one swing with every recurrence that leaves at least half of II (a
// load's and a store's coordinates): ordered on their own, such small recurrences would be placed first
// and pin both ends of a long chain between them with no slack. When an instruction finds no slot, its
// group starts again with its first instruction a cycle further on, at most II times; then this II fails.
//
// For a body whose registers do not fit (modsched.cpp), the bottom-up order can follow each instruction's
// latest start instead of its depth (`shortLives`): an operand made for one late user is then ordered, and
// placed, next to that user, where by depth every operand of the body would wait until all instructions
// of greater depth were placed, and find its slots far from its user.
#include <algorithm>
#include <limits>

#include <llvm/ADT/STLExtras.h>

#include "modulo_graph.h"

namespace tpc::cc {

namespace {

constexpr int kNoPath = std::numeric_limits<int>::min() / 4;
constexpr int kUnplaced = std::numeric_limits<int>::min();

template <class V> auto& at(V& v, int i) { return v[static_cast<size_t>(i)]; }

// The body's dependences at one II.
struct Graph {
  int n = 0, ii = 0;
  std::vector<std::vector<int>> pred, succ;  // within one iteration (distance 0)
  std::vector<int> asap;                     // earliest times at this II
  std::vector<int> depth, height;            // within one iteration: earliest start, longest path to the end
  int length = 0;                            // the longest depth
  std::vector<int> longest;                  // n x n: longest path (latency - distance * II), or kNoPath

  int path(int a, int b) const { return longest[static_cast<size_t>(a) * static_cast<size_t>(n) + static_cast<size_t>(b)]; }
  int& path(int a, int b) { return longest[static_cast<size_t>(a) * static_cast<size_t>(n) + static_cast<size_t>(b)]; }
  bool onRecurrence(int v) const { return path(v, v) != kNoPath; }
  int mobility(int v) const { return length - at(height, v) - at(depth, v); }
};

// Empty asap when a recurrence does not fit at this II.
Graph buildGraph(int n, const std::vector<ModuloEdge>& edges, int ii) {
  Graph g;
  g.n = n;
  g.ii = ii;
  g.asap = earliestTimes(n, edges, ii);
  if (g.asap.empty()) return g;
  g.pred.resize(static_cast<size_t>(n));
  g.succ.resize(static_cast<size_t>(n));
  g.longest.assign(static_cast<size_t>(n) * static_cast<size_t>(n), kNoPath);
  std::vector<ModuloEdge> sameIteration;
  for (const ModuloEdge& e : edges) {
    if (e.from == e.to) continue;
    g.path(e.from, e.to) = std::max(g.path(e.from, e.to), e.latency - e.distance * ii);
    if (e.distance != 0) continue;
    sameIteration.push_back(e);
    at(g.succ, e.from).push_back(e.to);
    at(g.pred, e.to).push_back(e.from);
  }
  g.depth = earliestTimes(n, sameIteration, 1);
  g.length = *std::max_element(g.depth.begin(), g.depth.end());
  g.height.assign(static_cast<size_t>(n), 0);
  for (bool changed = true; changed;) {  // no cycle within an iteration: terminates
    changed = false;
    for (const ModuloEdge& e : llvm::reverse(sameIteration))  // heights flow backwards
      if (int h = e.latency + at(g.height, e.to); h > at(g.height, e.from)) {
        at(g.height, e.from) = h;
        changed = true;
      }
  }
  for (int k = 0; k < n; ++k)  // Floyd-Warshall; no cycle is positive at this II (asap exists)
    for (int a = 0; a < n; ++a) {
      if (g.path(a, k) == kNoPath) continue;
      for (int b = 0; b < n; ++b)
        if (g.path(k, b) != kNoPath && g.path(a, k) + g.path(k, b) > g.path(a, b)) g.path(a, b) = g.path(a, k) + g.path(k, b);
    }
  return g;
}

// The recurrences (strongly connected components with a cycle) whose longest cycle leaves less than half
// of II, the least room first, then one set of the instructions on none and on the roomier ones.
std::vector<std::vector<int>> recurrenceSets(const Graph& g, bool& hasRest) {
  std::vector<std::pair<int, std::vector<int>>> sets;  // (longest cycle, members)
  std::vector<int> rest;
  std::vector<char> assigned(static_cast<size_t>(g.n), 0);
  for (int v = 0; v < g.n; ++v) {
    if (at(assigned, v)) continue;
    if (!g.onRecurrence(v)) {
      rest.push_back(v);
      continue;
    }
    std::vector<int> members;
    int longestCycle = kNoPath;
    for (int w = v; w < g.n; ++w)
      if (w == v || (g.path(v, w) != kNoPath && g.path(w, v) != kNoPath)) {
        members.push_back(w);
        at(assigned, w) = 1;
        longestCycle = std::max(longestCycle, g.path(w, w));
      }
    sets.emplace_back(longestCycle, std::move(members));
  }
  std::stable_sort(sets.begin(), sets.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::vector<int>> out;
  for (auto& [cycle, members] : sets) {
    if (-2 * cycle >= g.ii) {
      rest.insert(rest.end(), members.begin(), members.end());
      continue;
    }
    out.push_back(std::move(members));
  }
  std::sort(rest.begin(), rest.end());
  hasRest = !rest.empty();
  if (hasRest) out.push_back(std::move(rest));
  return out;
}

// The swing order of each set; `upwards` marks instructions ordered as predecessors (bottom-up).
std::vector<std::vector<int>> swingOrder(const Graph& g, const std::vector<MInst>& body,
                                         const std::vector<std::vector<int>>& sets, std::vector<char>& upwards,
                                         bool shortLives) {
  std::vector<std::vector<int>> out;
  std::vector<int> order;
  std::vector<char> ordered(static_cast<size_t>(g.n), 0), inSet(static_cast<size_t>(g.n), 0);
  upwards.assign(static_cast<size_t>(g.n), 0);
  for (const std::vector<int>& set : sets) {
    std::fill(inSet.begin(), inSet.end(), 0);
    for (int v : set) at(inSet, v) = 1;
    const size_t begin = order.size();
    // Unordered members of the set next to what is ordered.
    auto neighbours = [&](const std::vector<std::vector<int>>& of) {
      std::vector<int> r;
      for (int v : order)
        for (int w : at(of, v))
          if (at(inSet, w) && !at(ordered, w) && std::find(r.begin(), r.end(), w) == r.end()) r.push_back(w);
      return r;
    };
    bool bottomUp = true;
    std::vector<int> ready;
    while (order.size() - begin < set.size()) {
      if (ready.empty()) {
        std::vector<int> before = neighbours(g.pred), after = neighbours(g.succ);
        if (!before.empty() && (bottomUp || after.empty())) {
          ready = before;
          bottomUp = true;
        } else if (!after.empty()) {
          ready = after;
          bottomUp = false;
        } else {  // a new start: the set's latest instruction, ordered bottom-up
          // Not a copy: it takes no slot, so its time would tie the rest down for no reason.
          auto later = [&](int a, int b) {
            if (at(body, a).copy != at(body, b).copy) return !at(body, a).copy;
            return at(g.depth, a) > at(g.depth, b);
          };
          int seed = -1;
          for (int v : set)
            if (!at(ordered, v) && (seed < 0 || later(v, seed))) seed = v;
          ready = {seed};
          bottomUp = true;
        }
      }
      while (!ready.empty()) {
        // First one that no other ready instruction must come after (bottom-up) or before (top-down): a
        // tie in depth or height does not mean independence (a copy and what it copies).
        const std::vector<std::vector<int>>& further = bottomUp ? g.succ : g.pred;
        auto waits = [&](int v) {
          return std::any_of(ready.begin(), ready.end(), [&](int w) {
            return w != v && std::find(at(further, v).begin(), at(further, v).end(), w) != at(further, v).end();
          });
        };
        auto best = std::min_element(ready.begin(), ready.end(), [&](int a, int b) {
          if (waits(a) != waits(b)) return !waits(a);
          // Bottom-up by the latest start (length - height): an operand made only for one late user is
          // ordered next to that user, not after every instruction of greater depth.
          if (shortLives && bottomUp && at(g.height, a) != at(g.height, b)) return at(g.height, a) < at(g.height, b);
          const int ka = bottomUp ? at(g.depth, a) : at(g.height, a), kb = bottomUp ? at(g.depth, b) : at(g.height, b);
          if (ka != kb) return ka > kb;
          if (g.mobility(a) != g.mobility(b)) return g.mobility(a) < g.mobility(b);
          return a < b;
        });
        const int v = *best;
        ready.erase(best);
        order.push_back(v);
        at(ordered, v) = 1;
        at(upwards, v) = bottomUp;
        for (int w : bottomUp ? at(g.pred, v) : at(g.succ, v))
          if (at(inSet, w) && !at(ordered, w) && std::find(ready.begin(), ready.end(), w) == ready.end()) ready.push_back(w);
      }
      bottomUp = !bottomUp;  // swing
    }
    out.emplace_back(order.begin() + static_cast<long>(begin), order.end());
  }
  return out;
}

// Groups to place one after another: each recurrence set's tight instructions, then every roomy one (the
// window its recurrences leave is at least half of II: placed early, they would take the slots that tight
// instructions of later sets need), then the instructions on no recurrence.
std::vector<std::vector<int>> placementGroups(const Graph& g, std::vector<std::vector<int>> ordered, bool hasRest) {
  std::vector<int> rest;
  if (hasRest) {
    rest = std::move(ordered.back());
    ordered.pop_back();
  }
  std::vector<std::vector<int>> groups;
  std::vector<int> roomy;
  for (const std::vector<int>& set : ordered) {
    std::vector<int> tight;
    for (int v : set) (-2 * g.path(v, v) >= g.ii ? roomy : tight).push_back(v);
    if (!tight.empty()) groups.push_back(std::move(tight));
  }
  if (!roomy.empty()) groups.push_back(std::move(roomy));
  if (!rest.empty()) groups.push_back(std::move(rest));
  return groups;
}

// The reservation table and the times placed so far.
class Placement {
 public:
  Placement(const Graph& g, const std::vector<MInst>& body, const std::vector<char>& upwards)
      : g_(g), body_(body), upwards_(upwards), table_(static_cast<size_t>(g.ii)), t_(static_cast<size_t>(g.n), kUnplaced) {
    for (auto& r : table_) r.fill(-1);
  }

  // `v` at the first free slot of its window; false when there is none. `beyond`: a time the scan must
  // pass (a restart of the group), or kUnplaced.
  bool place(int v, int beyond) {
    int early = kUnplaced, late = std::numeric_limits<int>::max();
    for (int w = 0; w < g_.n; ++w) {
      if (w == v || at(t_, w) == kUnplaced) continue;
      if (g_.path(w, v) != kNoPath) early = std::max(early, at(t_, w) + g_.path(w, v));
      if (g_.path(v, w) != kNoPath) late = std::min(late, at(t_, w) - g_.path(v, w));
    }
    const bool hasPred = early != kUnplaced, hasSucc = late != std::numeric_limits<int>::max();
    int when = kUnplaced;
    if (hasSucc && (!hasPred || at(upwards_, v))) {
      const int to = hasPred ? std::max(early, late - g_.ii + 1) : late - g_.ii + 1;
      for (int c = beyond == kUnplaced ? late : std::min(late, beyond - 1); c >= to && when == kUnplaced; --c)
        if (free(v, c)) when = c;
    } else {
      const int from = hasPred ? early : at(g_.asap, v);
      const int to = hasSucc ? std::min(late, from + g_.ii - 1) : from + g_.ii - 1;
      for (int c = beyond == kUnplaced ? from : std::max(from, beyond + 1); c <= to && when == kUnplaced; ++c)
        if (free(v, c)) when = c;
    }
    if (when == kUnplaced) return false;
    at(t_, v) = when;
    if (!at(body_, v).copy) slotAt(v, when) = v;
    return true;
  }

  void unplace(int v) {
    if (at(t_, v) == kUnplaced) return;
    if (!at(body_, v).copy) slotAt(v, at(t_, v)) = -1;
    at(t_, v) = kUnplaced;
  }

  int time(int v) const { return at(t_, v); }

  // The times, shifted so that the first stage starts at 0.
  std::vector<int> times() const {
    std::vector<int> t = t_;
    const int first = *std::min_element(t.begin(), t.end());
    const int shift = (first >= 0 ? first / g_.ii : -((-first + g_.ii - 1) / g_.ii)) * g_.ii;
    for (int& x : t) x -= shift;
    return t;
  }

 private:
  int& slotAt(int v, int c) {
    return table_[static_cast<size_t>(((c % g_.ii) + g_.ii) % g_.ii)][static_cast<size_t>(isa::insnInfo(at(body_, v).op).slot)];
  }
  // Copies are expected to coalesce away: they take no slot.
  bool free(int v, int c) { return at(body_, v).copy || slotAt(v, c) < 0; }

  const Graph& g_;
  const std::vector<MInst>& body_;
  const std::vector<char>& upwards_;
  std::vector<std::array<int, isa::kNumSlots>> table_;
  std::vector<int> t_;
};

}  // namespace

std::vector<int> swingSchedule(const std::vector<MInst>& body, const std::vector<ModuloEdge>& edges, int ii,
                               bool shortLives) {
  const Graph g = buildGraph(static_cast<int>(body.size()), edges, ii);
  if (g.asap.empty()) return {};
  bool hasRest = false;
  std::vector<char> upwards;
  const std::vector<std::vector<int>> groups =
      placementGroups(g, swingOrder(g, body, recurrenceSets(g, hasRest), upwards, shortLives), hasRest);
  Placement placement(g, body, upwards);
  for (const std::vector<int>& group : groups) {
    bool placed = false;
    int beyond = kUnplaced;  // where the group's first instruction went in the last attempt
    for (int attempt = 0; attempt < ii && !placed; ++attempt) {
      placed = true;
      for (size_t k = 0; k < group.size() && placed; ++k) placed = placement.place(group[k], k == 0 ? beyond : kUnplaced);
      if (placed) break;
      if (placement.time(group[0]) != kUnplaced) beyond = placement.time(group[0]);
      for (int v : group) placement.unplace(v);
    }
    if (!placed) return {};
  }
  return placement.times();
}

}  // namespace tpc::cc
