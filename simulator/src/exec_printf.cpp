// printf: formats a scalar, a vector lane or nothing with one of the program's checked format strings and
// appends the text to the core's output (tpc-sim prints it after the run, core by core).
#include <fmt/format.h>

#include "exec_common.h"

namespace tpc::sim::exec {

namespace {

uint32_t formatIndex(const Core& c, const DecodedSlot& d) {
  uint32_t n = d.field(SwitchField::Format);
  if (n >= c.program().numPrintfFormats())
    throw ExecError(fmt::format("printf names format {}, but the kernel has {} format strings", n,
                                c.program().numPrintfFormats()));
  return n;
}

void printString(Core& c, const DecodedSlot& d) {
  uint32_t n = formatIndex(c, d);
  c.appendPrintf(isa::formatPrintf(c.program().printfFormat(n), c.program().printfParsed(n), DType::I32, 0));
}

void printScalar(Core& c, const DecodedSlot& d) {
  uint32_t n = formatIndex(c, d);
  c.appendPrintf(isa::formatPrintf(c.program().printfFormat(n), c.program().printfParsed(n), d.dt, rawScalarSrc(c, d, 0)));
}

void printLane(Core& c, const DecodedSlot& d) {
  uint32_t n = formatIndex(c, d);
  const size_t size = dtypeSize(d.dt);
  const uint32_t lanes = isa::kVectorBytes / static_cast<uint32_t>(size);
  uint32_t lane = rawScalarSrc(c, d, 1);
  if (lane >= lanes) throw ExecError(fmt::format("printf of lane {} of a {}-lane vector", lane, lanes));
  uint32_t bits = 0;
  std::memcpy(&bits, c.r.v[d.src[0]].bytes + lane * size, size);
  c.appendPrintf(isa::formatPrintf(c.program().printfFormat(n), c.program().printfParsed(n), d.dt, bits));
}

}  // namespace

ExecFn printfExec(const isa::SlotInsn& insn) {
  switch (insn.id) {
    case isa::InsnId::SpuPrintfStr: return &printString;
    case isa::InsnId::SpuPrintf: return &printScalar;
    case isa::InsnId::SpuPrintfLane: return &printLane;
    default: return nullptr;
  }
}

}  // namespace tpc::sim::exec
