// Register allocation: liveness by data flow over blocks, one live interval per virtual register (its
// first to last live point in layout order), and a linear scan per register file. A copy's destination
// prefers its source's register, so most copies from PHIs and tied operands disappear; otherwise the
// register freed longest ago is taken, which leaves the scheduler fewer false dependencies.
#include <algorithm>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

constexpr int kFiles = 8;

struct Interval {
  int start = INT32_MAX, end = -1;
  int physical = -1;
  int hint = -1;  // virtual register of the copy source, when this one is a copy's destination
  int precolor = -1;
};

// Registers the allocator may hand out.
std::vector<int> allocatable(RegFile f) {
  std::vector<int> regs;
  int first = 0, count = isa::regFileSize(f);
  if (f == RegFile::I) first = 2;   // i0, i1: index space
  if (f == RegFile::SP) first = 1;  // sp0: always true
  for (int r = first; r < count; ++r) regs.push_back(r);
  return regs;
}

template <class F> void forEachRead(const MInst& mi, F f) {
  for (const MOperand& o : mi.src)
    if (o.isReg()) f(o.reg);
  if (mi.pred.valid()) f(mi.pred);
  if (mi.dstIsRead && mi.dst.valid()) f(mi.dst);
}

int fileIndex(RegFile f) { return static_cast<int>(f); }

}  // namespace

void legalizeImmediates(MFunction& mf) {
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
        Reg r = mf.newVirtual(vector ? RegFile::V : RegFile::S);
        MInst mov;
        mov.op = vector ? isa::InsnId::VpuMov : isa::InsnId::SpuMov;
        mov.dtype = isa::insnInfo(mi.op).hasDType() ? mi.dtype : DType::I32;
        mov.dst = r;
        mov.src[0] = mi.src[k];
        mov.loc = mi.loc;
        out.push_back(mov);
        mi.src[k] = MOperand::ofReg(r);
      }
      out.push_back(mi);
    }
    b.insts = std::move(out);
  }
}

