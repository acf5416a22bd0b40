// Register allocation by graph colouring, one register file at a time.
//
// Liveness is computed per instruction; two virtual registers interfere when one is defined where the
// other is live (a copy's destination does not interfere with its source). Copies in hardware loop
// bodies are coalesced whenever their sides do not interfere (each one left would cost an instruction per
// iteration); other copies when the Briggs test says the merged node stays colourable, which removes most
// copies from PHIs and tied operands. Colouring is Chaitin's simplify/select with optimistic
// pushes; among free colours the search starts after the last one handed out, spreading values over the
// file so that the scheduler meets fewer false dependencies.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

constexpr int kFiles = 8;

// Registers the allocator may hand out.
std::vector<int> allocatable(RegFile f) {
  std::vector<int> regs;
  int first = 0, count = isa::regFileSize(f);
  if (f == RegFile::I) first = 2;   // i0, i1: index space
  if (f == RegFile::SP) first = 1;  // sp0: always true
  for (int r = first; r < count; ++r) regs.push_back(r);
  return regs;
}

bool isVirtual(const Reg& r) { return r.valid() && !r.physical; }

// A dense bit set.
class Bits {
 public:
  explicit Bits(size_t n = 0) : w_((n + 63) / 64) {}
  void set(size_t i) { w_[i >> 6] |= uint64_t{1} << (i & 63); }
  void reset(size_t i) { w_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool test(size_t i) const { return (w_[i >> 6] >> (i & 63)) & 1u; }
  bool operator==(const Bits& o) const { return w_ == o.w_; }
  void orWith(const Bits& o) {
    for (size_t k = 0; k < w_.size(); ++k) w_[k] |= o.w_[k];
  }
  int count() const {
    int c = 0;
    for (uint64_t w : w_) c += __builtin_popcountll(w);
    return c;
  }
  template <class F> void forEach(F f) const {
    for (size_t k = 0; k < w_.size(); ++k)
      for (uint64_t m = w_[k]; m; m &= m - 1) f(k * 64 + static_cast<size_t>(__builtin_ctzll(m)));
  }

 private:
  std::vector<uint64_t> w_;
};

// Allocation of one register file.
class FileAllocator {
 public:
  FileAllocator(MFunction& mf, RegFile file) : mf_(mf), file_(file), n_(mf.numVirtual[static_cast<int>(file)]) {
    adj_.assign(n_, Bits(n_));
    neighbours_.assign(n_, {});
    parent_.resize(n_);
    std::iota(parent_.begin(), parent_.end(), 0u);
    precolor_.assign(n_, -1);
    for (auto& [r, phys] : mf.precolored)
      if (r.file == file) precolor_[r.id] = static_cast<int>(phys);
    regs_ = allocatable(file);
    k_ = static_cast<int>(regs_.size());
  }

  // Returns the virtual registers that got no register (to spill); rewrites only when there are none.
  std::vector<uint32_t> run() {
    if (n_ == 0) return {};
    buildInterference();
    coalesce();
    colour();
    if (!uncoloured_.empty() && std::getenv("TPC_DEBUG_REGALLOC")) printMaxLive();
    if (!uncoloured_.empty()) return uncoloured_;
    rewrite();
    return {};
  }

  // After a run() that left values uncoloured: the block where the most values of the file are live.
  int busiestBlock() const { return static_cast<int>(maxLive_.block); }

  // After run(): a local-memory slot number for each of `spilled`, shared by values that are never live
  // together (greedy colouring of their interference; a coalesced group shares one slot).
  std::map<uint32_t, uint32_t> spillSlots(const std::vector<uint32_t>& spilled) {
    std::map<uint32_t, uint32_t> repSlot, out;
    std::vector<std::vector<uint32_t>> slotReps;  // the representatives holding each slot
    for (uint32_t v : spilled) {
      const uint32_t r = find(v);
      if (!repSlot.count(r)) {
        uint32_t chosen = 0;
        while (chosen < slotReps.size() &&
               std::any_of(slotReps[chosen].begin(), slotReps[chosen].end(), [&](uint32_t o) { return interfere(r, o); }))
          ++chosen;
        if (chosen == slotReps.size()) slotReps.emplace_back();
        slotReps[chosen].push_back(r);
        repSlot[r] = chosen;
      }
      out[v] = repSlot[r];
    }
    return out;
  }

