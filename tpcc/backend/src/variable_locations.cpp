// Where each source variable lives, for the debug info: the bundles its value reaches along the code's
// control flow (jumps, hardware loops and their back edges, halts), from the bundle that produces it up to
// a bundle that writes its register again or assigns the variable anew. A value reaches a bundle in
// several pieces of the layout (a loop's first bundles after a definition at its end, or not the else
// branch laid out after its then branch), so one definition may give several ranges.
#include <algorithm>
#include <vector>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

constexpr size_t kBytes = isa::kBundleBytes;

// Successors of each bundle: the next one unless an unconditional jump or halt ends it; a jump's target;
// for a hardware loop, the bundle after its end (a loop that does not run) and, from its end bundle, its
// first bundle (the next iteration).
std::vector<std::vector<size_t>> bundleSuccessors(const std::vector<ScheduledBundle>& bundles) {
  const size_t n = bundles.size();
  std::vector<std::vector<size_t>> succ(n);
  auto edge = [&](size_t from, size_t to) {
    if (to < n && std::find(succ[from].begin(), succ[from].end(), to) == succ[from].end()) succ[from].push_back(to);
  };
  for (size_t b = 0; b < n; ++b) {
    const isa::SlotInsn& s = bundles[b].bundle[isa::Slot::Spu];
    bool fallsThrough = true;
    if (s.id == isa::InsnId::SpuJmpr) {
      edge(b, s.imm / kBytes);
      fallsThrough = !s.alwaysExecutes();
    } else if (s.id == isa::InsnId::SpuHalt) {
      fallsThrough = !s.alwaysExecutes();
    } else if (s.id == isa::InsnId::SpuLoop) {
      const size_t end = s.field(isa::SwitchField::LoopEnd) / kBytes;
      edge(b, end + 1);
      if (end < n) edge(end, b + 1);
    }
    if (fallsThrough) edge(b, b + 1);
  }
  return succ;
}

bool writesRegister(const ScheduledBundle& sb, const Reg& reg) {
  for (const isa::SlotInsn& s : sb.bundle.slots)
    if (s.dst.file == reg.file && s.dst.index == reg.id) return true;
  return false;
}

}  // namespace