void allocateRegisters(MFunction& mf) {
  // Dense numbering of virtual registers over all files.
  std::array<uint32_t, kFiles> base{};
  uint32_t total = 0;
  for (int f = 0; f < kFiles; ++f) {
    base[f] = total;
    total += mf.numVirtual[f];
  }
  auto key = [&](const Reg& r) { return base[fileIndex(r.file)] + r.id; };
  auto isVirtual = [](const Reg& r) { return r.valid() && !r.physical; };

  const size_t nb = mf.blocks.size();
  std::vector<int> blockStart(nb), blockEnd(nb);
  // Positions: each instruction i of the layout reads at 2i and writes at 2i+1; the block end (its
  // branch condition) comes after its last instruction.
  int pos = 0;
  for (size_t b = 0; b < nb; ++b) {
    blockStart[b] = pos;
    pos += 2 * static_cast<int>(mf.blocks[b].insts.size());
    blockEnd[b] = pos;
    pos += 2;
  }

  // Liveness.
  std::vector<std::vector<bool>> use(nb, std::vector<bool>(total)), def(nb, std::vector<bool>(total));
  for (size_t b = 0; b < nb; ++b) {
    const MBlock& blk = mf.blocks[b];
    for (const MInst& mi : blk.insts) {
      forEachRead(mi, [&](const Reg& r) {
        if (isVirtual(r) && !def[b][key(r)]) use[b][key(r)] = true;
      });
      if (isVirtual(mi.dst)) def[b][key(mi.dst)] = true;
    }
    if (isVirtual(blk.condPred) && !def[b][key(blk.condPred)]) use[b][key(blk.condPred)] = true;
  }
  std::vector<std::vector<bool>> liveIn(nb, std::vector<bool>(total)), liveOut(nb, std::vector<bool>(total));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = nb; i-- > 0;) {
      const MBlock& blk = mf.blocks[i];
      std::vector<bool> out(total);
      for (int s : {blk.condTarget, blk.next})
        if (s >= 0)
          for (uint32_t v = 0; v < total; ++v) out[v] = out[v] || liveIn[static_cast<size_t>(s)][v];
      std::vector<bool> in(total);
      for (uint32_t v = 0; v < total; ++v) in[v] = use[i][v] || (out[v] && !def[i][v]);
      if (in != liveIn[i] || out != liveOut[i]) {
        liveIn[i] = std::move(in);
        liveOut[i] = std::move(out);
        changed = true;
      }
    }
  }

  // Intervals.
  std::vector<Interval> iv(total);
  auto touch = [&](uint32_t k, int p) {
    iv[k].start = std::min(iv[k].start, p);
    iv[k].end = std::max(iv[k].end, p);
  };
  for (size_t b = 0; b < nb; ++b) {
    for (uint32_t v = 0; v < total; ++v) {
      if (liveIn[b][v]) touch(v, blockStart[b]);
      if (liveOut[b][v]) touch(v, blockEnd[b]);
    }
    int p = blockStart[b];
    for (const MInst& mi : mf.blocks[b].insts) {
      forEachRead(mi, [&](const Reg& r) {
        if (isVirtual(r)) touch(key(r), p);
      });
      if (isVirtual(mi.dst)) {
        touch(key(mi.dst), p + 1);
        if (mi.copy && mi.src[0].isReg() && isVirtual(mi.src[0].reg) && mi.src[0].reg.file == mi.dst.file)
          iv[key(mi.dst)].hint = static_cast<int>(key(mi.src[0].reg));
      }
      p += 2;
    }
    if (isVirtual(mf.blocks[b].condPred)) touch(key(mf.blocks[b].condPred), blockEnd[b]);
  }
  for (auto& [r, phys] : mf.precolored) {
    iv[key(r)].precolor = static_cast<int>(phys);
    iv[key(r)].start = 0;
    iv[key(r)].end = std::max(iv[key(r)].end, 0);
  }

  // Linear scan per file.
  for (int f = 0; f < kFiles; ++f) {
    auto file = static_cast<RegFile>(f);
    if (mf.numVirtual[f] == 0) continue;
    std::vector<uint32_t> order;
    for (uint32_t v = base[f]; v < base[f] + mf.numVirtual[f]; ++v)
      if (iv[v].end >= 0) order.push_back(v);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (iv[a].start != iv[b].start) return iv[a].start < iv[b].start;
      return iv[a].precolor > iv[b].precolor;  // precolored first
    });
    std::deque<int> freeRegs;
    for (int r : allocatable(file)) freeRegs.push_back(r);
    std::vector<uint32_t> active;
    for (uint32_t v : order) {
      // Expire intervals that ended before this one starts.
      for (auto it = active.begin(); it != active.end();) {
        if (iv[*it].end < iv[v].start) {
          freeRegs.push_back(iv[*it].physical);
          it = active.erase(it);
        } else {
          ++it;
        }
      }
      int want = iv[v].precolor >= 0 ? iv[v].precolor : (iv[v].hint >= 0 ? iv[static_cast<size_t>(iv[v].hint)].physical : -1);
      auto it = want >= 0 ? std::find(freeRegs.begin(), freeRegs.end(), want) : freeRegs.end();
      if (iv[v].precolor >= 0 && it == freeRegs.end())
        throw CodegenError(fmt::format("internal: register {}{} is not free for a parameter",
                                       isa::regFilePrefix(file), want));
      if (it == freeRegs.end()) {
        if (freeRegs.empty())
          throw CodegenError(fmt::format("the kernel needs more {} registers than the core has ({}); simplify the "
                                         "code or split the kernel (spilling is not implemented yet)",
                                         isa::regFilePrefix(file), allocatable(file).size()));
        it = freeRegs.begin();
      }
      iv[v].physical = *it;
      freeRegs.erase(it);
      active.push_back(v);
    }
  }

  // Rewrite with physical registers; drop copies that became moves onto themselves.
  auto rewrite = [&](Reg& r) {
    if (!isVirtual(r)) return;
    int p = iv[key(r)].physical;
    if (p < 0) p = allocatable(r.file).front();  // never live: any register will do
    r = Reg{r.file, static_cast<uint32_t>(p), true};
  };
  for (MBlock& b : mf.blocks) {
    std::vector<MInst> kept;
    for (MInst mi : b.insts) {
      rewrite(mi.dst);
      for (MOperand& o : mi.src)
        if (o.isReg()) rewrite(o.reg);
      rewrite(mi.pred);
      if (mi.copy && mi.src[0].isReg() && mi.src[0].reg == mi.dst && !mi.pred.valid()) continue;
      kept.push_back(mi);
    }
    b.insts = std::move(kept);
    rewrite(b.condPred);
  }
}

}  // namespace tpc::cc
