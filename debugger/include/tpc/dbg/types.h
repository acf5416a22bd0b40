// What a source type name from the debug info means to the debugger: how many lanes of which element type,
// and whether they are truth values, vectors, predicates or an index register.
#pragma once

#include <optional>
#include <string>

#include "tpc/dbg/value.h"

namespace tpc::dbg {

struct TypeInfo {
  ValueKind kind = ValueKind::Scalar;
  DType elem = DType::I32;
  bool isBool = false;
  int lanes = 1;
  int arrayCount = 1;  // "float64[4]": 4 elements of `lanes` lanes each (every dimension multiplied)
};

// Known names: C scalars (int, unsigned, float, short, char, bool, _Bool, ...), the TPC-C vectors
// (float64, int64, uint64, short128, ushort128, char256, uchar256, bfloat128, half128), predicates
// (bool64, bool128, bool256) and int5, and arrays of them ("float64[4]", "int[2][3]"). nullopt for anything
// else.
std::optional<TypeInfo> parseTypeName(const std::string& name);

// The type a cast names: the scalar C types and the element names f32, i32, ...; nullopt otherwise.
std::optional<TypeInfo> parseCastType(const std::string& name);

}  // namespace tpc::dbg
