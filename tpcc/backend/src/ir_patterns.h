// Small LLVM IR pattern helpers shared by the IR passes and instruction selection.
#pragma once

#include <cstdint>
#include <utility>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Instructions.h>

namespace tpc::cc {

// Splits a scalar into a base value and a constant: x + C -> (x, C). After unrolling, LLVM writes k + 1
// as `or disjoint k, 1` when k is known even; that is an add too.
inline std::pair<llvm::Value*, int64_t> baseAndConstant(llvm::Value* x, bool orIsAdd = true) {
  int64_t c = 0;
  while (auto* op = llvm::dyn_cast<llvm::BinaryOperator>(x)) {
    bool disjointOr = orIsAdd && op->getOpcode() == llvm::Instruction::Or && llvm::cast<llvm::PossiblyDisjointInst>(op)->isDisjoint();
    if (op->getOpcode() != llvm::Instruction::Add && !disjointOr) break;
    auto* k = llvm::dyn_cast<llvm::ConstantInt>(op->getOperand(1));
    if (!k) break;
    c += k->getSExtValue();
    x = op->getOperand(0);
  }
  return {x, c};
}

// An int5 coordinate: <5 x i32>.
inline bool isInt5(const llvm::Type* t) {
  const auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t);
  return vt && vt->getNumElements() == 5 && vt->getElementType()->isIntegerTy(32);
}

// The int5 lane an insertion writes (-1: not a constant lane).
inline int laneOf(const llvm::InsertElementInst* ie) {
  const auto* k = llvm::dyn_cast<llvm::ConstantInt>(ie->getOperand(2));
  return k && k->getZExtValue() < 5 ? static_cast<int>(k->getZExtValue()) : -1;
}

}  // namespace tpc::cc