 private:
  bool mine(const Reg& r) const { return isVirtual(r) && r.file == file_; }

  // TPC_DEBUG_REGALLOC: where the most values of the file are live, and their definitions.
  void printMaxLive() const {
    const std::string prefix(isa::regFilePrefix(file_));
    std::fprintf(stderr, "regalloc: %d %s values live before bb%zu instruction %zu; defined by:\n", maxLive_.count,
                 prefix.c_str(), maxLive_.block, maxLive_.inst);
    maxLive_.live.forEach([&](size_t v) {
      std::string where = "(parameter)";
      for (size_t b = 0; b < mf_.blocks.size(); ++b)
        for (const MInst& mi : mf_.blocks[b].insts)
          if (mine(mi.dst) && mi.dst.id == v) where = fmt::format("bb{}: {}", b, isa::insnInfo(mi.op).mnemonic);
      std::fprintf(stderr, "  %%%s%zu %s\n", prefix.c_str(), v, where.c_str());
    });
  }

  struct MaxLive {
    int count = -1;
    size_t block = 0, inst = 0;
    Bits live;
  } maxLive_;

  void addEdge(uint32_t a, uint32_t b) {
    if (a == b || adj_[a].test(b)) return;
    adj_[a].set(b);
    adj_[b].set(a);
    neighbours_[a].push_back(b);
    neighbours_[b].push_back(a);
  }

