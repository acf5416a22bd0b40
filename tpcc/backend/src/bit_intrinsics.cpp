// LLVM's bit-manipulation and saturating intrinsics as plain integer IR. The optimizer forms them from C
// that a kernel writes with operators (a loop that reverses or counts bits, a byte swap, a rotate, `a > b ?
// a - b : 0`), so -O2 met intrinsics that -O0 never did and rejected valid code; the cores have no single
// instruction for most of them. Each becomes shifts, masks, adds and selects of its own type, lane-wise
// for vectors, with LLVM's semantics (a funnel shift by its amount modulo the width; ctlz and cttz of zero
// are the width).
//
// Like power_of_two_division.cpp it runs on the optimized IR before instruction selection.
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>

#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

namespace ID = llvm::Intrinsic;

llvm::Constant* constantOf(llvm::Type* type, uint64_t v) { return llvm::ConstantInt::get(type, v); }

// Bit i of x moved to bit `to`, as (x >> i & 1) << to.
llvm::Value* bitMoved(llvm::IRBuilder<>& b, llvm::Value* x, unsigned i, unsigned to) {
  llvm::Type* t = x->getType();
  llvm::Value* bit = b.CreateAnd(b.CreateLShr(x, constantOf(t, i)), constantOf(t, 1));
  return b.CreateShl(bit, constantOf(t, to));
}

llvm::Value* bitReverse(llvm::IRBuilder<>& b, llvm::Value* x) {
  const unsigned w = x->getType()->getScalarSizeInBits();
  llvm::Value* r = bitMoved(b, x, 0, w - 1);
  for (unsigned i = 1; i < w; ++i) r = b.CreateOr(r, bitMoved(b, x, i, w - 1 - i));
  return r;
}

llvm::Value* byteSwap(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* t = x->getType();
  const unsigned bytes = t->getScalarSizeInBits() / 8;
  llvm::Value* r = nullptr;
  for (unsigned i = 0; i < bytes; ++i) {
    llvm::Value* byte = b.CreateAnd(b.CreateLShr(x, constantOf(t, 8 * i)), constantOf(t, 0xff));
    llvm::Value* moved = b.CreateShl(byte, constantOf(t, 8 * (bytes - 1 - i)));
    r = r ? b.CreateOr(r, moved) : moved;
  }
  return r;
}

// The number of set bits: the sum of the bits, in a tree of adds.
llvm::Value* popCount(llvm::IRBuilder<>& b, llvm::Value* x) {
  const unsigned w = x->getType()->getScalarSizeInBits();
  std::vector<llvm::Value*> terms;
  for (unsigned i = 0; i < w; ++i) terms.push_back(bitMoved(b, x, i, 0));
  while (terms.size() > 1) {
    std::vector<llvm::Value*> next;
    for (size_t i = 0; i + 1 < terms.size(); i += 2) next.push_back(b.CreateAdd(terms[i], terms[i + 1]));
    if (terms.size() % 2) next.push_back(terms.back());
    terms.swap(next);
  }
  return terms[0];
}

// Leading zeros by halving: where the top s bits of x are zero, count s and move x up by s. The width
// for zero.
llvm::Value* leadingZeros(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* t = x->getType();
  const unsigned w = t->getScalarSizeInBits();
  llvm::Value* count = constantOf(t, 0);
  llvm::Value* v = x;
  unsigned s = 1;
  while (s * 2 < w) s *= 2;
  for (; s >= 1; s /= 2) {
    llvm::Value* top = b.CreateLShr(v, constantOf(t, w - s));
    llvm::Value* none = b.CreateICmpEQ(top, constantOf(t, 0));
    count = b.CreateSelect(none, b.CreateAdd(count, constantOf(t, s)), count);
    v = b.CreateSelect(none, b.CreateShl(v, constantOf(t, s)), v);
  }
  // The steps count at most 2s - 1 >= w - 1 zeros before the top bit; zero has w.
  return b.CreateSelect(b.CreateICmpEQ(x, constantOf(t, 0)), constantOf(t, w), count);
}

// Trailing zeros: the set bits below the lowest set one (all w of them for zero).
llvm::Value* trailingZeros(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* t = x->getType();
  llvm::Value* lowest = b.CreateAnd(x, b.CreateNeg(x));
  return popCount(b, b.CreateSub(lowest, constantOf(t, 1)));
}

