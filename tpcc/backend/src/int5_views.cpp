// Narrow views of an int5 across PHIs (LLVM IR, before instruction selection).
//
// LLVM reads `(uint8_t)c[3]` as byte 12 of the int5 bit cast to <20 x i8>, and instruction selection
// reads such a view part by part from the int5's index register (isel.cpp, int5LaneView). When the view
// itself flows through a PHI (a value live out of an unrolled loop: the last iteration's byte, stored
// after the loop), the PHI would hold a <20 x i8>, which no register file holds. The PHI is made one of
// the int5s instead, and the view is taken after it.
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include "tpc/cc/codegen.h"

namespace tpc::cc {

namespace {

// The int5 a view of narrower integers is a bit cast of, or null.
llvm::Value* int5Behind(llvm::Value* v) {
  auto* bc = llvm::dyn_cast<llvm::BitCastInst>(v);
  if (!bc) return nullptr;
  auto* from = llvm::dyn_cast<llvm::FixedVectorType>(bc->getSrcTy());
  if (!from || from->getNumElements() != 5 || !from->getElementType()->isIntegerTy(32)) return nullptr;
  return bc->getOperand(0);
}

bool isNarrowView(llvm::Type* t) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t);
  return vt && vt->getElementType()->isIntegerTy() && vt->getScalarSizeInBits() < 32 &&
         vt->getPrimitiveSizeInBits() == 160;
}

}  // namespace

void viewInt5sAfterPhis(llvm::Function& f) {
  auto* int5 = llvm::FixedVectorType::get(llvm::Type::getInt32Ty(f.getContext()), 5);
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<llvm::PHINode*> phis;
    for (llvm::BasicBlock& bb : f)
      for (llvm::PHINode& phi : bb.phis())
        if (isNarrowView(phi.getType())) phis.push_back(&phi);
    for (llvm::PHINode* phi : phis) {
      bool views = true;
      for (llvm::Value* in : phi->incoming_values()) views &= llvm::isa<llvm::UndefValue>(in) || int5Behind(in);
      if (!views) continue;
      llvm::PHINode* wide = llvm::PHINode::Create(int5, phi->getNumIncomingValues(), phi->getName() + ".int5", phi);
      for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
        llvm::Value* in = phi->getIncomingValue(k);
        wide->addIncoming(llvm::isa<llvm::UndefValue>(in) ? llvm::PoisonValue::get(int5) : int5Behind(in),
                          phi->getIncomingBlock(k));
      }
      llvm::IRBuilder<> b(&*phi->getParent()->getFirstInsertionPt());
      llvm::Value* view = b.CreateBitCast(wide, phi->getType(), phi->getName());
      phi->replaceAllUsesWith(view);
      phi->eraseFromParent();
      changed = true;  // a PHI of this one's view may now qualify
    }
  }
}

// Arithmetic on a view read only lane by lane: the lanes that are read, as scalars. `(uint16_t)c[2] *
// (uint16_t)c[2]` stays scalar in the source, but LLVM may multiply the whole <10 x i16> view and read
// lane 4 of the product (fuzz seed 365062); no register file holds the product, while a lane of the view
// itself is one part of an index register.
void scalarizeViewArithmetic(llvm::Function& f) {
  std::vector<llvm::BinaryOperator*> ops;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb)
      if (auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(&i); bo && isNarrowView(bo->getType())) ops.push_back(bo);
  // Users before their operands: an operation read only by one being scalarized is then read lane by lane.
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    llvm::BinaryOperator* bo = *it;
    // Each user reads one lane: an extract at a constant index, or a splat of one lane.
    std::vector<std::pair<llvm::Instruction*, uint64_t>> reads;
    bool laneByLane = true;
    for (llvm::User* u : bo->users()) {
      if (auto* ee = llvm::dyn_cast<llvm::ExtractElementInst>(u)) {
        auto* k = llvm::dyn_cast<llvm::ConstantInt>(ee->getIndexOperand());
        if (k && ee->getVectorOperand() == bo) {
          reads.push_back({ee, k->getZExtValue()});
          continue;
        }
      } else if (auto* sv = llvm::dyn_cast<llvm::ShuffleVectorInst>(u); sv && sv->getOperand(0) == bo) {
        const int lane = sv->getMaskValue(0);
        bool splat = lane >= 0;
        for (int m : sv->getShuffleMask()) splat &= m == lane;
        if (splat && static_cast<unsigned>(lane) < llvm::cast<llvm::FixedVectorType>(bo->getType())->getNumElements()) {
          reads.push_back({sv, static_cast<uint64_t>(lane)});
          continue;
        }
      }
      laneByLane = false;
    }
    if (!laneByLane || reads.empty()) continue;
    for (auto [user, lane] : reads) {
      llvm::IRBuilder<> b(user);
      llvm::Value* x = b.CreateExtractElement(bo->getOperand(0), lane);
      llvm::Value* y = b.CreateExtractElement(bo->getOperand(1), lane);
      llvm::Value* scalar = b.CreateBinOp(bo->getOpcode(), x, y, bo->getName() + ".lane");
      if (auto* si = llvm::dyn_cast<llvm::Instruction>(scalar)) si->copyIRFlags(bo);
      llvm::Value* now = scalar;
      if (auto* sv = llvm::dyn_cast<llvm::ShuffleVectorInst>(user)) {
        auto* type = llvm::cast<llvm::FixedVectorType>(sv->getType());
        now = b.CreateVectorSplat(type->getNumElements(), scalar);
      }
      user->replaceAllUsesWith(now);
      user->eraseFromParent();
    }
    if (bo->use_empty()) bo->eraseFromParent();
  }
}

}  // namespace tpc::cc
