// An induction variable's increment moved after the variable's last read in its block (LLVM IR, last
// before instruction selection).
//
// The unroller puts `n.next = n + 512` where the copies' `n + 64 j` were, early in the loop's header,
// and reads of n may follow it (a coordinate built from n just before an inner loop). Then n and n.next
// are both alive between the two, the allocator cannot give them one register, and the back edge needs
// a copy, which in a loop with more than one block sits in a block of its own behind a jump: a copy, a
// jump and its branch penalty on every iteration (matmul's loop over column groups). After the last
// read, the increment ends n's life where n.next's begins.
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>

#include "tpc/cc/codegen.h"

namespace tpc::cc {

void sinkIvIncrements(llvm::Function& f) {
  llvm::DominatorTree dt(f);
  llvm::LoopInfo li(dt);
  for (llvm::Loop* loop : li.getLoopsInPreorder()) {
    llvm::BasicBlock* header = loop->getHeader();
    llvm::BasicBlock* latch = loop->getLoopLatch();
    if (!latch) continue;
    for (llvm::PHINode& phi : header->phis()) {
      auto* next = llvm::dyn_cast<llvm::BinaryOperator>(phi.getIncomingValueForBlock(latch));
      if (!next || next->getParent() != header || next->getOperand(0) != &phi ||
          !llvm::isa<llvm::Constant>(next->getOperand(1)))
        continue;
      // The last read of the variable in the header, and no read of the increment before it.
      llvm::Instruction* last = nullptr;
      for (llvm::User* u : phi.users()) {
        auto* ui = llvm::dyn_cast<llvm::Instruction>(u);
        if (ui && ui != next && ui->getParent() == header && !llvm::isa<llvm::PHINode>(ui) &&
            (!last || last->comesBefore(ui)))
          last = ui;
      }
      if (!last || last->comesBefore(next) || last->isTerminator()) continue;
      bool readBefore = false;
      for (llvm::User* u : next->users()) {
        auto* ui = llvm::dyn_cast<llvm::Instruction>(u);
        readBefore |= ui && ui->getParent() == header && !llvm::isa<llvm::PHINode>(ui) && !last->comesBefore(ui);
      }
      if (!readBefore) next->moveAfter(last);
    }
  }
}

}  // namespace tpc::cc
