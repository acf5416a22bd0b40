// Expressions as gdb's `print` takes them, over TPC-C: source variables, C operators and casts,
// registers ($s3 $v2 $i1 $sp1 $vp0 $ad0, $pc, $core, $N for the value history), local memory as arrays of an
// element type ($slm_i32[k], $vlm_f32[k]: element k of the focused core's scalar / vector local memory), lane
// slices ($v2[0:8],
// x[3]), tensor elements by parameter name in TPC order (in[0,2,5]) and 2-D tensor slices (in[:, :, 0]).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tpc/dbg/value.h"

namespace tpc::dbg {

// What an expression reads and writes; the session implements it for the focused core and frame.
class EvalContext {
 public:
  virtual ~EvalContext() = default;
  // A source variable or a tensor parameter by name; throws EvalError when there is none.
  virtual Value variable(const std::string& name) = 0;
  // $name without the dollar: registers, $pc, $core, $N (value history); throws EvalError.
  virtual Value dollar(const std::string& name) = 0;
  // One element (all coordinates given) of tensor n, as an lvalue.
  virtual Value tensorElement(int tensor, const std::vector<long long>& coords) = 0;
  // The tensor's sizes (TPC order).
  virtual std::vector<long long> tensorSizes(int tensor) = 0;
  // Writes `v` (already converted to the location's type) to the location.
  virtual void store(const Location& where, double v) = 0;
  // Reads one element at a location (local memory by address: $slm_i32[k], $vlm_f32[k]).
  virtual double load(const Location& where) = 0;
};

class EvalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A variable that exists in the frame but has no location at this address (gdb: <optimized out>).
class OptimizedOut : public EvalError {
 public:
  OptimizedOut();
};

struct Expr;

// Parses the whole text; throws EvalError with gdb's wording ("A syntax error in expression, near `...'.").
std::shared_ptr<Expr> parseExpression(const std::string& text);
Value evaluate(const Expr& e, EvalContext& ctx);
Value evaluate(const std::string& text, EvalContext& ctx);

}  // namespace tpc::dbg