std::vector<obj::VarLocation> variableLocations(const MFunction& mf, const std::vector<ScheduledBundle>& bundles,
                                                std::vector<obj::VarScope>* scopes) {
  const size_t n = bundles.size();
  const std::vector<std::vector<size_t>> succ = bundleSuccessors(bundles);
  std::vector<std::vector<uint32_t>> assigned(n);  // variables each bundle gives a value
  for (size_t b = 0; b < n; ++b)
    for (const auto& [index, reg] : bundles[b].variables) assigned[b].push_back(index);

  std::vector<obj::VarLocation> out;
  std::vector<char> reached(n), overwrites(n);
  std::vector<size_t> work;
  for (size_t b = 0; b < n; ++b) {
    std::vector<uint32_t> givenUp;
    for (const auto& [index, reg] : bundles[b].variables) {
      if (!reg.valid()) {
        // Assigned a value the code does not keep: a record without location says where earlier ones end
        // (one per variable and bundle).
        if (std::find(givenUp.begin(), givenUp.end(), index) != givenUp.end()) continue;
        givenUp.push_back(index);
        obj::VarLocation v;
        v.name = mf.variables[index].name;
        v.typeName = mf.variables[index].typeName;
        v.lowPc = static_cast<uint32_t>(b * kBytes);
        v.highPc = static_cast<uint32_t>((b + 1) * kBytes);
        v.regFile = obj::kLocNone;
        out.push_back(v);
        if (scopes) scopes->push_back({mf.variables[index].scope, mf.variables[index].isArgument});
        continue;
      }
      std::fill(reached.begin(), reached.end(), 0);
      std::fill(overwrites.begin(), overwrites.end(), 0);
      reached[b] = 1;
      work.assign(succ[b].begin(), succ[b].end());
      while (!work.empty()) {
        const size_t k = work.back();
        work.pop_back();
        if (reached[k]) continue;
        const bool reassigned = std::find(assigned[k].begin(), assigned[k].end(), index) != assigned[k].end();
        if (!reassigned && writesRegister(bundles[k], reg)) overwrites[k] = 1;  // still reads the value first
        if (reassigned || writesRegister(bundles[k], reg)) continue;
        reached[k] = 1;
        work.insert(work.end(), succ[k].begin(), succ[k].end());
      }
      auto emit = [&](const std::vector<char>& where, uint8_t file, uint16_t regIndex, int32_t offset) {
        for (size_t lo = 0; lo < n;) {
          if (!where[lo]) {
            ++lo;
            continue;
          }
          size_t hi = lo;
          while (hi < n && where[hi]) ++hi;
          obj::VarLocation v;
          v.name = mf.variables[index].name;
          v.typeName = mf.variables[index].typeName;
          v.lowPc = static_cast<uint32_t>(lo * kBytes);
          v.highPc = static_cast<uint32_t>(hi * kBytes);
          v.regFile = file;
          v.regIndex = regIndex;
          v.localOffset = offset;
          out.push_back(v);
          if (scopes) scopes->push_back({mf.variables[index].scope, mf.variables[index].isArgument});
          lo = hi;
        }
      };
      emit(reached, static_cast<uint8_t>(reg.file), static_cast<uint16_t>(reg.id), 0);

      // A spill: the register is stored to a local-memory slot while it holds the value. From the bundle
      // after the store the slot holds it too, until the variable is assigned anew or the slot rewritten;
      // where the register no longer does, the slot is the variable's location.
      // Slots read the registers as they were before their bundle: a store in the defining bundle saves the
      // register's previous value, a store in the bundle that overwrites it still saves this one.
      for (size_t k = 0; k < n; ++k) {
        if (!((reached[k] && k != b) || overwrites[k])) continue;
        for (const isa::SlotInsn& st : bundles[k].bundle.slots) {
          if ((st.id != isa::InsnId::StL && st.id != isa::InsnId::StLV) || !st.alwaysExecutes() ||
              st.src[0].file != isa::RegFile::Imm || st.src[1].file != reg.file || st.src[1].index != reg.id)
            continue;
          const uint32_t slot = st.imm;
          auto rewritesSlot = [&](size_t at) {
            for (const isa::SlotInsn& w : bundles[at].bundle.slots)
              if ((w.id == isa::InsnId::StL || w.id == isa::InsnId::StLV) && w.src[0].file == isa::RegFile::Imm &&
                  w.imm == slot)
                return true;
            return false;
          };
          // As the register ranges, the slot's range describes the state after each bundle: from the store on,
          // up to (not including) a bundle that assigns the variable anew or rewrites the slot.
          std::vector<char> inSlot(n, 0);
          inSlot[k] = 1;
          work.assign(succ[k].begin(), succ[k].end());
          while (!work.empty()) {
            const size_t at = work.back();
            work.pop_back();
            if (inSlot[at]) continue;
            if (std::find(assigned[at].begin(), assigned[at].end(), index) != assigned[at].end()) continue;
            if (rewritesSlot(at)) continue;
            inSlot[at] = 1;
            work.insert(work.end(), succ[at].begin(), succ[at].end());
          }
          for (size_t at = 0; at < n; ++at)
            if (reached[at]) inSlot[at] = 0;
          emit(inSlot, st.id == isa::InsnId::StLV ? obj::kLocVectorLocal : obj::kLocScalarLocal, 0,
               static_cast<int32_t>(slot));
        }
      }
    }
  }
  // __local__ variables: in local memory over the whole kernel.
  for (const MFunction::LocalVariable& l : mf.localVariables) {
    obj::VarLocation v;
    v.name = l.name;
    v.typeName = l.typeName;
    v.lowPc = 0;
    v.highPc = static_cast<uint32_t>(n * kBytes);
    v.regFile = l.vector ? obj::kLocVectorLocal : obj::kLocScalarLocal;
    v.localOffset = static_cast<int32_t>(l.offset);
    out.push_back(v);
    if (scopes) scopes->push_back({0, false});
  }
  return out;
}

}  // namespace tpc::cc
