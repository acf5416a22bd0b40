// Maps an instruction to its semantics function; each family of instructions answers for its own rows.
#include "exec_common.h"

namespace tpc::sim {

ExecFn execFunctionFor(const isa::SlotInsn& insn) {
  using Lookup = ExecFn (*)(const isa::SlotInsn&);
  static constexpr Lookup kFamilies[] = {exec::memoryExec, exec::scalarExec, exec::controlExec,
                                         exec::vectorAluExec, exec::vectorDataExec, exec::printfExec};
  for (Lookup family : kFamilies)
    if (ExecFn fn = family(insn)) return fn;
  return nullptr;
}

}  // namespace tpc::sim