  // Reads that no definition reaches: a partial write (a tied destination) into a fresh register reads its
  // old contents, which are undefined. Such a read must not make the value live, or it would be live from
  // the kernel's start and interfere with everything. Values never defined (parameters) count as defined
  // on entry. Returns, per block, the (instruction, value) pairs of those reads.
  std::vector<std::set<std::pair<size_t, uint32_t>>> undefinedReads() {
    const size_t nb = mf_.blocks.size();
    Bits everDefined(n_);
    for (const MBlock& blk : mf_.blocks) {
      for (const MInst& mi : blk.insts)
        if (mine(mi.dst)) everDefined.set(mi.dst.id);
      if (mine(blk.loopIter)) everDefined.set(blk.loopIter.id);
    }
    std::vector<std::vector<size_t>> preds(nb);
    for (size_t b = 0; b < nb; ++b) {
      const MBlock& blk = mf_.blocks[b];
      for (int s : {blk.condTarget, blk.next})
        if (s >= 0) preds[static_cast<size_t>(s)].push_back(b);
      if (blk.bodyIter.valid()) preds[b].push_back(b);
    }
    auto defsOf = [&](const MBlock& blk, Bits& into) {
      for (const MInst& mi : blk.insts)
        if (mine(mi.dst)) into.set(mi.dst.id);
      if (mine(blk.loopIter)) into.set(blk.loopIter.id);
    };
    std::vector<Bits> definedIn(nb, Bits(n_)), definedOut(nb, Bits(n_));
    for (uint32_t v = 0; v < n_; ++v)
      if (!everDefined.test(v) && nb > 0) definedIn[0].set(v);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t b = 0; b < nb; ++b) {
        Bits in = b == 0 ? definedIn[0] : Bits(n_);
        for (size_t p : preds[b]) in.orWith(definedOut[p]);
        Bits out = in;
        defsOf(mf_.blocks[b], out);
        if (!(in == definedIn[b]) || !(out == definedOut[b])) {
          definedIn[b] = std::move(in);
          definedOut[b] = std::move(out);
          changed = true;
        }
      }
    }
    std::vector<std::set<std::pair<size_t, uint32_t>>> undefined(nb);
    for (size_t b = 0; b < nb; ++b) {
      Bits defined = definedIn[b];
      const MBlock& blk = mf_.blocks[b];
      for (size_t k = 0; k < blk.insts.size(); ++k) {
        forEachRegisterRead(blk.insts[k], [&](const Reg& r) {
          if (mine(r) && !defined.test(r.id)) undefined[b].emplace(k, r.id);
        });
        if (mine(blk.insts[k].dst)) defined.set(blk.insts[k].dst.id);
      }
    }
    return undefined;
  }

  void buildInterference() {
    const size_t nb = mf_.blocks.size();
    const auto undefined = undefinedReads();
    auto reads = [&](size_t b, size_t k, const Reg& r) { return mine(r) && !undefined[b].count({k, r.id}); };
    std::vector<Bits> use(nb, Bits(n_)), def(nb, Bits(n_)), liveIn(nb, Bits(n_)), liveOut(nb, Bits(n_));
    for (size_t b = 0; b < nb; ++b) {
      const MBlock& blk = mf_.blocks[b];
      for (size_t k = 0; k < blk.insts.size(); ++k) {
        const MInst& mi = blk.insts[k];
        forEachRegisterRead(mi, [&](const Reg& r) {
          if (reads(b, k, r) && !def[b].test(r.id)) use[b].set(r.id);
        });
        if (mine(mi.dst)) def[b].set(mi.dst.id);
      }
      for (const Reg* r : {&blk.condPred, &blk.loopCount, &blk.loopZero, &blk.bodyIter})
        if (mine(*r) && !def[b].test(r->id)) use[b].set(r->id);
      if (mine(blk.loopIter)) def[b].set(blk.loopIter.id);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = nb; i-- > 0;) {
        const MBlock& blk = mf_.blocks[i];
        Bits out(n_);
        for (int s : {blk.condTarget, blk.next})
          if (s >= 0) out.orWith(liveIn[static_cast<size_t>(s)]);
        // A hardware loop body is its own successor (the core repeats it): what it reads on entry stays
        // live to its end, or a later value could take the register before the next iteration reads it.
        if (blk.bodyIter.valid()) out.orWith(liveIn[i]);
        Bits in = out;
        def[i].forEach([&](size_t v) { in.reset(v); });
        in.orWith(use[i]);
        if (!(in == liveIn[i]) || !(out == liveOut[i])) {
          liveIn[i] = std::move(in);
          liveOut[i] = std::move(out);
          changed = true;
        }
      }
    }
    // Backward walk per block: a definition interferes with everything live after it.
    for (size_t b = 0; b < nb; ++b) {
      const MBlock& blk = mf_.blocks[b];
      Bits live = liveOut[b];
      // The block's end: a hardware loop's `loop` writes the iterator and reads the count and zero.
      if (mine(blk.loopIter)) {
        live.forEach([&](size_t v) { addEdge(blk.loopIter.id, static_cast<uint32_t>(v)); });
        live.reset(blk.loopIter.id);
      }
      for (const Reg* r : {&blk.condPred, &blk.loopCount, &blk.loopZero, &blk.bodyIter})
        if (mine(*r)) live.set(r->id);
      for (size_t k = blk.insts.size(); k-- > 0;) {
        const MInst& mi = blk.insts[k];
        if (mine(mi.dst)) {
          uint32_t d = mi.dst.id;
          bool copyFromMine = mi.copy && !mi.pred.valid() && mi.src[0].isReg() && mine(mi.src[0].reg);
          live.forEach([&](size_t v) {
            if (copyFromMine && v == mi.src[0].reg.id) return;  // a copy's sides may share a register
            addEdge(d, static_cast<uint32_t>(v));
          });
          if (copyFromMine) (blk.bodyIter.valid() ? loopCopies_ : copies_).emplace_back(d, mi.src[0].reg.id);
          live.reset(d);
        }
        forEachRegisterRead(mi, [&](const Reg& r) {
          if (reads(b, k, r)) live.set(r.id);
        });
        if (live.count() > maxLive_.count) maxLive_ = {live.count(), b, k, live};
      }
      // Values live on entry to the kernel (parameters) are all alive together.
      if (b == 0) {
        std::vector<uint32_t> in;
        live.forEach([&](size_t v) { in.push_back(static_cast<uint32_t>(v)); });
        for (size_t i = 0; i < in.size(); ++i)
          for (size_t j = i + 1; j < in.size(); ++j) addEdge(in[i], in[j]);
      }
    }
  }

  uint32_t find(uint32_t v) {
    while (parent_[v] != v) v = parent_[v] = parent_[parent_[v]];
    return v;
  }

  // The representatives next to a representative (its merged members' neighbours).
  std::vector<uint32_t> repNeighbours(uint32_t r) const {
    std::vector<uint32_t> out;
    repAdj_[r].forEach([&](size_t x) { out.push_back(static_cast<uint32_t>(x)); });
    return out;
  }

  bool interfere(uint32_t a, uint32_t b) const { return repAdj_[a].test(b); }

  void coalesce() {
    groups_.assign(n_, {});
    for (uint32_t v = 0; v < n_; ++v) groups_[v] = {v};
    repAdj_ = adj_;
    std::vector<int> degree(n_);
    for (uint32_t v = 0; v < n_; ++v) degree[v] = static_cast<int>(neighbours_[v].size());
    // Copies in hardware loop bodies first, and whenever the sides do not interfere: each one left
    // costs an instruction per iteration (these are mostly loop-carried values and their next values).
    const size_t fromLoops = loopCopies_.size();
    loopCopies_.insert(loopCopies_.end(), copies_.begin(), copies_.end());
    for (size_t c = 0; c < loopCopies_.size(); ++c) {
      auto [d, s] = loopCopies_[c];
      uint32_t a = find(d), b = find(s);
      if (a == b) continue;
      int pa = precolor_[a], pb = precolor_[b];
      if (pa >= 0 && pb >= 0 && pa != pb) continue;
      if (interfere(a, b)) continue;
      if (c >= fromLoops) {
        // Briggs: the merged node has fewer than K neighbours of degree >= K.
        Bits both = repAdj_[a];
        both.orWith(repAdj_[b]);
        int significant = 0;
        both.forEach([&](size_t x) { significant += degree[x] >= k_; });
        if (significant >= k_) continue;
      }
      // Merge b into a: b's neighbours now neighbour a; those next to both lose one.
      repAdj_[b].forEach([&](size_t x) {
        if (repAdj_[x].test(a)) --degree[x];
        repAdj_[x].reset(b);
        repAdj_[x].set(a);
      });
      repAdj_[a].orWith(repAdj_[b]);
      degree[a] = repAdj_[a].count();
      parent_[b] = a;
      groups_[a].insert(groups_[a].end(), groups_[b].begin(), groups_[b].end());
      groups_[b].clear();
      if (pb >= 0) precolor_[a] = pb;
    }
  }

  void colour() {
    std::vector<uint32_t> reps;
    for (uint32_t v = 0; v < n_; ++v)
      if (find(v) == v) reps.push_back(v);
    std::vector<std::vector<uint32_t>> nb(n_);
    std::vector<int> degree(n_, 0);
    for (uint32_t r : reps) {
      nb[r] = repNeighbours(r);
      degree[r] = static_cast<int>(nb[r].size());
    }
    // Simplify: remove nodes of degree < K first; when none is left, the one of largest degree.
    std::vector<bool> removed(n_, false);
    std::vector<uint32_t> stack;
    size_t remaining = reps.size();
    while (remaining > 0) {
      int pick = -1;
      for (uint32_t r : reps) {
        if (removed[r] || precolor_[r] >= 0) continue;
        if (degree[r] < k_) {
          pick = static_cast<int>(r);
          break;
        }
      }
      if (pick < 0) {
        for (uint32_t r : reps)
          if (!removed[r] && precolor_[r] < 0 && (pick < 0 || degree[r] > degree[static_cast<size_t>(pick)]))
            pick = static_cast<int>(r);
      }
      if (pick < 0) break;  // only precoloured nodes are left
      removed[static_cast<size_t>(pick)] = true;
      --remaining;
      stack.push_back(static_cast<uint32_t>(pick));
      for (uint32_t x : nb[static_cast<size_t>(pick)]) --degree[x];
    }
    colour_.assign(n_, -1);
    for (uint32_t r : reps)
      if (precolor_[r] >= 0) colour_[r] = precolor_[r];
    size_t next = 0;
    for (size_t i = stack.size(); i-- > 0;) {
      uint32_t r = stack[i];
      std::vector<bool> taken(static_cast<size_t>(isa::regFileSize(file_)), false);
      for (uint32_t x : nb[r])
        if (colour_[x] >= 0) taken[static_cast<size_t>(colour_[x])] = true;
      int chosen = -1;
      for (size_t t = 0; t < regs_.size() && chosen < 0; ++t) {
        int c = regs_[(next + t) % regs_.size()];
        if (!taken[static_cast<size_t>(c)]) {
          chosen = c;
          next = (next + t + 1) % regs_.size();
        }
      }
      if (chosen < 0) {
        for (uint32_t m : groups_[r]) uncoloured_.push_back(m);
        continue;
      }
      colour_[r] = chosen;
    }
  }

  void rewrite() {
    auto map = [&](Reg& r) {
      if (!mine(r)) return;
      int c = colour_[find(r.id)];
      if (c < 0) c = regs_.front();  // never live
      r = Reg{file_, static_cast<uint32_t>(c), true};
    };
    for (MBlock& b : mf_.blocks) {
      for (MInst& mi : b.insts) {
        map(mi.dst);
        for (MOperand& o : mi.src)
          if (o.isReg()) map(o.reg);
        map(mi.pred);
        for (auto& v : mi.variables) map(v.second);
      }
      map(b.condPred);
      map(b.loopCount);
      map(b.loopZero);
      map(b.loopIter);
      map(b.bodyIter);
    }
  }

  MFunction& mf_;
  RegFile file_;
  uint32_t n_;
  std::vector<Bits> adj_;
  std::vector<Bits> repAdj_;  // adj_ between representatives of coalesced groups (from coalesce() on)
  std::vector<std::vector<uint32_t>> neighbours_;
  std::vector<std::pair<uint32_t, uint32_t>> copies_, loopCopies_;
  std::vector<uint32_t> parent_;
  std::vector<std::vector<uint32_t>> groups_;
  std::vector<int> precolor_;
  std::vector<int> colour_;
  std::vector<int> regs_;
  std::vector<uint32_t> uncoloured_;
  int k_;
};

