// What one intrinsic (or printf) call of the kernel does, decided once when the module is prepared: which
// arguments go into which registers of the running core (used as scratch registers), the instructions to
// run there (the simulator's own decoded slots and semantics functions) and where the result comes from.
// No LLVM here: module_rewrite.cpp builds the plans and writes the argument and result moves as IR around
// a call of the runtime, which runs the steps (runtime.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tpc/sim/program.h"

namespace tpc::native {

// How an IR value is laid out in the argument buffer and held in a register.
enum class ValueKind : uint8_t {
  Vector,      // 256 bytes in a V register
  BoolVector,  // bool64/128/256: 8, 16 or 32 bytes, bit i for lane i, in a VP register
  Int5,        // int5: five i32 in an I register
  Bool,        // i1 (a byte 0/1 in the buffer) in an SP register, or as 0/1 in an S register
  Scalar,      // a 32-bit integer (narrower ones arrive sign-extended, as the compiler keeps them), or an
               // f32, bf16 or f16 value, in an S register
  GlobalPtr,   // a __global__ pointer (a host pointer into the launch's global memory) in an AD register
};

struct ValueSlot {
  ValueKind kind = ValueKind::Scalar;
  isa::RegFile file = isa::RegFile::None;
  uint8_t reg = 0;
  int arg = -1;     // argument index (inputs only)
  int member = -1;  // the member of a pair (float128, ...) argument or result, -1 for a whole value
};

// The byte offset of a register in sim::RegisterFile.
size_t registerOffset(isa::RegFile file, uint8_t reg);

struct PlanStep {
  sim::DecodedSlot slot;
  bool runtimeTensor = false;  // the tnsr switch field comes from the call (a tensor parameter)
};

struct CallPlan {
  enum class Kind : uint8_t {
    Execute,    // inputs into registers, run the steps, read the result
    ReturnArg,  // the instruction does not run (constant false predicate): the result is an argument
    CopyArg,    // a reinterpretation: the result is the argument's bytes
    Nothing,    // a void call that does not run
  };
  Kind kind = Kind::Execute;
  std::string name;  // the intrinsic (or "printf"), for messages
  std::vector<ValueSlot> inputs;
  std::vector<PlanStep> steps;
  bool hasResult = false;
  ValueSlot result;
  std::vector<ValueSlot> resultMembers;  // a pair result: one slot per member (result unused)
  int resultArg = -1;  // ReturnArg, CopyArg
  int tensorArg = -1;  // the argument with the tensor number of a step with runtimeTensor
};

}  // namespace tpc::native
