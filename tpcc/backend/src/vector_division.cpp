// Integer division and remainder of vectors. The core has no vector divide (the SPU's udiv/urem are
// scalar), so `a / b` and `a % b` on integer vectors become restoring long division in plain vector IR:
// one step per bit of the element type, each a few shifts, compares, selects and a subtraction on the VPU.
// Division by zero gives what the SPU gives for scalars: a quotient of all ones, a remainder equal to the
// dividend. Signed forms divide the magnitudes and fix the signs as the scalar path does (isel.cpp,
// signedDivide), so `INT_MIN / -1` is INT_MIN.
//
// It runs on the optimized IR, before instruction selection and before the object's bitcode is written,
// so the native reference runs the same sequence and agrees bit for bit, division by zero included.
#include <utility>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

// n / d and n % d of unsigned integer vectors, lane by lane.
std::pair<llvm::Value*, llvm::Value*> unsignedDivRem(llvm::IRBuilder<>& b, llvm::Value* n, llvm::Value* d) {
  auto* type = llvm::cast<llvm::VectorType>(n->getType());
  const unsigned width = type->getScalarSizeInBits();
  llvm::Value* zero = llvm::Constant::getNullValue(type);
  llvm::Value* q = zero;
  llvm::Value* r = zero;
  for (unsigned i = width; i-- > 0;) {
    // r < d before the step, so 2r + bit < 2d; a carry out of the element means 2r + bit >= d.
    llvm::Value* carry = b.CreateICmpSLT(r, zero);
    llvm::Value* bit = b.CreateAnd(b.CreateLShr(n, i), llvm::ConstantInt::get(type, 1));
    r = b.CreateOr(b.CreateShl(r, 1), bit);
    llvm::Value* fits = b.CreateOr(carry, b.CreateICmpUGE(r, d));
    r = b.CreateSelect(fits, b.CreateSub(r, d), r);
    q = b.CreateSelect(fits, b.CreateOr(q, llvm::ConstantInt::get(type, llvm::APInt::getOneBitSet(width, i))), q);
  }
  return {q, r};
}

llvm::Value* expand(llvm::BinaryOperator& op) {
  llvm::IRBuilder<> b(&op);
  b.SetCurrentDebugLocation(op.getDebugLoc());
  llvm::Value* n = op.getOperand(0);
  llvm::Value* d = op.getOperand(1);
  switch (op.getOpcode()) {
    case llvm::Instruction::UDiv: return unsignedDivRem(b, n, d).first;
    case llvm::Instruction::URem: return unsignedDivRem(b, n, d).second;
    default: break;
  }
  llvm::Value* zero = llvm::Constant::getNullValue(n->getType());
  llvm::Value* negativeN = b.CreateICmpSLT(n, zero);
  llvm::Value* absN = b.CreateSelect(negativeN, b.CreateNeg(n), n);
  llvm::Value* absD = b.CreateSelect(b.CreateICmpSLT(d, zero), b.CreateNeg(d), d);
  auto [q, r] = unsignedDivRem(b, absN, absD);
  if (op.getOpcode() == llvm::Instruction::SRem) return b.CreateSelect(negativeN, b.CreateNeg(r), r);
  llvm::Value* negativeQ = b.CreateICmpSLT(b.CreateXor(n, d), zero);
  return b.CreateSelect(negativeQ, b.CreateNeg(q), q);
}

}  // namespace

void expandVectorDivision(llvm::Function& f) {
  std::vector<llvm::BinaryOperator*> divisions;
  for (llvm::Instruction& in : llvm::instructions(f)) {
    auto* op = llvm::dyn_cast<llvm::BinaryOperator>(&in);
    if (!op || !op->getType()->isVectorTy() || !op->getType()->isIntOrIntVectorTy()) continue;
    switch (op->getOpcode()) {
      case llvm::Instruction::UDiv: case llvm::Instruction::URem:
      case llvm::Instruction::SDiv: case llvm::Instruction::SRem: divisions.push_back(op); break;
      default: break;
    }
  }
  for (llvm::BinaryOperator* op : divisions) {
    llvm::Value* result = expand(*op);
    result->takeName(op);
    op->replaceAllUsesWith(result);
    op->eraseFromParent();
  }
}

}  // namespace tpc::cc