// Where an error about registers of `file` that ran out points: the first instruction with a source
// position that writes one of `values` (the virtual registers that found none).
SourceLoc definitionLoc(const MFunction& mf, RegFile file, const std::vector<uint32_t>& values) {
  std::set<uint32_t> wanted(values.begin(), values.end());
  for (const MBlock& b : mf.blocks)
    for (const MInst& mi : b.insts)
      if (mi.loc.line && isVirtual(mi.dst) && mi.dst.file == file && wanted.count(mi.dst.id)) return mi.loc;
  for (const MBlock& b : mf.blocks)  // none has one: any instruction that does
    for (const MInst& mi : b.insts)
      if (mi.loc.line) return mi.loc;
  return {};
}

// A value whose only definition reads no register, no memory and no core state (a constant, the lane
// ids) is recomputed where it is used instead of being spilled: no slot, no store.
bool rematerializable(const MInst& def) {
  const isa::InsnInfo& info = isa::insnInfo(def.op);
  if ((info.slot != isa::Slot::Vpu && info.slot != isa::Slot::Spu) || def.dstIsRead || def.pred.valid()) return false;
  if (info.flags & (isa::F_READS_DST | isa::F_TENSOR | isa::F_BRANCH | isa::F_LOOP | isa::F_HALT)) return false;
  if (isa::touchesCoreState(def.op, def.sw)) return false;
  return std::none_of(def.src.begin(), def.src.end(), [](const MOperand& o) { return o.isReg(); });
}

