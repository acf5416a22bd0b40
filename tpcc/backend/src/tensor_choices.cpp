// Arguments chosen at run time that the instruction needs at compile time. A tensor access names its
// tensor in the instruction, but LLVM merges `if (c) x = get_dim_stride(a, 2); else x = get_dim_stride(b, 2);`
// into one call of a select (or PHI) between tensors, and a kernel may write `tensor t = c ? a : b;` itself;
// the same merge turns `if (c) x = get_dim_size(t, 0); else x = get_dim_size(t, 2);` into a call whose
// dimension, a switch field, is a select of constants. Such an argument is a choice among a few values
// known at compile time: the choice becomes a select (or PHI) of their numbers (a tensor's number is its
// position among the tensors), and the call one call per value, each with a constant: descriptor queries
// (no effects) all run and their results are selected, other calls run in branches on the number, of which
// one runs.
#include <functional>
#include <map>
#include <set>

#include <llvm/Analysis/ConstantFolding.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Support/KnownBits.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include "tpc/cc/codegen.h"
#include "tpc/isa/intrinsic_lowering.h"
#include "tpc/isa/intrinsics.h"

namespace tpc::cc {

namespace {

class TensorChoices {
 public:
  TensorChoices(llvm::Function& f, const KernelSignature& signature) : f_(f), dl_(f.getParent()->getDataLayout()) {
    int number = 0;
    for (size_t k = 0; k < signature.params.size() && k < f.arg_size(); ++k)
      if (signature.params[k].isTensor) {
        llvm::Argument* a = f.getArg(static_cast<unsigned>(k));
        numbers_[a] = llvm::cast<llvm::ConstantInt>(llvm::ConstantInt::get(a->getType(), number++));
      }
  }

  void run() {
    // One argument of each call per round: the calls a round makes may still have another to settle.
    for (int round = 0; round < 4; ++round) {
      std::vector<std::pair<llvm::CallInst*, unsigned>> calls;
      for (llvm::BasicBlock& bb : f_)
        for (llvm::Instruction& i : bb)
          if (auto* call = llvm::dyn_cast<llvm::CallInst>(&i))
            if (llvm::Function* callee = call->getCalledFunction(); callee && callee->getName().starts_with(isa::kBuiltinPrefix.data()))
              if (const isa::IntrinsicInfo* info = isa::findIntrinsic(callee->getName().drop_front(isa::kBuiltinPrefix.size())))
                for (int k : compileTimeParams(*info))
                  if (k >= 0 && static_cast<unsigned>(k) < call->arg_size() && !fixed(call->getArgOperand(static_cast<unsigned>(k)))) {
                    std::set<int64_t> leaves;
                    if (possibleValues(*info, *call, static_cast<unsigned>(k), &leaves)) {
                      calls.emplace_back(call, static_cast<unsigned>(k));
                      break;
                    }
                  }
      if (calls.empty()) break;
      for (auto [call, k] : calls) {
        std::set<int64_t> leaves;
        const bool chosen = candidates(call->getArgOperand(k), &leaves) && !leaves.empty();
        if (!chosen) possibleValues(*isa::findIntrinsic(call->getCalledFunction()->getName().drop_front(isa::kBuiltinPrefix.size())), *call, k, &leaves);
        llvm::Value* n = chosen ? number(call->getArgOperand(k)) : call->getArgOperand(k);
        std::vector<llvm::Constant*> choices;
        for (int64_t t : leaves) choices.push_back(llvm::ConstantInt::get(n->getType(), t, /*IsSigned=*/true));
        if (isDescriptorQuery(*call)) selectResults(call, k, n, choices);
        else branch(call, k, n, choices);
      }
    }
    removeDeadChoices();  // anything left unsettled the backend reports
  }

  // The values argument k may take: the leaves of its selects and PHIs of constants (and tensors), or
  // those its known bits allow (LLVM turns `c ? 0 : 2` into arithmetic, `c ? SW_SAT : 0` into a zero
  // extension): for a dimension, whose values are few (0-4), when they keep it within them; for another
  // switch field, when at most kUnknownSwitchBits of its bits are unknown. False when none applies.
  static constexpr unsigned kUnknownSwitchBits = 3;
  bool possibleValues(const isa::IntrinsicInfo& info, llvm::CallInst& call, unsigned k, std::set<int64_t>* out) {
    if (candidates(call.getArgOperand(k), out) && !out->empty()) return true;
    out->clear();
    if (!call.getArgOperand(k)->getType()->isIntegerTy()) return false;
    const llvm::KnownBits known = llvm::computeKnownBits(call.getArgOperand(k), dl_);
    if (static_cast<int>(k) != info.paramIndex("dim")) {
      // An argument that may be anything stays an error, as at -O0.
      const llvm::APInt unknown = ~(known.Zero | known.One);
      if (unknown.popcount() > kUnknownSwitchBits) return false;
      std::vector<unsigned> bits;
      for (unsigned b = 0; b < unknown.getBitWidth(); ++b)
        if (unknown[b]) bits.push_back(b);
      for (unsigned subset = 0; subset < (1u << bits.size()); ++subset) {
        llvm::APInt value = known.One;
        for (size_t j = 0; j < bits.size(); ++j)
          if (subset & (1u << j)) value.setBit(bits[j]);
        out->insert(value.getSExtValue());
      }
      return true;
    }
    // Only values within the dimensions.
    if (known.getMaxValue().ugt(4)) return false;
    for (uint64_t d = 0; d < 5; ++d) {
      const llvm::APInt value(known.getBitWidth(), d);
      if ((value & known.Zero).isZero() && (value & known.One) == known.One) out->insert(static_cast<int64_t>(d));
    }
    return !out->empty();
  }

