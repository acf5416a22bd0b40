// Which source variables are the kernel's loops over the index space (-g), for the debugger's $idx: a
// variable that takes get_index_space_offset()[k] * C (the idiom `for (int d = start[0] * 64; ...; d += 64)`)
// and is later assigned its own value plus a multiple of C. Its value / C is then the index-space coordinate
// of the iteration it is at. Read from the IR's debug records before instruction selection, so it holds at
// every -O level; where optimization leaves the variable without a location, the debugger says so.
#include <climits>
#include <map>
#include <optional>
#include <set>

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugProgramInstruction.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/PatternMatch.h>

#include "ir_patterns.h"
#include "tpc/cc/isel.h"
#include "tpc/isa/intrinsics.h"

namespace tpc::cc {

namespace {

bool isIndexSpaceOffset(const llvm::Value* v) {
  const auto* call = llvm::dyn_cast<llvm::CallInst>(v);
  const llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
  if (!callee || !callee->getName().starts_with(isa::kBuiltinPrefix.data())) return false;
  const isa::IntrinsicInfo* info = isa::findIntrinsic(callee->getName().substr(isa::kBuiltinPrefix.size()).str());
  return info && info->lowering == isa::Lowering::IndexSpaceOffset;
}

// get_index_space_offset()[k] * C as (k, C): C from a multiplication or a left shift by a constant, or 1.
std::optional<std::pair<int, int64_t>> offsetTimesConstant(llvm::Value* v) {
  using namespace llvm::PatternMatch;
  llvm::Value* element = v;
  const llvm::APInt* c = nullptr;
  int64_t scale = 1;
  if (match(v, m_Mul(m_Value(element), m_APInt(c))) || match(v, m_Mul(m_APInt(c), m_Value(element)))) {
    scale = c->getSExtValue();
  } else if (match(v, m_Shl(m_Value(element), m_APInt(c)))) {
    if (c->getZExtValue() > 30) return std::nullopt;
    scale = int64_t{1} << c->getZExtValue();
  }
  auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(element);
  if (!extract || !isIndexSpaceOffset(extract->getVectorOperand())) return std::nullopt;
  auto* lane = llvm::dyn_cast<llvm::ConstantInt>(extract->getIndexOperand());
  if (!lane || lane->getZExtValue() >= 5 || scale <= 0 || scale > INT32_MAX) return std::nullopt;
  return std::pair<int, int64_t>{static_cast<int>(lane->getZExtValue()), scale};
}

}  // namespace

std::vector<IndexSpaceVariable> findIndexSpaceVariables(llvm::Function& f) {
  using Key = std::pair<const llvm::DILocalVariable*, const llvm::DILocation*>;
  std::map<Key, std::set<std::pair<int, int64_t>>> starts;  // dimension and scale of each start value
  std::map<Key, std::set<int64_t>> steps;                   // constants added to the variable's own values
  std::map<Key, std::set<const llvm::Value*>> values;       // every value the variable takes
  std::vector<Key> order;
  auto note = [&](const llvm::DILocalVariable* var, const llvm::DILocation* inlinedAt, llvm::Value* v) {
    if (!var || !v || !v->getType()->isIntegerTy()) return;
    const Key key{var, inlinedAt};
    if (!values.count(key)) order.push_back(key);
    values[key].insert(v);
    if (auto s = offsetTimesConstant(v)) starts[key].insert(*s);
    auto [base, c] = baseAndConstant(v, true);
    if (c != 0 && base != v) steps[key].insert(c);
  };
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& in : bb) {
      for (llvm::DbgVariableRecord& r : llvm::filterDbgVars(in.getDbgRecordRange()))
        if (r.isDbgValue()) note(r.getVariable(), r.getDebugLoc().getInlinedAt(), r.getVariableLocationOp(0));
      if (auto* dv = llvm::dyn_cast<llvm::DbgValueInst>(&in))
        note(dv->getVariable(), dv->getDebugLoc().getInlinedAt(), dv->getValue());
    }
  std::vector<IndexSpaceVariable> out;
  for (const Key& key : order) {
    auto s = starts.find(key);
    if (s == starts.end() || s->second.size() != 1) continue;  // one start, or it is not one loop's variable
    const auto [dim, scale] = *s->second.begin();
    // A loop variable: some later value is an earlier one plus a whole number of steps.
    bool steps_by_scale = false;
    for (int64_t c : steps[key]) steps_by_scale |= c % scale == 0;
    if (steps_by_scale)
      out.push_back({key.first, key.second, dim, static_cast<int32_t>(scale)});
  }
  return out;
}

}  // namespace tpc::cc