// Spill code: the value of each spilled register lives in a local-memory slot (`slotOf`: values never
// live together share one); every instruction that reads it loads it into a fresh register first, every
// one that writes it stores it afterwards. Rematerializable values are recomputed at each use instead.
void insertSpillCode(MFunction& mf, RegFile file, const std::vector<uint32_t>& spilled,
                     const std::map<uint32_t, uint32_t>& slotOf) {
  const bool vector = file == RegFile::V;
  // Definitions of the spilled values: those with a single rematerializable one are recomputed.
  std::map<uint32_t, std::pair<int, const MInst*>> defs;  // value -> (number of definitions, the last)
  for (const MBlock& b : mf.blocks)
    for (const MInst& mi : b.insts)
      if (isVirtual(mi.dst) && mi.dst.file == file) {
        auto& d = defs[mi.dst.id];
        ++d.first;
        d.second = &mi;
      }
  std::map<uint32_t, MInst> remat;
  for (uint32_t v : spilled)
    if (auto it = defs.find(v); it != defs.end() && it->second.first == 1 && rematerializable(*it->second.second))
      remat.emplace(v, *it->second.second);
  std::map<uint32_t, uint32_t> slot;
  // Predicates have no local-memory form: a spilled one lives in a scalar register of its own (0 or 1),
  // which the next round allocates (or spills in turn).
  const bool predicate = file == RegFile::SP;
  std::map<uint32_t, Reg> holder;
  const uint32_t size = vector ? 256 : 4;
  const uint32_t limit = vector ? 80 * 1024 : 1024;
  uint32_t& used = vector ? mf.vectorLocalBytes : mf.scalarLocalBytes;
  const uint32_t base = (used + size - 1) / size * size;
  for (uint32_t v : spilled) {
    if (remat.count(v)) continue;
    if (predicate) {
      holder[v] = mf.newVirtual(RegFile::S);
      slot[v] = 0;
      continue;
    }
    const uint32_t addr = base + slotOf.at(v) * size;
    if (addr + size > limit)
      throw CodegenError(fmt::format("the kernel needs more {} registers than the core has, and their spill "
                                     "slots do not fit in local memory", isa::regFilePrefix(file)),
                         definitionLoc(mf, file, {v}), /*outOfRegisters=*/true, file);
    used = std::max(used, addr + size);
    slot[v] = addr;
  }
  auto isSpilled = [&](const Reg& r) {
    return r.valid() && !r.physical && r.file == file && (slot.count(r.id) || remat.count(r.id));
  };
  for (MBlock& b : mf.blocks) {
    // A spilled branch condition is read back at the block's end (below).
    for (const Reg* r : {&b.condPred, &b.loopCount, &b.loopZero, &b.loopIter, &b.bodyIter})
      if (isSpilled(*r) && !(predicate && r == &b.condPred))
        throw CodegenError(fmt::format("the kernel needs more {} registers than the core has around a loop or "
                                       "branch", isa::regFilePrefix(file)),
                           b.endLoc.line ? b.endLoc : definitionLoc(mf, file, {r->id}), /*outOfRegisters=*/true, file);
    std::vector<MInst> out;
    out.reserve(b.insts.size());
    for (MInst mi : b.insts) {
      std::map<uint32_t, Reg> temp;  // spilled register -> its temporary in this instruction
      auto tempFor = [&](uint32_t v) {
        auto it = temp.find(v);
        if (it == temp.end()) it = temp.emplace(v, mf.newVirtual(file)).first;
        return it->second;
      };
      auto reload = [&](Reg& r) {
        if (!isSpilled(r)) return;
        uint32_t v = r.id;
        bool fresh = !temp.count(v);
        Reg t = tempFor(v);
        if (fresh && remat.count(v)) {
          MInst again = remat.at(v);
          again.dst = t;
          again.variables.clear();
          again.loc = mi.loc;
          out.push_back(again);
        } else if (fresh && predicate) {
          MInst back;  // sp = (s != 0)
          back.op = isa::InsnId::SpuMovSp;
          back.dst = t;
          back.src[0] = MOperand::ofReg(holder.at(v));
          back.loc = mi.loc;
          out.push_back(back);
        } else if (fresh) {
          MInst ld;
          ld.op = vector ? isa::InsnId::LdLV : isa::InsnId::LdL;
          ld.dtype = DType::I32;
          ld.dst = t;
          ld.src[0] = MOperand::ofImm(slot[v]);
          ld.loc = mi.loc;
          out.push_back(ld);
        }
        r = t;
      };
      for (MOperand& o : mi.src)
        if (o.isReg()) reload(o.reg);
      reload(mi.pred);
      // (Decided before the reload below turns a read destination into its temporary.)
      const bool dstSpilled = isSpilled(mi.dst);
      if (dstSpilled && remat.count(mi.dst.id)) continue;  // recomputed at each use
      std::optional<uint32_t> stored;
      if (dstSpilled) stored = mi.dst.id;
      if (mi.dstIsRead || (mi.pred.valid() && dstSpilled)) reload(mi.dst);
      if (dstSpilled) mi.dst = tempFor(*stored);
      // -g: the variables of a spilled value are in its temporary here (and in the slot after the store).
      for (auto& var : mi.variables)
        if (stored && isSpilled(var.second) && var.second.id == *stored) var.second = mi.dst;
      mi.copy = mi.copy && !stored;
      out.push_back(mi);
      if (stored && predicate) {
        // s = 0, then 1 where the predicate holds.
        MInst zero;
        zero.op = isa::InsnId::SpuMov;
        zero.dtype = DType::I32;
        zero.dst = holder.at(*stored);
        zero.src[0] = MOperand::ofImm(0);
        zero.loc = mi.loc;
        MInst one = zero;
        one.src[0] = MOperand::ofImm(1);
        one.pred = mi.dst;
        out.push_back(zero);
        out.push_back(one);
      } else if (stored) {
        MInst st;
        st.op = vector ? isa::InsnId::StLV : isa::InsnId::StL;
        st.dtype = DType::I32;
        st.src[0] = MOperand::ofImm(slot[*stored]);
        st.src[1] = MOperand::ofReg(mi.dst);
        st.loc = mi.loc;
        out.push_back(st);
      }
    }
    if (isSpilled(b.condPred)) {
      const uint32_t v = b.condPred.id;
      const Reg t = mf.newVirtual(file);
      MInst back = remat.count(v) ? remat.at(v) : MInst{};
      if (!remat.count(v)) {
        back.op = isa::InsnId::SpuMovSp;
        back.src[0] = MOperand::ofReg(holder.at(v));
      }
      back.dst = t;
      back.variables.clear();
      back.loc = b.endLoc;
      out.push_back(back);
      b.condPred = t;
    }
    b.insts = std::move(out);
  }
}

}  // namespace