  // The parameters the instruction needs at compile time: the tensor, and the ones that become switch
  // fields (a dimension, a dimension mask, the switches).
  static std::vector<int> compileTimeParams(const isa::IntrinsicInfo& info) {
    return {isa::intrinsicTensorParam(info), info.paramIndex("dim"), info.paramIndex("dimmask"),
            info.paramIndex("switches")};
  }

 private:
  // A tensor parameter or a constant, through casts: what selection takes as it is.
  bool fixed(llvm::Value* v) const {
    while (auto* cast = llvm::dyn_cast<llvm::CastInst>(v)) v = cast->getOperand(0);
    return numbers_.count(v) || llvm::isa<llvm::Constant>(v);
  }

  static bool isDescriptorQuery(const llvm::CallInst& call) {
    const isa::IntrinsicInfo* info =
        isa::findIntrinsic(call.getCalledFunction()->getName().drop_front(isa::kBuiltinPrefix.size()));
    switch (info->lowering) {
      case isa::Lowering::TensorDimSize:
      case isa::Lowering::TensorDimStride:
      case isa::Lowering::TensorHwprefStride:
      case isa::Lowering::TensorPadBits: return true;
      default: return false;
    }
  }

  // The constant value of a tensor parameter or a constant, as `v`'s type; null for anything else.
  llvm::ConstantInt* leaf(llvm::Value* v) const {
    if (auto it = numbers_.find(v); it != numbers_.end()) return it->second;
    return llvm::dyn_cast<llvm::ConstantInt>(v);
  }

  // The tensor numbers `v` may hold, when it is made of tensor parameters and constants by selects, PHIs
  // and casts; false when anything else takes part (a tensor in arithmetic, a value loaded from memory).
  bool candidates(llvm::Value* v, std::set<int64_t>* out) {
    std::set<llvm::Value*> seen;
    // `casts`: the casts passed on the way down, to apply to a constant found below them.
    std::function<bool(llvm::Value*, std::vector<llvm::CastInst*>)> walk = [&](llvm::Value* x, std::vector<llvm::CastInst*> casts) {
      if (llvm::isa<llvm::UndefValue>(x)) return true;  // any tensor will do
      if (llvm::ConstantInt* c = leaf(x)) {
        llvm::Constant* r = c;
        for (auto it = casts.rbegin(); it != casts.rend() && r; ++it)
          r = llvm::ConstantFoldCastOperand((*it)->getOpcode(), r, (*it)->getType(), dl_);
        auto* ci = llvm::dyn_cast_or_null<llvm::ConstantInt>(r);
        if (!ci) return false;
        out->insert(ci->getSExtValue());
        return true;
      }
      if (!seen.insert(x).second) return true;  // a PHI cycle adds nothing new
      if (auto* cast = llvm::dyn_cast<llvm::CastInst>(x)) {
        casts.push_back(cast);
        return walk(cast->getOperand(0), casts);
      }
      if (auto* sel = llvm::dyn_cast<llvm::SelectInst>(x)) return walk(sel->getTrueValue(), casts) && walk(sel->getFalseValue(), casts);
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(x)) {
        for (llvm::Value* in : phi->incoming_values())
          if (!walk(in, casts)) return false;
        return true;
      }
      return false;
    };
    return walk(v, {});
  }

