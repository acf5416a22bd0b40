// Lifetime reduction of a modulo schedule (in the manner of Eichenberger and Davidson's stage scheduling):
// the schedulers place each instruction at the first free cycle from its earliest start, so a load whose
// value is needed only at the end of a long chain is issued at the start and its value is held through the
// whole chain. Each instruction in turn moves to the cycle, within what its dependences allow, whose row of
// the reservation table has its slot free (by a multiple of II: its own row) and that most shortens the
// lifetimes of the values it reads and writes, until nothing improves.
//
// maxLive counts the registers such a schedule keeps live at once, so that the modulo scheduler can prefer
// a longer II to a schedule the allocator could not fit.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "modulo_graph.h"

namespace tpc::cc {

namespace {

struct Value {
  int def = -1;                // the instruction that writes it last in an iteration
  std::vector<int> readers;    // instructions after that write that read it
};

// TPC_DEBUG_MODSCHED: the registers live on average per file; with TPC_DEBUG_LIFETIMES also the longest
// lifetimes and the instructions that start them.
void printLifetimes(const std::vector<MInst>& body, const std::map<uint64_t, Value>& values,
                    const std::vector<int>& times, int ii) {
  const auto lifetime = [&](const Value& v) {
    int last = times[static_cast<size_t>(v.def)];
    for (int r : v.readers) last = std::max(last, times[static_cast<size_t>(r)]);
    return last - times[static_cast<size_t>(v.def)];
  };
  std::map<std::string, long> perFile;
  std::vector<std::pair<int, const Value*>> longest;
  for (const auto& [key, v] : values)
    if (!v.readers.empty()) {
      perFile[std::string(isa::regFilePrefix(body[static_cast<size_t>(v.def)].dst.file))] += lifetime(v);
      longest.emplace_back(lifetime(v), &v);
    }
  std::fprintf(stderr, "  II %d: registers live on average", ii);
  for (const auto& [file, total] : perFile) std::fprintf(stderr, " %s %.1f", file.c_str(), static_cast<double>(total) / ii);
  std::fprintf(stderr, "; span %d\n", *std::max_element(times.begin(), times.end()) - *std::min_element(times.begin(), times.end()));
  if (!std::getenv("TPC_DEBUG_LIFETIMES")) return;
  std::sort(longest.rbegin(), longest.rend());
  for (size_t k = 0; k < std::min<size_t>(20, longest.size()); ++k) {
    const Value& v = *longest[k].second;
    MFunction one;
    one.blocks.push_back(MBlock{});
    one.blocks[0].insts.push_back(body[static_cast<size_t>(v.def)]);
    std::fprintf(stderr, "    %d cycles from %d: %s", longest[k].first, times[static_cast<size_t>(v.def)],
                 printMir(one).c_str() + 5);  // without "bb0:\n"
  }
}

}  // namespace

void reduceLifetimes(const std::vector<MInst>& body, const std::vector<ModuloEdge>& edges, std::vector<int>& times,
                     int ii) {
  const int n = static_cast<int>(body.size());
  // The values of the body: a register's last write and the reads after it, in program order.
  std::map<uint64_t, Value> values;
  for (int i = 0; i < n; ++i) {
    const MInst& mi = body[static_cast<size_t>(i)];
    forEachValueRead(mi, [&](const Reg& r) {
      auto it = values.find(moduloRegKey(r));
      if (it != values.end() && it->second.def != i) it->second.readers.push_back(i);
    });
    if (mi.dst.valid()) values[moduloRegKey(mi.dst)] = Value{i, {}};
  }
  std::vector<std::vector<const Value*>> touching(static_cast<size_t>(n));
  for (const auto& [key, v] : values) {
    if (v.readers.empty()) continue;
    touching[static_cast<size_t>(v.def)].push_back(&v);
    for (int r : v.readers) touching[static_cast<size_t>(r)].push_back(&v);
  }
  std::vector<std::vector<const ModuloEdge*>> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (const ModuloEdge& e : edges) {
    if (e.from == e.to) continue;
    in[static_cast<size_t>(e.to)].push_back(&e);
    out[static_cast<size_t>(e.from)].push_back(&e);
  }
  const auto lifetime = [&](const Value& v) {
    int last = times[static_cast<size_t>(v.def)];
    for (int r : v.readers) last = std::max(last, times[static_cast<size_t>(r)]);
    return last - times[static_cast<size_t>(v.def)];
  };
  const auto cost = [&](int i) {
    int total = 0;
    for (const Value* v : touching[static_cast<size_t>(i)]) total += lifetime(*v);
    return total;
  };
  // The reservation table: which instruction holds each slot of each row.
  std::vector<std::array<int, isa::kNumSlots>> holder(static_cast<size_t>(ii));
  for (auto& row : holder) row.fill(-1);
  for (int i = 0; i < n; ++i)
    if (!body[static_cast<size_t>(i)].copy)
      holder[static_cast<size_t>(times[static_cast<size_t>(i)] % ii)][static_cast<size_t>(isa::insnInfo(body[static_cast<size_t>(i)].op).slot)] = i;
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    const int latest = *std::max_element(times.begin(), times.end()) + ii;
    for (int i = 0; i < n; ++i) {
      // How far the instruction may move: the dependences on it, from where the others are now.
      int lo = 0, hi = latest;
      for (const ModuloEdge* e : in[static_cast<size_t>(i)])
        lo = std::max(lo, times[static_cast<size_t>(e->from)] + e->latency - e->distance * ii);
      for (const ModuloEdge* e : out[static_cast<size_t>(i)])
        hi = std::min(hi, times[static_cast<size_t>(e->to)] - e->latency + e->distance * ii);
      int& t = times[static_cast<size_t>(i)];
      const int from = t;
      const bool free = body[static_cast<size_t>(i)].copy;  // copies take no slot
      const auto slot = static_cast<size_t>(isa::insnInfo(body[static_cast<size_t>(i)].op).slot);
      int best = t, bestCost = cost(i);
      for (int moved = lo; moved <= hi; ++moved) {
        if (moved == from || (!free && moved % ii != from % ii && holder[static_cast<size_t>(moved % ii)][slot] >= 0))
          continue;
        t = moved;
        if (const int c = cost(i); c < bestCost) {
          best = moved;
          bestCost = c;
        }
      }
      t = best;
      if (best != from && !free) {
        holder[static_cast<size_t>(from % ii)][slot] = -1;
        holder[static_cast<size_t>(best % ii)][slot] = i;
      }
      changed |= best != from;
    }
    if (!changed) break;
  }
  if (std::getenv("TPC_DEBUG_MODSCHED")) printLifetimes(body, values, times, ii);
  // No stage left empty at the start.
  const int shift = *std::min_element(times.begin(), times.end()) / ii * ii;
  for (int& x : times) x -= shift;
}

