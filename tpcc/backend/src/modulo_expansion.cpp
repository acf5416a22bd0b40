// Modulo variable expansion by copies (see modulo_graph.h).
//
// The modulo schedule keeps one register per value and requires each value to be read for the last time
// before the next iteration writes its register again: II cycles after its definition. A value read
// later than that (x in x * sigmoid(v), read at the end of a long chain) would force the II up to the
// length of the chain. Instead, the scheduler places such values freely, and a copy made while the value
// is still there carries it on: the copy's register lives another II cycles, and a chain of copies covers
// any distance. Unrolling the kernel and renaming registers (the textbook expansion) would need the kernel
// trip count to be a multiple of the unroll factor; copies need nothing of the trip count, only a free
// slot: a vector copy goes to the load slot (`mov` there) or to the VPU slot, a scalar one to the SPU.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "modulo_graph.h"

namespace tpc::cc {

namespace {

int latency(const MInst& mi) { return isa::insnInfo(mi.op).latency; }

bool readsRegister(const MInst& mi, const Reg& r) {
  bool reads = false;
  forEachValueRead(mi, [&](const Reg& x) { reads |= x == r; });
  return reads;
}

// The copy instructions that may carry a value of register file `file`, in order of preference.
std::vector<isa::InsnId> copyOps(RegFile file) {
  if (file == RegFile::V) return {isa::InsnId::LdMov, isa::InsnId::VpuMov};
  if (file == RegFile::S) return {isa::InsnId::SpuMov};
  if (file == RegFile::I) return {isa::InsnId::SpuIMov};
  return {};
}

}  // namespace

std::map<uint64_t, ExpandableValue> expandableRegisters(const std::vector<MInst>& body) {
  // Registers read before their first write: carried from the last iteration.
  std::set<uint64_t> carried, written;
  for (const MInst& mi : body) {
    forEachValueRead(mi, [&](const Reg& r) {
      if (!written.count(moduloRegKey(r))) carried.insert(moduloRegKey(r));
    });
    if (mi.dst.valid()) written.insert(moduloRegKey(mi.dst));
  }
  std::map<uint64_t, ExpandableValue> found;
  std::map<uint64_t, int> firstWrite;  // register -> the instruction that writes it first
  for (int i = static_cast<int>(body.size()) - 1; i >= 0; --i)
    if (body[static_cast<size_t>(i)].dst.valid()) firstWrite[moduloRegKey(body[static_cast<size_t>(i)].dst)] = i;
  std::set<uint64_t> excluded = carried;
  for (int i = 0; i < static_cast<int>(body.size()); ++i) {
    const MInst& mi = body[static_cast<size_t>(i)];
    bool readsOwn = false;
    forEachValueRead(mi, [&](const Reg& r) { readsOwn |= mi.dst.valid() && r == mi.dst; });
    if (!mi.dst.valid()) continue;
    const uint64_t k = moduloRegKey(mi.dst);
    if (mi.dst.physical || copyOps(mi.dst.file).empty()) excluded.insert(k);
    auto it = found.find(k);
    if (it == found.end()) {
      // A copy's destination shares its source's register once they coalesce: the value then lives from
      // the source's write, which the next iteration repeats II cycles later.
      int origin = i;
      for (const MInst* c = &mi; c->copy && c->src[0].isReg();) {
        auto src = firstWrite.find(moduloRegKey(c->src[0].reg));
        if (src == firstWrite.end() || src->second >= origin) break;  // written later: carried, not a source
        origin = src->second;
        c = &body[static_cast<size_t>(origin)];
      }
      if (!readsOwn) found[k] = {i, i, origin};
    } else if (readsOwn) {
      it->second.lastDef = i;  // updates the value in place (an accumulating mac, a predicated move)
    } else {
      excluded.insert(k);  // a second value in the same register
    }
  }
  for (uint64_t k : excluded) found.erase(k);
  return found;
}

bool expandLifetimes(MFunction& mf, std::vector<MInst>& body, std::vector<int>& times, int ii,
                     const std::map<uint64_t, ExpandableValue>& expandable, std::set<uint64_t>* failed) {
  const int n = static_cast<int>(body.size());
  std::vector<std::array<bool, isa::kNumSlots>> busy(static_cast<size_t>(ii));
  for (auto& row : busy) row.fill(false);
  for (int i = 0; i < n; ++i)
    if (!body[static_cast<size_t>(i)].copy)
      busy[static_cast<size_t>(times[static_cast<size_t>(i)] % ii)]
          [static_cast<size_t>(isa::insnInfo(body[static_cast<size_t>(i)].op).slot)] = true;

  std::vector<MInst> outBody = body;
  std::vector<int> outTimes = times;
  for (const auto& [key, value] : expandable) {
    const int d = value.lastDef;
    const MInst& def = body[static_cast<size_t>(d)];
    const int defTime = times[static_cast<size_t>(d)];
    const int nextWrite = std::min(times[static_cast<size_t>(value.firstDef)], times[static_cast<size_t>(value.origin)]) + ii;
    std::vector<std::pair<int, int>> uses;  // (time, instruction): the reads of the final value
    for (int i = d + 1; i < n; ++i)
      if (readsRegister(body[static_cast<size_t>(i)], def.dst)) uses.emplace_back(times[static_cast<size_t>(i)], i);
    std::sort(uses.begin(), uses.end());
    if (uses.empty() || uses.back().first < nextWrite) continue;

    // The register that holds the value now, and the cycles it may be read in: from when it lands to
    // the cycle before the next iteration writes it.
    Reg holder = def.dst;
    int readableFrom = defTime + latency(def), readableTo = nextWrite - 1;
    bool ok = true;
    for (auto [useTime, user] : uses) {
      while (ok && useTime > readableTo) {
        // A copy as late as the holder allows and early enough to land by the use.
        int bestTime = -1;
        isa::InsnId bestOp{};
        for (isa::InsnId op : copyOps(def.dst.file)) {
          const int lat = isa::insnInfo(op).latency;
          const auto slot = static_cast<size_t>(isa::insnInfo(op).slot);
          for (int tc = std::min(readableTo, useTime - lat); tc >= readableFrom && tc > bestTime; --tc)
            if (!busy[static_cast<size_t>(tc % ii)][slot]) {
              bestTime = tc;
              bestOp = op;
              break;
            }
        }
        if (bestTime < 0) {
          ok = false;
          break;
        }
        busy[static_cast<size_t>(bestTime % ii)][static_cast<size_t>(isa::insnInfo(bestOp).slot)] = true;
        MInst copy;
        copy.op = bestOp;
        copy.dtype = DType::I32;  // the register's bits, whatever they hold
        if (bestOp == isa::InsnId::SpuIMov) copy.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
        copy.dst = mf.newVirtual(def.dst.file);
        copy.src[0] = MOperand::ofReg(holder);
        copy.loc = def.loc;
        outBody.push_back(copy);
        outTimes.push_back(bestTime);
        holder = copy.dst;
        readableFrom = bestTime + isa::insnInfo(bestOp).latency;
        readableTo = bestTime + ii - 1;
      }
      if (!ok) break;
      if (holder == def.dst) continue;
      MInst& mi = outBody[static_cast<size_t>(user)];
      for (MOperand& o : mi.src)
        if (o.isReg() && o.reg == def.dst) o.reg = holder;
      if (mi.pred == def.dst) mi.pred = holder;
    }
    if (!ok) {
      failed->insert(key);
      if (std::getenv("TPC_DEBUG_MODSCHED"))
        std::fprintf(stderr, "    no copy for register file %d #%u: written at %d (first %d), read until %d, II %d\n",
                     static_cast<int>(def.dst.file), def.dst.id, defTime, nextWrite - ii, uses.back().first, ii);
    }
  }
  if (!failed->empty()) return false;
  body = std::move(outBody);
  times = std::move(outTimes);
  return true;
}

}  // namespace tpc::cc
