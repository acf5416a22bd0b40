// The dependence graph of a loop body as the modulo schedulers see it (modsched.cpp builds it; the
// iterative and the swing scheduler place it).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "tpc/cc/passes.h"

namespace tpc::cc {

inline uint64_t moduloRegKey(const Reg& r) {
  return (static_cast<uint64_t>(r.physical) << 40) | (static_cast<uint64_t>(r.file) << 32) | r.id;
}

// Reads of values as the register allocator sees them: a write keeps part of its destination's old value
// only where it says so (dstIsRead) or is predicated; an instruction whose flags only say that it might
// (a convert that writes every lane) does not make the old value live.
template <class F> void forEachValueRead(const MInst& mi, F f) {
  for (const MOperand& o : mi.src)
    if (o.isReg()) f(o.reg);
  if (mi.pred.valid()) f(mi.pred);
  if ((mi.dstIsRead || mi.pred.valid()) && mi.dst.valid()) f(mi.dst);
}

// Reads as the hardware sees them (the scheduler's rule): a partial or predicated write reads its
// destination.
template <class F> void forEachModuloRead(const MInst& mi, F f) {
  for (const MOperand& o : mi.src)
    if (o.isReg()) f(o.reg);
  if (mi.pred.valid()) f(mi.pred);
  bool readsDst = mi.dstIsRead || (isa::insnInfo(mi.op).flags & isa::F_READS_DST) ||
                  (mi.pred.valid() && mi.pred.file == RegFile::VP);
  if (readsDst && mi.dst.valid()) f(mi.dst);
}

// t[to] >= t[from] + latency - distance * II.
struct ModuloEdge {
  int from, to, latency, distance;
};

// Earliest times that satisfy every dependence at this II, or empty when a recurrence does not fit.
std::vector<int> earliestTimes(int n, const std::vector<ModuloEdge>& edges, int ii);

// A register of the body whose final value in an iteration may be read later than the next iteration's
// first write of it, carried on by copies (modulo_expansion.cpp): written first by an instruction that does
// not read its old value (or a copy), then perhaps updated in place (tied or predicated writes), and not read before
// that first write (not carried from one iteration to the next); vector or scalar.
struct ExpandableValue {
  int firstDef, lastDef;  // instructions of the body
  // Where the register it may share is first written: firstDef, or for a copy, its source's first write.
  int origin;
};
std::map<uint64_t, ExpandableValue> expandableRegisters(const std::vector<MInst>& body);

// After scheduling `body` at `ii` with the reads of the expandable registers' final values unconstrained
// by the next iteration's first write: every such value read at or after that write is carried by a chain
// of copies placed in free slots of the schedule, and its late readers read the copies. Appends the copies
// to body and their cycles to times. When a value finds no slot for a copy, returns false, changes
// nothing and adds its register to `failed`.
bool expandLifetimes(MFunction& mf, std::vector<MInst>& body, std::vector<int>& times, int ii,
                     const std::map<uint64_t, ExpandableValue>& expandable, std::set<uint64_t>* failed);

// Moves instructions of a modulo schedule by multiples of II (keeping the reservation table and the
// dependences) where that shortens the lifetimes of the values they read and write. See
// stage_scheduling.cpp.
void reduceLifetimes(const std::vector<MInst>& body, const std::vector<ModuloEdge>& edges, std::vector<int>& times,
                     int ii);

// The most registers of each file (indexed by RegFile) the modulo schedule keeps live at once, counting
// the iterations in flight and the values the loop only reads; a lower bound of what allocation needs.
std::array<int, 8> maxLive(const std::vector<MInst>& body, const std::vector<int>& times, int ii);

// Swing modulo scheduling at this II: times per instruction, or empty when it finds no schedule (see
// swing_schedule.cpp).
std::vector<int> swingSchedule(const std::vector<MInst>& body, const std::vector<ModuloEdge>& edges, int ii,
                               bool shortLives = false);

}  // namespace tpc::cc