void legalizeImmediates(MFunction& mf) {
  // Scalars in hardware loop bodies (a select's second immediate in every unrolled copy) are made once in
  // the entry block, for the first few distinct values: a move per use would run on the scalar slot, which
  // often bounds the loop, in every iteration. Vectors stay where they are used (vector registers are the
  // scarcer ones).
  constexpr size_t kMaxLoopScalars = 6;
  std::map<std::pair<uint32_t, DType>, Reg> loopScalars;
  std::vector<MInst> entryMoves;
  for (MBlock& b : mf.blocks) {
    std::vector<MInst> out;
    out.reserve(b.insts.size());
    for (MInst mi : b.insts) {
      const isa::InsnInfo& info = isa::insnInfo(mi.op);
      bool seen = false;
      for (int k = 0; k < 4; ++k) {
        if (!mi.src[k].isImm()) continue;
        if (!seen && (info.kinds[static_cast<size_t>(k + 1)] & isa::kindBit(RegFile::Imm))) {
          seen = true;
          continue;
        }
        // Move it into a register of the kind the operand takes.
        uint32_t kinds = info.kinds[static_cast<size_t>(k + 1)];
        bool vector = (kinds & isa::kindBit(RegFile::V)) && !(kinds & isa::kindBit(RegFile::S));
        const DType dtype = isa::insnInfo(mi.op).hasDType() ? mi.dtype : DType::I32;
        const auto key = std::make_pair(mi.src[k].imm, dtype);
        if (!vector && b.bodyIter.valid()) {
          if (auto it = loopScalars.find(key); it != loopScalars.end()) {
            mi.src[k] = MOperand::ofReg(it->second);
            continue;
          }
        }
        Reg r = mf.newVirtual(vector ? RegFile::V : RegFile::S);
        MInst mov;
        mov.op = vector ? isa::InsnId::VpuMov : isa::InsnId::SpuMov;
        mov.dtype = dtype;
        mov.dst = r;
        mov.src[0] = mi.src[k];
        mov.loc = mi.loc;
        if (!vector && b.bodyIter.valid() && loopScalars.size() < kMaxLoopScalars) {
          loopScalars[key] = r;
          entryMoves.push_back(mov);
        } else {
          out.push_back(mov);
        }
        mi.src[k] = MOperand::ofReg(r);
      }
      out.push_back(mi);
    }
    b.insts = std::move(out);
  }
  auto& entry = mf.blocks.front().insts;
  for (MInst& mov : entryMoves) mov.loc = entry.empty() ? SourceLoc{} : entry.front().loc;  // the kernel's start
  entry.insert(entry.begin(), entryMoves.begin(), entryMoves.end());
}

