// One core's registers and memories as debugger values: reads that carry their location (so they can be
// assigned and watched), and writes of one lane or element.
#pragma once

#include <optional>
#include <string>

#include "tpc/dbg/debug_info.h"
#include "tpc/dbg/types.h"
#include "tpc/dbg/value.h"
#include "tpc/sim/core.h"

namespace tpc::dbg {

// A register named as in `$v2`, `$s3`, `$i1`, `$sp0`, `$vp1`, `$ad0`, optionally with a lane view
// (`$v2.i32`; vectors default to f32). nullopt when the name is no register.
struct RegisterName {
  isa::RegFile file;
  int index;
  DType view;
};
std::optional<RegisterName> parseRegisterName(const std::string& name);

Value readRegister(sim::Core& core, isa::RegFile file, int index, DType view);
// A variable at its recorded location, shown as its declared type (when known) or as the register's.
Value readVariable(sim::Core& core, const VarRecord& var);
// Reads the element of `t` at `location` (a Location over a register lane, local or global memory).
double readLocation(sim::Core& core, const Location& where);
void writeLocation(sim::Core& core, const Location& where, double value);
// The bytes a location covers, for a watch.
uint32_t locationBytes(const Location& where);

}  // namespace tpc::dbg
