// What the lowering of TPC intrinsic calls (isel_intrinsics.cpp) needs from instruction selection
// (isel.cpp): registers of IR values, operands in the forms an instruction slot accepts, and emission.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tpc/cc/isel.h"
#include "tpc/isa/intrinsics.h"

namespace llvm {
class CallInst;
class Value;
}  // namespace llvm

namespace tpc::cc {

class SelectionContext {
 public:
  virtual ~SelectionContext() = default;
  // The register of a value (constants are materialized); all registers of an aggregate.
  virtual Reg valueReg(llvm::Value* v) = 0;
  virtual const std::vector<Reg>& valueRegs(llvm::Value* v) = 0;
  // An operand for a slot that takes `kinds` (isa::kindBit masks): an immediate or a broadcast scalar
  // when the value is a constant or a splat and the slot allows it, else a register.
  virtual MOperand valueOperand(llvm::Value* v, uint32_t kinds) = 0;
  // An int5 value as the first source of an index-register operation: an immediate or a scalar register
  // when it is a splat (broadcast to the dimensions), else an index register.
  virtual MOperand indexSource(llvm::Value* v) = 0;
  // A vector value in a V register (splats broadcast with a move).
  virtual Reg vectorReg(llvm::Value* v) = 0;
  virtual Reg freshReg(RegFile f) = 0;
  // The kernel's index-space offset or size (isa::kIndexSpaceOffsetReg, kIndexSpaceSizeReg) as a virtual
  // register that the allocator must give that index register, so that a copy of it can share it.
  virtual Reg indexSpaceReg(uint32_t phys) = 0;
  virtual MInst& emitInst(MInst mi) = 0;
  virtual void emitRegCopy(Reg dst, Reg src) = 0;
  virtual void copyIrValue(llvm::Value* dst, llvm::Value* src) = 0;
  virtual SourceLoc currentLoc() const = 0;
  // Where an error about the instruction being selected points (see Selector::errorLoc).
  virtual SourceLoc errorLocation() const = 0;
  // The tensor number of a tensor argument (a kernel tensor parameter or a constant).
  virtual int tensorNumber(llvm::Value* v, const std::string& intrinsic) = 0;
  // Records a tensor access's coordinates for the scheduler's memory disambiguation.
  virtual void noteCoordinates(llvm::Value* ndx, MInst* m) = 0;
  [[noreturn]] virtual void fail(const llvm::Value& v, const std::string& what) = 0;
};

// An instruction with its data type (ignored for instructions that have none).
MInst makeInst(isa::InsnId op, DType dt, Reg dst);

// Lowers a call of a TPC intrinsic (after the header's default-argument wrappers: __tpc_<name>).
void lowerIntrinsicCall(SelectionContext& cx, llvm::CallInst& call, const isa::IntrinsicInfo& info);

}  // namespace tpc::cc
