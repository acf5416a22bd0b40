// The backend's passes over machine IR, in the order the pipeline runs them.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "tpc/cc/isel.h"
#include "tpc/cc/mir.h"
#include "tpc/object/kernel_object.h"

namespace tpc::cc {

// Modulo scheduling of hardware loop bodies: iterations overlap in a kernel with a prologue and an
// epilogue. Returns how many loops it transformed. See modsched.cpp.
struct ModuloOptions {
  bool overlap = true;    // false: the loop is left to the list scheduler
  bool splitIvs = true;   // stores may get coordinate induction variables of their own (index registers)
  bool expand = true;     // values may outlive the initiation interval, carried by copies (modulo_expansion.cpp)
  int registerMargin = 0; // registers of each file a schedule must leave free by its own count of live values
};
// The options of each hardware loop: `all`, or for loop k (counted in block order as instruction
// selection lays the loops out, which scheduling does not change) perLoop[k] where there is one. The
// blocks a loop's schedule becomes carry its number (MBlock::moduloLoop).
struct ModuloPlan {
  ModuloOptions all;
  std::map<int, ModuloOptions> perLoop;
  const ModuloOptions& of(int loop) const {
    auto it = perLoop.find(loop);
    return it == perLoop.end() ? all : it->second;
  }
};
struct ModuloLoopResult {
  int splits = 0, copies = 0;  // second induction variables and copies the schedule uses
};
struct ModuloResult {
  int loops = 0, splits = 0, copies = 0;  // loops scheduled; second induction variables and copies they use
  std::map<int, ModuloLoopResult> perLoop;  // by loop number, the loops scheduled
};
int moduloScheduleLoops(MFunction& mf, const ModuloPlan& plan = {}, ModuloResult* result = nullptr);

// The plans to try when allocation runs out of registers after modulo scheduling: the loop whose blocks
// hold the most live registers takes a more cautious step, or every loop does. See modulo_retries.cpp.
class ModuloRetries {
 public:
  // flatAllowed: whether loops may in the end lose their overlap (else the driver unrolls less first).
  explicit ModuloRetries(bool flatAllowed);
  const ModuloPlan& plan() const { return plan_; }
  enum class Next { Retry, GiveUp, UnrollLess };
  // After allocating `mf`, scheduled under plan() with `result`, failed with `e`: the next plan.
  Next escalate(const MFunction& mf, const CodegenError& e, const ModuloResult& result);
  void restart();  // from the first plan again (the code before scheduling changed)

 private:
  int nextStep(int from, const ModuloLoopResult& use) const;
  bool flatAllowed_;
  ModuloPlan plan_;
  std::map<int, int> steps_;  // loops ahead of the common step
  int allStep_ = 0;
  std::optional<std::map<int, ModuloLoopResult>> firstUse_;  // what each loop used at the first failure
};

// Forwards the first half of a two-step copy (t = x; y = t) into the second (y = x). See dce.cpp.
void forwardCopies(MFunction& mf);

// A copy whose reads all come before its register is written again, on the one path from it, has them
// read its source instead (then eliminateDeadWrites drops it). See dce.cpp.
void forwardCopiesIntoSinglePaths(MFunction& mf);

// Removes instructions whose results nothing reads (and that store nothing and transfer no control).
void eliminateDeadCode(MFunction& mf);
// The same, flow-sensitive: removes writes of virtual registers that no path reads before the register is
// written again or the kernel ends (a modulo-scheduled loop's epilogue advances values for an iteration
// that never comes). See dce.cpp.
void eliminateDeadWrites(MFunction& mf);

// A slot takes at most one immediate: further ones are moved into registers first.
void legalizeImmediates(MFunction& mf);

// Graph-colouring allocation of every register file; removes copies whose sides coalesce. Reserved: i0
// and i1 (index space), sp0 (always true). Scalar and vector values that find no register are spilled to
// local memory when `allowSpill`; otherwise, or for other files, CodegenError(outOfRegisters) is thrown.
void allocateRegisters(MFunction& mf, bool allowSpill = true);

// Jumps into blocks that only jump on go straight to where those lead (into a block that only halts:
// halt); blocks left unreached are marked dead. See jump_threading.cpp.
void threadJumps(MFunction& mf);

// A block that falls without a condition into a successor reached from nowhere else takes that
// successor's instructions and way out, so that the list scheduler fills bundles across the boundary
// (a loop's set-up with its prologue). See block_merging.cpp.
void mergeStraightBlocks(MFunction& mf);

// A block that jumps to a short block (kShortTail instructions at most) gets a copy of it instead of the
// jump, ending as the short block does (with two jumps where it branches between two other blocks). Run
// threadJumps after it: blocks no longer reached are marked dead there. See block_merging.cpp.
void duplicateShortTails(MFunction& mf);

// The compare a block branches on, and the scalar arithmetic it needs from that block, moved to the end
// of the block whose conditional branch leads there (before allocation): computed in that block's free
// slots, not waited for. Returns how many instructions moved. See condition_hoisting.cpp.
int hoistBranchConditions(MFunction& mf);

// List scheduling of each block into bundles, honouring slots, latencies and the read-old-state rule of
// a bundle; every block ends with its writes landed, so blocks can be scheduled independently. Lays the
// blocks out and resolves branch targets.
std::vector<ScheduledBundle> scheduleFunction(const MFunction& mf, const isa::ArchInfo& arch);

// Where each source variable lives in the scheduled code, for the debug info: the bundles its value reaches
// along the control flow before its register is written again or the variable is assigned anew (one
// location per run of consecutive bundles). See variable_locations.cpp.
// `scopes` (optional) receives each record's inline scope and parameter flag (.tpc.debug_scopes); a value
// spilled to local memory is located in its slot where its register no longer holds it.
std::vector<obj::VarLocation> variableLocations(const MFunction& mf, const std::vector<ScheduledBundle>& bundles,
                                                std::vector<obj::VarScope>* scopes = nullptr);
// Fills the object's inline scopes from mf.scopes and the bundles' source locations (-g).
void appendInlineScopes(const MFunction& mf, const std::vector<ScheduledBundle>& bundles,
                        std::vector<obj::VarScope> varScopes, obj::KernelObject& o);

// The machine IR as text, for debugging the backend (tpc-clang -mllvm-like option --print-mir).
std::string printMir(const MFunction& mf);

}  // namespace tpc::cc