// fshl(a, b, s) = the high half of a:b shifted left by s mod w; fshr the low half of a:b shifted right.
llvm::Value* funnelShift(llvm::IRBuilder<>& b, llvm::Value* hi, llvm::Value* lo, llvm::Value* amount, bool left) {
  llvm::Type* t = hi->getType();
  const unsigned w = t->getScalarSizeInBits();
  llvm::Value* s = (w & (w - 1)) == 0 ? b.CreateAnd(amount, constantOf(t, w - 1))
                                       : b.CreateURem(amount, constantOf(t, w));
  llvm::Value* rest = b.CreateSub(constantOf(t, w), s);
  llvm::Value* zero = b.CreateICmpEQ(s, constantOf(t, 0));
  if (left) return b.CreateSelect(zero, hi, b.CreateOr(b.CreateShl(hi, s), b.CreateLShr(lo, rest)));
  return b.CreateSelect(zero, lo, b.CreateOr(b.CreateShl(hi, rest), b.CreateLShr(lo, s)));
}

llvm::Value* saturating(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, llvm::Value* x, llvm::Value* y) {
  llvm::Type* t = x->getType();
  const unsigned w = t->getScalarSizeInBits();
  llvm::Value* minSigned = llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(w));
  llvm::Value* maxSigned = llvm::ConstantInt::get(t, llvm::APInt::getSignedMaxValue(w));
  switch (id) {
    case ID::uadd_sat: {
      llvm::Value* sum = b.CreateAdd(x, y);
      return b.CreateSelect(b.CreateICmpULT(sum, x), llvm::ConstantInt::get(t, llvm::APInt::getMaxValue(w)), sum);
    }
    case ID::usub_sat:
      return b.CreateSelect(b.CreateICmpUGT(x, y), b.CreateSub(x, y), constantOf(t, 0));
    case ID::sadd_sat: {
      llvm::Value* sum = b.CreateAdd(x, y);
      // Overflow: both operands have the sign the sum lacks.
      llvm::Value* over = b.CreateICmpSLT(b.CreateAnd(b.CreateXor(x, sum), b.CreateXor(y, sum)), constantOf(t, 0));
      llvm::Value* bound = b.CreateSelect(b.CreateICmpSLT(x, constantOf(t, 0)), minSigned, maxSigned);
      return b.CreateSelect(over, bound, sum);
    }
    default: {  // ssub_sat
      llvm::Value* diff = b.CreateSub(x, y);
      // Overflow: the operands' signs differ and the difference has y's.
      llvm::Value* over = b.CreateICmpSLT(b.CreateAnd(b.CreateXor(x, y), b.CreateXor(x, diff)), constantOf(t, 0));
      llvm::Value* bound = b.CreateSelect(b.CreateICmpSLT(x, constantOf(t, 0)), minSigned, maxSigned);
      return b.CreateSelect(over, bound, diff);
    }
  }
}

llvm::Value* expand(llvm::IntrinsicInst& ii) {
  llvm::IRBuilder<> b(&ii);
  switch (ii.getIntrinsicID()) {
    case ID::bitreverse: return bitReverse(b, ii.getArgOperand(0));
    case ID::bswap: return byteSwap(b, ii.getArgOperand(0));
    case ID::ctpop: return popCount(b, ii.getArgOperand(0));
    case ID::ctlz: return leadingZeros(b, ii.getArgOperand(0));
    case ID::cttz: return trailingZeros(b, ii.getArgOperand(0));
    case ID::fshl: return funnelShift(b, ii.getArgOperand(0), ii.getArgOperand(1), ii.getArgOperand(2), true);
    case ID::fshr: return funnelShift(b, ii.getArgOperand(0), ii.getArgOperand(1), ii.getArgOperand(2), false);
    case ID::uadd_sat: case ID::usub_sat: case ID::sadd_sat: case ID::ssub_sat:
      return saturating(b, ii.getIntrinsicID(), ii.getArgOperand(0), ii.getArgOperand(1));
    default: return nullptr;
  }
}

}  // namespace

void expandBitIntrinsics(llvm::Function& f) {
  std::vector<llvm::IntrinsicInst*> calls;
  for (llvm::Instruction& i : llvm::instructions(f))
    if (auto* ii = llvm::dyn_cast<llvm::IntrinsicInst>(&i); ii && ii->getType()->isIntOrIntVectorTy())
      calls.push_back(ii);
  for (llvm::IntrinsicInst* ii : calls)
    if (llvm::Value* v = expand(*ii)) {
      if (auto* vi = llvm::dyn_cast<llvm::Instruction>(v)) vi->setDebugLoc(ii->getDebugLoc());
      ii->replaceAllUsesWith(v);
      ii->eraseFromParent();
    }
}

}  // namespace tpc::cc
