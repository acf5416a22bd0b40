// Values printed as gdb prints them: `5`, `1.5`, `{1, 2, 0 <repeats 62 times>}`, with /x /d /f; a one-row
// summary of a vector (the common value and the lanes that differ); a tensor slice as a table.
#pragma once

#include <string>

#include "tpc/dbg/value.h"

namespace tpc::dbg {

// format: 0 (natural), 'x', 'd', 'f'. A Table spans several lines.
std::string formatValue(const Value& v, char format = 0);
// One lane (or scalar) value.
std::string formatLane(double x, DType t, bool isBool, char format = 0);
// "64 lanes, all 0" or "64 lanes: 1.5, but [3] = 2, [17] = 4": for vectors and predicates; other values as
// formatValue.
std::string formatSummary(const Value& v, char format = 0);
// The type as shown in DAP and `whatis`: the source name, or one made from the element type and lanes.
std::string typeNameOf(const Value& v);

}  // namespace tpc::dbg
