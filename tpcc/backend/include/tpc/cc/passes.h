// The backend's passes over machine IR, in the order the pipeline runs them.
#pragma once

#include <vector>

#include "tpc/cc/isel.h"
#include "tpc/cc/mir.h"
#include "tpc/object/kernel_object.h"

namespace tpc::cc {

// Modulo scheduling of hardware loop bodies: iterations overlap in a kernel with a prologue and an
// epilogue. Returns how many loops it transformed. See modsched.cpp.
struct ModuloOptions {
  bool splitIvs = true;   // stores may get coordinate induction variables of their own (index registers)
  bool expand = true;     // values may outlive the initiation interval, carried by copies (modulo_expansion.cpp)
  int registerMargin = 0; // registers of each file a schedule must leave free by its own count of live values
};
struct ModuloResult {
  int loops = 0, splits = 0, copies = 0;  // loops scheduled; second induction variables and copies they use
};
int moduloScheduleLoops(MFunction& mf, const ModuloOptions& options = {}, ModuloResult* result = nullptr);

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

// A block that jumps to a short block (kShortTail instructions at most) ending in a halt, or going on
// into the block after the jumping one, gets a copy of it instead of the jump. Run threadJumps after it:
// blocks no longer reached are marked dead there. See block_merging.cpp.
void duplicateShortTails(MFunction& mf);

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