void allocateRegisters(MFunction& mf, bool allowSpill) {
  // Spilling changes the code of every file's allocation (new temporaries), so the files are allocated
  // together, and again after each round of spill code.
  for (int round = 0;; ++round) {
    bool spilled = false;
    for (int f = 1; f < kFiles && !spilled; ++f) {
      auto file = static_cast<RegFile>(f);
      if (file == RegFile::Imm) continue;
      MFunction trial = mf;
      FileAllocator allocator(trial, file);
      std::vector<uint32_t> uncoloured = allocator.run();
      if (uncoloured.empty()) continue;
      if ((file != RegFile::V && file != RegFile::S && file != RegFile::SP) || round >= 8 || !allowSpill) {
        CodegenError e(fmt::format("the kernel needs more {} registers than the core has ({}) at one point; "
                                   "simplify the code or split the kernel",
                                   isa::regFilePrefix(file), allocatable(file).size()),
                       definitionLoc(mf, file, uncoloured), /*outOfRegisters=*/true, file);
        e.busiestBlock = allocator.busiestBlock();
        throw e;
      }
      insertSpillCode(mf, file, uncoloured, allocator.spillSlots(uncoloured));
      spilled = true;
    }
    if (!spilled) break;
  }
  for (int f = 1; f < kFiles; ++f) {
    auto file = static_cast<RegFile>(f);
    if (file == RegFile::Imm) continue;
    FileAllocator(mf, file).run();
  }
  // Copies whose sides got the same register disappear, and so do whole index-register moves onto
  // themselves (coordinates copied before a partial update are not coalesced on purpose, but may still get
  // their source's register).
  auto wholeMove = [](const MInst& mi) {
    return mi.op == isa::InsnId::SpuIMov && isa::switchField(isa::SwitchField::DimMask).get(mi.sw) == 0x1f;
  };
  for (MBlock& b : mf.blocks) {
    std::vector<MInst> kept;
    kept.reserve(b.insts.size());
    for (MInst& mi : b.insts) {
      if ((mi.copy || wholeMove(mi)) && mi.src[0].isReg() && mi.src[0].reg == mi.dst && !mi.pred.valid()) {
        // The value stays where it was: its variables are located from the previous instruction on.
        if (!kept.empty()) kept.back().variables.insert(kept.back().variables.end(), mi.variables.begin(), mi.variables.end());
        continue;
      }
      kept.push_back(mi);
    }
    b.insts = std::move(kept);
  }
}

}  // namespace tpc::cc
