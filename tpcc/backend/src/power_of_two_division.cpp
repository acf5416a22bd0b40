// Integer division and remainder by a power of two (a constant, or a splat of one for vectors) as shifts
// and masks. The SPU's udiv takes 8 cycles, and a signed division puts two abs, a compare and a negation
// around it (isel.cpp, signedDivide); a division of vectors is a long division of 32 steps
// (vector_division.cpp). InstCombine already makes the unsigned forms and exact signed ones shifts, but a
// signed one stays a division in IR (LLVM's own targets expand it during instruction selection), and
// `n / 4` of an int parameter is common in kernels: the trip count of a loop unrolled by hand.
//
// Like vector_division.cpp it runs on the optimized IR before instruction selection and before the
// object's bitcode is written, and the results are those of C: quotients round toward zero, a remainder
// takes the dividend's sign.
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PatternMatch.h>

#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

// log2 of the divisor when it is 2^k with 1 <= k and, for the signed forms, 2^k positive; else -1.
int powerOfTwoDivisor(const llvm::BinaryOperator& op) {
  const llvm::APInt* d = nullptr;
  if (!llvm::PatternMatch::match(op.getOperand(1), llvm::PatternMatch::m_Power2(d))) return -1;
  const unsigned k = d->logBase2();
  const bool isSigned = op.getOpcode() == llvm::Instruction::SDiv || op.getOpcode() == llvm::Instruction::SRem;
  if (k == 0 || (isSigned && k + 1 >= d->getBitWidth())) return -1;
  return static_cast<int>(k);
}

llvm::Value* expand(llvm::BinaryOperator& op, unsigned k) {
  llvm::IRBuilder<> b(&op);
  llvm::Value* x = op.getOperand(0);
  llvm::Type* type = x->getType();
  const unsigned width = type->getScalarSizeInBits();
  auto constant = [&](const llvm::APInt& v) { return llvm::ConstantInt::get(type, v); };
  const llvm::APInt low = llvm::APInt::getLowBitsSet(width, k);  // 2^k - 1
  switch (op.getOpcode()) {
    case llvm::Instruction::UDiv: return b.CreateLShr(x, k);
    case llvm::Instruction::URem: return b.CreateAnd(x, constant(low));
    default: break;
  }
  // A negative dividend is biased by 2^k - 1 first, so that the shift rounds toward zero.
  llvm::Value* bias = b.CreateLShr(b.CreateAShr(x, width - 1), width - k);
  llvm::Value* biased = b.CreateAdd(x, bias);
  if (op.getOpcode() == llvm::Instruction::SDiv) return b.CreateAShr(biased, k);
  return b.CreateSub(x, b.CreateAnd(biased, constant(~low)));
}

}  // namespace

void expandPowerOfTwoDivision(llvm::Function& f) {
  std::vector<std::pair<llvm::BinaryOperator*, unsigned>> divisions;
  for (llvm::Instruction& in : llvm::instructions(f)) {
    auto* op = llvm::dyn_cast<llvm::BinaryOperator>(&in);
    if (!op || !op->getType()->isIntOrIntVectorTy()) continue;
    const unsigned width = op->getType()->getScalarSizeInBits();
    if (width != 8 && width != 16 && width != 32) continue;
    switch (op->getOpcode()) {
      case llvm::Instruction::UDiv: case llvm::Instruction::URem:
      case llvm::Instruction::SDiv: case llvm::Instruction::SRem: {
        const int k = powerOfTwoDivisor(*op);
        if (k > 0) divisions.emplace_back(op, static_cast<unsigned>(k));
        break;
      }
      default: break;
    }
  }
  for (auto [op, k] : divisions) {
    llvm::Value* result = expand(*op, k);
    result->takeName(op);
    op->replaceAllUsesWith(result);
    op->eraseFromParent();
  }
}

}  // namespace tpc::cc