std::array<int, 8> maxLive(const std::vector<MInst>& body, const std::vector<int>& times, int ii) {
  const int n = static_cast<int>(body.size());
  // Live intervals in cycles of the flat schedule, one per value (each write of a register starts one);
  // a copy's destination shares its source's interval (they may coalesce), so the figure is a lower bound
  // of what allocation needs.
  struct Interval {
    int from, to;
    RegFile file;
  };
  std::vector<Interval> values;
  std::vector<int> parent;  // union of a copy with its source
  const auto root = [&](int v) {
    while (parent[static_cast<size_t>(v)] != v) v = parent[static_cast<size_t>(v)];
    return v;
  };
  std::map<uint64_t, int> current;                  // register -> its value now
  std::vector<std::pair<uint64_t, int>> carriedReads;  // reads before the register's first write
  std::array<int, 8> invariant{};
  std::set<uint64_t> invariants;
  for (int i = 0; i < n; ++i) {
    const MInst& mi = body[static_cast<size_t>(i)];
    const int t = times[static_cast<size_t>(i)];
    forEachValueRead(mi, [&](const Reg& r) {
      if (r.physical) return;
      auto it = current.find(moduloRegKey(r));
      if (it == current.end()) {
        carriedReads.emplace_back(moduloRegKey(r), t);
        return;
      }
      Interval& v = values[static_cast<size_t>(root(it->second))];
      v.to = std::max(v.to, t);
    });
    if (!mi.dst.valid() || mi.dst.physical) continue;
    const int v = static_cast<int>(values.size());
    values.push_back({t, t, mi.dst.file});
    parent.push_back(v);
    if (mi.copy && mi.src[0].isReg())
      if (auto from = current.find(moduloRegKey(mi.src[0].reg)); from != current.end()) {
        const int r = root(from->second);
        parent[static_cast<size_t>(v)] = r;
        values[static_cast<size_t>(r)].to = std::max(values[static_cast<size_t>(r)].to, t);
      }
    current[moduloRegKey(mi.dst)] = v;
  }
  for (auto [k, t] : carriedReads) {
    auto it = current.find(k);
    if (it == current.end()) {
      // Defined before the loop, live through it.
      if (invariants.insert(k).second) invariant[static_cast<size_t>(static_cast<RegFile>(k >> 32 & 0xff))] += 1;
      continue;
    }
    Interval& v = values[static_cast<size_t>(root(it->second))];
    v.to = std::max(v.to, t + ii);  // the last value, read by the next iteration
  }
  std::vector<std::array<int, 8>> rows(static_cast<size_t>(ii));
  for (int v = 0; v < static_cast<int>(values.size()); ++v) {
    if (root(v) != v) continue;
    const Interval& span = values[static_cast<size_t>(v)];
    for (int c = span.from; c < std::max(span.to, span.from + 1); ++c) rows[static_cast<size_t>(c % ii)][static_cast<size_t>(span.file)] += 1;
  }
  std::array<int, 8> peak{};
  for (size_t f = 0; f < 8; ++f) {
    int most = 0;
    for (const auto& row : rows) most = std::max(most, row[f]);
    peak[f] = most + invariant[f];
  }
  return peak;
}

}  // namespace tpc::cc
