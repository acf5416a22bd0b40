// Values the debugger evaluates and prints: a scalar, the lanes of a vector or predicate register, an
// index register's five coordinates, a tensor (by parameter) or a 2-D slice of one. Every element type of
// the TPC is at most 32 bits wide, so each lane is held exactly as a double.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpc/isa/isa.h"
#include "tpc/support/dtype.h"

namespace tpc::dbg {

enum class ValueKind {
  Scalar,     // one element (lanes.size() == 1)
  Vector,     // lanes of a vector register (or a slice of them)
  Predicate,  // lanes of a vector predicate (0/1)
  Index,      // int5: five i32 coordinates
  Tensor,     // a tensor parameter (printed as its descriptor)
  Table,      // a 2-D slice of a tensor: rows x cols lanes
};

// Where an lvalue lives, for `set var`, `watch` and value updates.
struct Location {
  enum class Space { Register, ScalarLocal, VectorLocal, Global } space = Space::Register;
  isa::RegFile file = isa::RegFile::None;
  int index = 0;          // register number
  int firstLane = 0;      // first lane covered within the register (or coordinate of an index register)
  uint64_t address = 0;   // memory: byte address (global: the simulator's global address)
  DType elem = DType::I32;
  bool isBool = false;
  std::string describe() const;
};

struct Value {
  ValueKind kind = ValueKind::Scalar;
  DType elem = DType::I32;  // element type of each lane
  bool isBool = false;      // lanes are truth values (scalar predicates, vector predicates, C bool)
  std::vector<double> lanes;
  int rows = 0, cols = 0;   // Table
  int firstLane = 0;        // lane number of lanes[0] (a slice $v2[8:16] starts at 8); Table: first column index
  int rowsStart = 0;        // Table: index of the first row
  int colDim = 0, rowDim = -1;  // Table: the tensor dimensions of its columns and rows (-1: one row)
  int elementLanes = 0;     // an array of vectors: lanes per element (x[k] is element k); 0 otherwise
  int tensor = -1;          // Tensor/Table: the tensor's number
  std::string typeName;     // as the source names it, for display ("float64", "int"); may be empty
  std::optional<Location> location;  // set when the value is an lvalue (a whole register, lane or element)
  std::vector<Location> laneLocations;  // optional: one lvalue per lane (vector variables, for DAP children)

  static Value scalar(DType t, double v, bool isBool = false);
  bool isFloat() const { return dtypeIsFloat(elem); }
  bool isScalarLike() const { return kind == ValueKind::Scalar; }
  double number() const { return lanes.empty() ? 0.0 : lanes[0]; }
};

// Converts a double to the representable value of `t` (integers wrap as C converts them, floats round to
// the type's precision).
double convertToType(double v, DType t);

}  // namespace tpc::dbg