  // `v` with every tensor parameter replaced by its number: selects, PHIs and casts of its own, next to
  // the originals.
  llvm::Value* number(llvm::Value* v) {
    if (llvm::ConstantInt* c = leaf(v)) return c;
    if (llvm::isa<llvm::UndefValue>(v)) return v;
    if (auto it = mirrored_.find(v); it != mirrored_.end()) return it->second;
    auto* in = llvm::cast<llvm::Instruction>(v);
    originals_.insert(in);
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(in)) {
      llvm::PHINode* m = llvm::PHINode::Create(phi->getType(), phi->getNumIncomingValues(), phi->getName() + ".tensor", phi);
      m->setDebugLoc(phi->getDebugLoc());
      mirrored_[v] = m;  // before the operands: PHIs may reach themselves
      for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) m->addIncoming(number(phi->getIncomingValue(k)), phi->getIncomingBlock(k));
      return m;
    }
    llvm::IRBuilder<> b(in->getNextNode());
    b.SetCurrentDebugLocation(in->getDebugLoc());
    llvm::Value* m = nullptr;
    if (auto* sel = llvm::dyn_cast<llvm::SelectInst>(in))
      m = b.CreateSelect(sel->getCondition(), number(sel->getTrueValue()), number(sel->getFalseValue()), sel->getName() + ".tensor");
    else
      m = b.CreateCast(llvm::cast<llvm::CastInst>(in)->getOpcode(), number(in->getOperand(0)), in->getType(), in->getName() + ".tensor");
    mirrored_[v] = m;
    return m;
  }

  // The choices have the argument's type (number() mirrors it).
  static llvm::CallInst* withTensor(llvm::CallInst* call, unsigned k, llvm::Constant* tensor, llvm::Instruction* before) {
    auto* c = llvm::cast<llvm::CallInst>(call->clone());
    c->setArgOperand(k, tensor);
    c->insertBefore(before);
    return c;
  }

  // r = f(t0); r = n == t1 ? f(t1) : r; ...
  static void selectResults(llvm::CallInst* call, unsigned k, llvm::Value* n, const std::vector<llvm::Constant*>& choices) {
    llvm::IRBuilder<> b(call);
    llvm::Value* r = withTensor(call, k, choices[0], call);
    for (size_t i = 1; i < choices.size(); ++i)
      r = b.CreateSelect(b.CreateICmpEQ(n, choices[i]), withTensor(call, k, choices[i], call), r);
    call->replaceAllUsesWith(r);
    call->eraseFromParent();
  }

  // if (n == t0) f(t0); else if (n == t1) f(t1); ... else f(tlast), with a PHI of the results.
  static void branch(llvm::CallInst* call, unsigned k, llvm::Value* n, const std::vector<llvm::Constant*>& choices) {
    for (size_t i = 0; i + 1 < choices.size(); ++i) {
      llvm::IRBuilder<> b(call);
      llvm::Value* cond = b.CreateICmpEQ(n, choices[i]);
      llvm::Instruction *thenTerm = nullptr, *elseTerm = nullptr;
      llvm::SplitBlockAndInsertIfThenElse(cond, call, &thenTerm, &elseTerm);
      thenTerm->setDebugLoc(call->getDebugLoc());
      elseTerm->setDebugLoc(call->getDebugLoc());
      llvm::CallInst* taken = withTensor(call, k, choices[i], thenTerm);
      auto* rest = llvm::cast<llvm::CallInst>(call->clone());  // dispatches among the other choices
      rest->insertBefore(elseTerm);
      if (!call->getType()->isVoidTy()) {
        llvm::PHINode* phi = llvm::PHINode::Create(call->getType(), 2, "", call->getParent()->begin());
        phi->addIncoming(taken, taken->getParent());
        phi->addIncoming(rest, rest->getParent());
        call->replaceAllUsesWith(phi);
      }
      call->eraseFromParent();
      call = rest;
    }
    call->setArgOperand(k, choices.back());
  }

  // The original selects, PHIs and casts of tensors that only the rewritten calls read.
  void removeDeadChoices() {
    std::set<llvm::Instruction*> live;
    std::vector<llvm::Instruction*> work;
    for (llvm::Instruction* i : originals_)
      for (llvm::User* u : i->users())
        if (auto* ui = llvm::dyn_cast<llvm::Instruction>(u); !ui || !originals_.count(ui)) {
          if (live.insert(i).second) work.push_back(i);
          break;
        }
    while (!work.empty()) {  // what a live one reads stays too
      llvm::Instruction* i = work.back();
      work.pop_back();
      for (llvm::Value* op : i->operands())
        if (auto* oi = llvm::dyn_cast<llvm::Instruction>(op); oi && originals_.count(oi) && live.insert(oi).second)
          work.push_back(oi);
    }
    for (llvm::Instruction* i : originals_)
      if (!live.count(i)) i->replaceAllUsesWith(llvm::PoisonValue::get(i->getType()));
    for (llvm::Instruction* i : originals_)
      if (!live.count(i)) i->eraseFromParent();
  }

  llvm::Function& f_;
  const llvm::DataLayout& dl_;
  std::map<const llvm::Value*, llvm::ConstantInt*> numbers_;  // tensor parameter -> its number
  std::map<llvm::Value*, llvm::Value*> mirrored_;             // choice of tensors -> choice of numbers
  std::set<llvm::Instruction*> originals_;
};

}  // namespace

void dispatchTensorChoices(llvm::Function& f, const KernelSignature& signature) { TensorChoices(f, signature).run(); }

}  // namespace tpc::cc
