// Machine IR built by hand for the backend's tests: registers and instructions.
#pragma once

#include "tpc/cc/passes.h"

namespace tpc::cc::test {

inline Reg phys(RegFile file, uint32_t id) { return Reg{file, id, true}; }
inline Reg virt(RegFile file, uint32_t id) { return Reg{file, id, false}; }

// `id dst, a, b` (f32 unless the caller sets dtype).
inline MInst op(isa::InsnId id, Reg dst, MOperand a, MOperand b = MOperand{}) {
  MInst mi;
  mi.op = id;
  mi.dtype = DType::F32;
  mi.dst = dst;
  mi.src[0] = a;
  mi.src[1] = b;
  return mi;
}

}  // namespace tpc::cc::test
