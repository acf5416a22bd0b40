// Instruction selection: walks the kernel's LLVM IR block by block and emits machine IR over virtual
// registers. IR types map to register files (i1 -> SP, scalars and local pointers -> S, <5 x i32> -> I,
// 256-byte vectors -> V, predicate vectors -> VP, global pointers -> AD). Constants and splats of scalars
// become immediates or scalar operands where the instruction allows, registers otherwise. PHIs become
// copies at the end of the predecessors (critical edges are split before).
#include "tpc/cc/isel.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugProgramInstruction.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "ir_patterns.h"
#include "selection_context.h"
#include "tpc/cc/codegen.h"
#include "tpc/isa/intrinsics.h"
#include "tpc/isa/intrinsic_lowering.h"
#include "tpc/isa/printf_format.h"

namespace tpc::cc {

namespace {

using isa::InsnId;
using llvm::dyn_cast;
using llvm::isa;

constexpr unsigned kLocalAddressSpace = 1;   // __local__
constexpr unsigned kGlobalAddressSpace = 2;  // __global__

// Owns an instruction made from a constant expression (not inserted anywhere).
class InstructionHolder {
 public:
  explicit InstructionHolder(llvm::Instruction* in) : in_(in) {}
  ~InstructionHolder() { in_->deleteValue(); }
  InstructionHolder(const InstructionHolder&) = delete;
  InstructionHolder& operator=(const InstructionHolder&) = delete;
  llvm::Instruction* get() const { return in_; }

 private:
  llvm::Instruction* in_;
};

struct TypeClass {
  RegFile file = RegFile::None;
  DType dtype = DType::I32;
};

std::string describe(const llvm::Value& v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  v.print(os);
  return s;
}

std::optional<DType> scalarDType(llvm::Type* t) {
  if (t->isFloatTy()) return DType::F32;
  if (t->isBFloatTy()) return DType::BF16;
  if (t->isHalfTy()) return DType::F16;
  if (t->isIntegerTy(32)) return DType::I32;
  if (t->isIntegerTy(16)) return DType::I16;
  if (t->isIntegerTy(8)) return DType::I8;
  // Other widths (from LLVM's own transformations, e.g. i3 remainder counters) live in 32 bits,
  // sign-extended from their width.
  if (t->isIntegerTy() && t->getIntegerBitWidth() > 1 && t->getIntegerBitWidth() < 32) return DType::I32;
  return std::nullopt;
}

// Integer widths the instructions handle natively; others need explicit extension.
bool oddWidth(llvm::Type* t) {
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(t)) t = vt->getElementType();
  if (!t->isIntegerTy()) return false;
  unsigned w = t->getIntegerBitWidth();
  return w != 1 && w != 8 && w != 16 && w != 32;
}

std::optional<TypeClass> classify(llvm::Type* t) {
  if (t->isIntegerTy(1)) return TypeClass{RegFile::SP, DType::I32};
  if (auto d = scalarDType(t)) return TypeClass{RegFile::S, *d};
  if (t->isPointerTy())
    return t->getPointerAddressSpace() == kGlobalAddressSpace ? TypeClass{RegFile::AD, DType::U32}
                                                              : TypeClass{RegFile::S, DType::U32};
  if (auto* vt = dyn_cast<llvm::FixedVectorType>(t)) {
    llvm::Type* e = vt->getElementType();
    unsigned n = vt->getNumElements();
    if (e->isIntegerTy(1)) return TypeClass{RegFile::VP, DType::I32};
    if (n == 5 && e->isIntegerTy(32)) return TypeClass{RegFile::I, DType::I32};
    if (e->isIntegerTy(8) && (n == 8 || n == 16 || n == 32)) return TypeClass{RegFile::VP, DType::I32};
    auto d = scalarDType(e);
    if (d && n * dtypeSize(*d) == 256) return TypeClass{RegFile::V, *d};
  }
  return std::nullopt;
}

DType unsignedOf(DType t) {
  switch (t) {
    case DType::I32: return DType::U32;
    case DType::I16: return DType::U16;
    case DType::I8: return DType::U8;
    default: return t;
  }
}

// The immediate encoding of a scalar constant in type t (as a scalar register would hold it).
std::optional<uint32_t> immediateOf(const llvm::Constant* c) {
  if (auto* ci = dyn_cast<llvm::ConstantInt>(c)) {
    if (ci->getBitWidth() > 32) return std::nullopt;
    return static_cast<uint32_t>(ci->getSExtValue());
  }
  if (auto* cf = dyn_cast<llvm::ConstantFP>(c)) {
    uint64_t bits = cf->getValueAPF().bitcastToAPInt().getZExtValue();
    if (cf->getType()->isDoubleTy()) return std::nullopt;
    return static_cast<uint32_t>(bits);
  }
  if (isa<llvm::UndefValue>(c) || isa<llvm::PoisonValue>(c)) return 0u;
  return std::nullopt;
}

class Selector : public SelectionContext {
 public:
  Selector(llvm::Function& f, const KernelSignature& sig) : f_(f), sig_(sig) { mf_.name = sig.name; }

  MFunction run() {
    if (f_.arg_size() != sig_.params.size())
      throw CodegenError(fmt::format("kernel '{}' has {} parameters in the IR but {} in the source", sig_.name,
                                     f_.arg_size(), sig_.params.size()));
    int b = 0;
    for (llvm::BasicBlock& bb : f_) blockIndex_[&bb] = b++;
    mf_.blocks.resize(static_cast<size_t>(b));
    bindParameters();
    for (llvm::BasicBlock& bb : f_) {
      cur_ = blockIndex_[&bb];
      for (llvm::Instruction& in : bb) {
        inst_ = &in;
        setLoc(in);
        select(in);
        for (llvm::DbgVariableRecord& dvr : llvm::filterDbgVars(in.getDbgRecordRange()))
          noteVariable(dvr.getVariable(), dvr.getDebugLoc().getInlinedAt(), dvr.getVariableLocationOp(0));
      }
    }
    lowerPhis();
    noteLocalVariables();
    for (const IndexSpaceVariable& v : findIndexSpaceVariables(f_))
      if (auto it = variableIndex_.find({v.var, v.inlinedAt}); it != variableIndex_.end())
        mf_.indexVariables.push_back({it->second, static_cast<uint8_t>(v.dim), v.scale});
    return std::move(mf_);
  }

 private:
  // ---------------------------------------------------------------------------------- bookkeeping

  // An instruction's source position; code inlined from the implicit headers (tpc-special.h's functions)
  // is at the user's call. None for line 0, LLVM's mark of an instruction moved or merged from several.
  static std::optional<SourceLoc> ownLoc(const llvm::Instruction& in) {
    const llvm::DILocation* l = in.getDebugLoc().get();
    while (l && l->getInlinedAt() && l->getFilename().starts_with(kImplicitHeaderDir)) l = l->getInlinedAt();
    if (!l || !l->getLine()) return std::nullopt;
    return SourceLoc{l->getLine(), l->getColumn()};
  }

  void setLoc(const llvm::Instruction& in) {
    auto l = ownLoc(in);
    if (!l) return;
    loc_ = *l;
    const llvm::DILocation* d = in.getDebugLoc().get();
    while (d && d->getInlinedAt() && d->getFilename().starts_with(kImplicitHeaderDir)) d = d->getInlinedAt();
    if (d && d->getInlinedAt()) loc_.scope = scopeOf(d->getInlinedAt(), d->getScope());
  }

  // The inline scope of code inlined at `callSite` from the function of `calleeScope` (-g): one scope per
  // call site, its parent the scope the call site itself is in.
  uint32_t scopeOf(const llvm::DILocation* callSite, const llvm::DILocalScope* calleeScope) {
    auto it = scopeIndex_.find(callSite);
    if (it != scopeIndex_.end()) return it->second;
    uint32_t parent = 0;
    if (callSite->getInlinedAt()) parent = scopeOf(callSite->getInlinedAt(), callSite->getScope());
    std::string name = "?";
    if (const llvm::DISubprogram* sp = calleeScope ? calleeScope->getSubprogram() : nullptr) name = sp->getName().str();
    mf_.scopes.push_back({name, parent, callSite->getLine(), callSite->getColumn()});
    const auto index = static_cast<uint32_t>(mf_.scopes.size());
    scopeIndex_[callSite] = index;
    return index;
  }

  // The position an instruction had before LLVM dropped its debug location (kSourcePositionMetadata).
  static std::optional<SourceLoc> keptLoc(const llvm::Instruction& in) {
    const llvm::MDNode* md = in.getMetadata(kSourcePositionMetadata);
    if (!md || md->getNumOperands() != 2) return std::nullopt;
    auto* line = llvm::mdconst::dyn_extract<llvm::ConstantInt>(md->getOperand(0));
    auto* column = llvm::mdconst::dyn_extract<llvm::ConstantInt>(md->getOperand(1));
    if (!line || !column) return std::nullopt;
    return SourceLoc{static_cast<uint32_t>(line->getZExtValue()), static_cast<uint32_t>(column->getZExtValue())};
  }

  // Where an error about instruction `in` points: its own position, or the one it had before LLVM hoisted
  // it out of a loop; for one LLVM made (a select merged from two branches), the nearest of its users
  // that has one, then the nearest instruction before it, then after it, in its block; the kernel's line
  // last.
  SourceLoc errorLoc(const llvm::Instruction* in) const {
    if (!in) return kernelLoc();
    if (auto l = ownLoc(*in)) return *l;
    if (auto l = keptLoc(*in)) return *l;
    std::vector<const llvm::Instruction*> users = {in};
    std::set<const llvm::Instruction*> seen = {in};
    auto anyLoc = [](const llvm::Instruction& i) { return ownLoc(i) ? ownLoc(i) : keptLoc(i); };
    for (size_t k = 0; k < users.size() && k < 256; ++k) {
      if (auto l = anyLoc(*users[k])) return *l;
      for (const llvm::User* u : users[k]->users())
        if (auto* ui = dyn_cast<llvm::Instruction>(u); ui && seen.insert(ui).second) users.push_back(ui);
    }
    for (const llvm::Instruction* p = in->getPrevNode(); p; p = p->getPrevNode())
      if (auto l = anyLoc(*p)) return *l;
    for (const llvm::Instruction* n = in->getNextNode(); n; n = n->getNextNode())
      if (auto l = anyLoc(*n)) return *l;
    return kernelLoc();
  }

  SourceLoc kernelLoc() const {
    if (const llvm::DISubprogram* sp = f_.getSubprogram()) return SourceLoc{sp->getLine(), 1};
    return SourceLoc{};
  }

  [[noreturn]] void unsupported(const llvm::Value& v, const std::string& what) {
    std::string ir = describe(v);
    while (!ir.empty() && ir.front() == ' ') ir.erase(ir.begin());
    if (ir.size() > 100) ir = ir.substr(0, 97) + "...";
    auto* in = dyn_cast<llvm::Instruction>(&v);
    throw CodegenError(fmt::format("{} is not supported by the TPC backend (IR: {})", what, ir), errorLoc(in ? in : inst_));
  }

  MInst& emit(MInst mi, int block = -1) {
    mi.loc = loc_;
    const int target = block < 0 ? cur_ : block;
    // Variables assigned before the block's first instruction (phis, values the code does not keep).
    for (auto k = pendingVariables_.begin(); k != pendingVariables_.end();) {
      if (k->block != target) {
        ++k;
        continue;
      }
      mi.variables.emplace_back(k->variable, k->reg);
      k = pendingVariables_.erase(k);
    }
    auto& insts = mf_.blocks[static_cast<size_t>(target)].insts;
    insts.push_back(mi);
    return insts.back();
  }

  static MInst make(InsnId op, DType dt, Reg dst) { return makeInst(op, dt, dst); }

  TypeClass classOf(const llvm::Value& v) {
    auto c = classify(v.getType());
    if (!c) unsupported(v, fmt::format("a value of this type"));
    return *c;
  }

  Reg newReg(RegFile f) { return mf_.newVirtual(f); }

  void bindParameters() {
    int scalar = 0, tensor = 0;
    for (size_t k = 0; k < sig_.params.size(); ++k) {
      llvm::Argument* arg = f_.getArg(static_cast<unsigned>(k));
      if (sig_.params[k].isTensor) {
        tensorIndex_[arg] = tensor++;
        continue;
      }
      auto c = classify(arg->getType());
      const bool flag = arg->getType()->isIntegerTy(1);  // a bool parameter: a 32-bit scalar, nonzero is true
      if (!c || (c->file != RegFile::S && !flag))
        throw CodegenError(fmt::format("parameter '{}' of kernel '{}' must be a tensor or a scalar",
                                       sig_.params[k].name, sig_.name));
      Reg r = newReg(RegFile::S);
      mf_.precolored.emplace_back(r, static_cast<uint32_t>(scalar++));
      if (flag) {
        Reg p = newReg(RegFile::SP);
        MInst m = make(InsnId::SpuCmpNeq, DType::I32, p);
        m.src[0] = MOperand::ofReg(r);
        m.src[1] = MOperand::ofImm(0);
        emit(m, 0);
        r = p;
      }
      values_[arg] = {r};
    }
  }

  // A source variable now holds an IR value: note it on the instruction that produced the value's register
  // (the last one emitted in this block that writes it), for the debugger's variable locations.
  // `inlinedAt` tells apart the instances of a helper's variable, one per inlined call.
  void noteVariable(llvm::DILocalVariable* var, llvm::DILocation* inlinedAt, llvm::Value* value) {
    if (!var) return;
    auto& insts = mf_.blocks[static_cast<size_t>(cur_)].insts;
    auto it = value && !isa<llvm::Constant>(value) ? values_.find(value) : values_.end();
    if (it != values_.end() && it->second.size() == 1) {
      const Reg r = it->second[0];
      for (size_t k = insts.size(); k-- > 0;) {
        if (insts[k].dst == r) {
          insts[k].variables.emplace_back(variableIndexOf(var, inlinedAt), r);
          return;
        }
      }
    }
    // A phi: its copies at the predecessors' ends write the register the variable's earlier value had
    // (the allocator joins them), so that location, where it exists, goes on. A parameter: the debugger
    // finds tensors and scalars by name.
    if (value && (isa<llvm::PHINode>(value) || isa<llvm::Argument>(value))) return;
    const uint32_t index = variableIndexOf(var, inlinedAt);
    // A value the code does not keep where the variable takes it (undef, a constant, a value of another
    // block or in several registers): the variable's earlier location must end here, or the debugger would
    // show the old value as the new one. From here on it is <optimized out>.
    if (!insts.empty()) insts.back().variables.emplace_back(index, Reg{});
    else pendingVariables_.push_back({cur_, index, Reg{}});
  }

  // One entry per source variable (per inlined instance), however many values it takes: a location ends
  // where the variable is assigned again.
  uint32_t variableIndexOf(llvm::DILocalVariable* var, llvm::DILocation* inlinedAt) {
    auto [at, added] = variableIndex_.try_emplace({var, inlinedAt}, static_cast<uint32_t>(mf_.variables.size()));
    if (added) {
      std::string type;
      llvm::DIType* t = var->getType();
      // const int5 -> int5: qualifiers have no name of their own.
      while (auto* d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t)) {
        if (!d->getName().empty()) break;
        t = d->getBaseType();
      }
      if (t) type = t->getName().str();
      mf_.variables.push_back({var->getName().str(), type, inlinedAt ? scopeOf(inlinedAt, var->getScope()) : 0,
                               var->getArg() != 0});
    }
    return at->second;
  }

  // The register(s) of an IR value; instructions get theirs on first mention, constants are materialized.
  Reg reg(llvm::Value* v) { return regs(v).at(0); }

  const std::vector<Reg>& regs(llvm::Value* v) {
    auto it = values_.find(v);
    if (it != values_.end()) return it->second;
    if (tensorIndex_.count(v))
      throw CodegenError(fmt::format("tensor '{}' is used as a value: pass tensor parameters to intrinsics directly",
                                     v->getName().str()), errorLoc(inst_));
    if (auto* c = dyn_cast<llvm::Constant>(v)) {
      // Constants are materialized where they are used; not cached, since the block differs.
      scratch_ = {materialize(c)};
      return scratch_;
    }
    // A splat folded into its users (shuffle()) has no register of its own: a use that needs the vector
    // gets a broadcast here, never a register nothing writes.
    if (isa<llvm::ShuffleVectorInst>(v) && llvm::getSplatValue(v)) {
      if (auto c = classify(v->getType()); c && c->file == RegFile::V) {
        scratch_ = {regAsVector(v)};
        return scratch_;
      }
    }
    std::vector<Reg> rs;
    if (auto* st = dyn_cast<llvm::StructType>(v->getType())) {
      for (llvm::Type* e : st->elements()) {
        auto c = classify(e);
        if (!c) unsupported(*v, "a structure with a member of this type");
        rs.push_back(newReg(c->file));
      }
    } else {
      rs.push_back(newReg(classOf(*v).file));
    }
    return values_.emplace(v, rs).first->second;
  }

  // The 32-bit word that a vector constant repeats in every 4 bytes, if it does.
  static std::optional<uint32_t> repeatingWord(llvm::Constant* c) {
    auto* dv = dyn_cast<llvm::ConstantDataVector>(c);
    if (!dv) return std::nullopt;
    llvm::StringRef bytes = dv->getRawDataValues();
    if (bytes.size() % 4 != 0) return std::nullopt;
    for (size_t i = 4; i < bytes.size(); ++i)
      if (bytes[i] != bytes[i % 4]) return std::nullopt;
    uint32_t w = 0;
    for (int k = 3; k >= 0; --k) w = (w << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(k)]);
    return w;
  }

  // A constant in a register: a fresh one, or `into`.
  Reg materialize(llvm::Constant* c, Reg into = {}) {
    TypeClass tc = classOf(*c);
    Reg r = into.valid() ? into : newReg(tc.file);
    switch (tc.file) {
      case RegFile::S: {
        auto imm = immediateOf(c);
        if (!imm) {
          if (auto* g = dyn_cast<llvm::GlobalVariable>(c)) {
            imm = localAddress(g);
          } else if (auto* ce = dyn_cast<llvm::ConstantExpr>(c)) {
            InstructionHolder owner(ce->getAsInstruction());
            llvm::Instruction* in = owner.get();
            if (auto* gep = dyn_cast<llvm::GetElementPtrInst>(in)) {
              llvm::APInt off(32, 0);
              if (gep->accumulateConstantOffset(f_.getParent()->getDataLayout(), off))
                if (auto* g = dyn_cast<llvm::GlobalVariable>(gep->getPointerOperand()))
                  imm = localAddress(g) + static_cast<uint32_t>(off.getZExtValue());
            } else if (in->getOpcode() == llvm::Instruction::AddrSpaceCast ||
                       in->getOpcode() == llvm::Instruction::BitCast) {
              if (auto* g = dyn_cast<llvm::GlobalVariable>(in->getOperand(0))) imm = localAddress(g);
            }
          }
        }
        if (!imm) unsupported(*c, "this constant");
        MInst mi = make(InsnId::SpuMov, tc.dtype, r);
        mi.src[0] = MOperand::ofImm(*imm);
        emit(mi);
        return r;
      }
      case RegFile::V: {
        llvm::Constant* s = c->getSplatValue();
        if (!s && (isa<llvm::UndefValue>(c) || c->isNullValue())) s = llvm::Constant::getNullValue(c->getType()->getScalarType());
        auto imm = s ? immediateOf(s) : std::nullopt;
        DType movType = tc.dtype;
        if (!imm) {
          // Narrow lanes whose bytes repeat every 32 bits (LLVM folds a bitcast of an i32 splat into such
          // constants): a move of the 32-bit pattern writes the same bits.
          imm = repeatingWord(c);
          movType = DType::I32;
        }
        if (!imm) unsupported(*c, "a vector constant whose lanes differ");
        MInst mi = make(InsnId::VpuMov, movType, r);
        mi.src[0] = MOperand::ofImm(*imm);
        emit(mi);
        return r;
      }
      case RegFile::I: {
        MInst mi = make(InsnId::SpuIMov, DType::I32, r);
        mi.src[0] = MOperand::ofImm(0);
        mi.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
        emit(mi);
        if (!c->isNullValue() && !isa<llvm::UndefValue>(c)) {
          for (unsigned k = 0; k < 5; ++k) {
            auto imm = immediateOf(c->getAggregateElement(k));
            if (!imm) unsupported(*c, "this coordinate constant");
            if (*imm == 0) continue;
            MInst set = make(InsnId::SpuIMov, DType::I32, r);
            set.dstIsRead = true;
            set.src[0] = MOperand::ofImm(*imm);
            set.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 1u << k);
            emit(set);
          }
        }
        return r;
      }
      case RegFile::SP: {
        MInst mi = make(InsnId::SpuMovSp, DType::F32, r);
        mi.src[0] = MOperand::ofImm(c->isNullValue() ? 0 : 1);
        emit(mi);
        return r;
      }
      case RegFile::VP: {
        bool allOnes = c->isAllOnesValue(), zero = c->isNullValue() || isa<llvm::UndefValue>(c);
        if (!allOnes && !zero) unsupported(*c, "a predicate constant that is neither all true nor all false");
        MInst mi = make(InsnId::VpuMovVp, DType::F32, r);
        mi.src[0] = MOperand::ofImm(allOnes ? 1 : 0);
        emit(mi);
        return r;
      }
      default: unsupported(*c, "this constant");
    }
  }

  // An operand for an instruction slot that accepts `kinds`: an immediate or a scalar broadcast when the
  // value is a constant or a splat and the slot takes one, a register otherwise.
  MOperand operand(llvm::Value* v, uint32_t kinds) {
    llvm::Value* scalar = v;
    if (v->getType()->isVectorTy() && classify(v->getType())->file == RegFile::V) {
      scalar = llvm::getSplatValue(v);
      if (auto* c = dyn_cast<llvm::Constant>(v); c && !scalar) {
        if (c->isNullValue() || isa<llvm::UndefValue>(c)) scalar = llvm::Constant::getNullValue(v->getType()->getScalarType());
      }
    }
    if (scalar) {
      if (auto* c = dyn_cast<llvm::Constant>(scalar); c && (kinds & isa::kindBit(RegFile::Imm))) {
        if (auto imm = immediateOf(c)) return MOperand::ofImm(*imm);
      }
      if (scalar != v && (kinds & isa::kindBit(RegFile::S))) return MOperand::ofReg(reg(scalar));
    }
    return MOperand::ofReg(regAsVector(v));
  }

  // A vector value in a V register; splats of scalars are broadcast with a move.
  Reg regAsVector(llvm::Value* v) {
    if (values_.count(v) || !v->getType()->isVectorTy()) return reg(v);
    auto c = classify(v->getType());
    if (c && c->file == RegFile::V) {
      if (llvm::Value* s = llvm::getSplatValue(v); s && !isa<llvm::Constant>(v)) {
        Reg r = newReg(RegFile::V);
        MInst mi = make(InsnId::VpuMov, c->dtype, r);
        mi.src[0] = operand(s, isa::kindBit(RegFile::S) | isa::kindBit(RegFile::Imm));
        emit(mi);
        return r;
      }
    }
    return reg(v);
  }

  uint32_t localAddress(const llvm::GlobalVariable* g) {
    auto it = localOffsets_.find(g);
    if (it != localOffsets_.end()) return it->second;
    if (g->getAddressSpace() != kLocalAddressSpace)
      throw CodegenError(fmt::format("global variable '{}' must be declared __local__", g->getName().str()), errorLoc(inst_));
    if (g->hasInitializer() && !g->getInitializer()->isNullValue() && !isa<llvm::UndefValue>(g->getInitializer()))
      throw CodegenError(fmt::format("__local__ variable '{}' cannot have an initializer (local memory starts "
                                     "undefined; assign it in the kernel)", g->getName().str()), errorLoc(inst_));
    return localOffsets_[g] = allocateLocal(g->getValueType());
  }

  // The __local__ variables the kernel uses, with their debug names and types (-g), in address order.
  void noteLocalVariables() {
    std::vector<std::pair<const llvm::GlobalVariable*, uint32_t>> used(localOffsets_.begin(), localOffsets_.end());
    std::sort(used.begin(), used.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    for (const auto& [g, address] : used) {
      llvm::SmallVector<llvm::DIGlobalVariableExpression*, 1> infos;
      g->getDebugInfo(infos);
      if (infos.empty() || !infos[0]->getVariable()) continue;
      const llvm::DIGlobalVariable* var = infos[0]->getVariable();
      mf_.localVariables.push_back({var->getName().str(), debugTypeName(var->getType()), address & ~kVectorLocalTag,
                                    (address & kVectorLocalTag) != 0});
    }
  }

  // "float64[4]" for an array, the type's own name otherwise (qualifiers dropped).
  static std::string debugTypeName(const llvm::DIType* t) {
    while (auto* d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t)) {
      if (!d->getName().empty()) break;
      t = d->getBaseType();
    }
    auto* array = llvm::dyn_cast_or_null<llvm::DICompositeType>(t);
    if (!array || array->getTag() != llvm::dwarf::DW_TAG_array_type) return t ? t->getName().str() : "";
    std::string name = debugTypeName(array->getBaseType());
    for (const llvm::DINode* e : array->getElements())
      if (auto* r = llvm::dyn_cast<llvm::DISubrange>(e))
        if (auto* count = llvm::dyn_cast_if_present<llvm::ConstantInt*>(r->getCount()))
          name += fmt::format("[{}]", count->getSExtValue());
    return name;
  }

  // Vector data goes to vector local memory (256-byte aligned), everything else to scalar local memory.
  uint32_t allocateLocal(llvm::Type* t) {
    const llvm::DataLayout& dl = f_.getParent()->getDataLayout();
    llvm::Type* e = t;
    while (auto* at = dyn_cast<llvm::ArrayType>(e)) e = at->getElementType();
    uint64_t bytes = dl.getTypeAllocSize(t);
    bool vector = classify(e) && classify(e)->file == RegFile::V;
    uint32_t& used = vector ? mf_.vectorLocalBytes : mf_.scalarLocalBytes;
    uint32_t align = vector ? 256 : 4;
    uint32_t addr = (used + align - 1) / align * align;
    used = addr + static_cast<uint32_t>((bytes + 3) / 4 * 4);
    // Vector data is addressed in the vector local memory; the high bit tells the two apart in pointers.
    return vector ? (addr | kVectorLocalTag) : addr;
  }
  static constexpr uint32_t kVectorLocalTag = 0x80000000u;

  // ---------------------------------------------------------------------------------- selection

  void select(llvm::Instruction& in) {
    using llvm::Instruction;
    if (isa<llvm::PHINode>(in)) {
      regs(&in);  // give it registers; copies come in lowerPhis()
      return;
    }
    if (auto* bo = dyn_cast<llvm::BinaryOperator>(&in)) return binary(*bo);
    if (auto* un = dyn_cast<llvm::UnaryOperator>(&in); un && un->getOpcode() == llvm::Instruction::FNeg)
      return negateFloat(*un);
    if (auto* ic = dyn_cast<llvm::CmpInst>(&in)) return compare(*ic);
    if (auto* sel = dyn_cast<llvm::SelectInst>(&in)) return selectInst(*sel);
    if (auto* cast = dyn_cast<llvm::CastInst>(&in)) {
      // A tensor number converted to the intrinsics' int8_t is still the same tensor.
      if (auto it = tensorIndex_.find(cast->getOperand(0)); it != tensorIndex_.end()) {
        tensorIndex_[cast] = it->second;
        return;
      }
      if (isa<llvm::FPExtInst>(cast) && cast->getType()->isDoubleTy() && onlyFeedsPrintf(*cast)) return;
      return castInst(*cast);
    }
    if (auto* call = dyn_cast<llvm::CallInst>(&in)) return callInst(*call);
    if (auto* br = dyn_cast<llvm::BranchInst>(&in)) return branch(*br);
    if (isa<llvm::ReturnInst>(in) || isa<llvm::UnreachableInst>(in)) {
      mf_.blocks[static_cast<size_t>(cur_)].next = -1;
      mf_.blocks[static_cast<size_t>(cur_)].endLoc = loc_;
      return;
    }
    if (auto* ee = dyn_cast<llvm::ExtractElementInst>(&in)) return extractElement(*ee);
    if (auto* ie = dyn_cast<llvm::InsertElementInst>(&in)) return insertElement(*ie);
    if (auto* sv = dyn_cast<llvm::ShuffleVectorInst>(&in)) return shuffle(*sv);
    if (auto* ev = dyn_cast<llvm::ExtractValueInst>(&in)) return extractValue(*ev);
    if (auto* iv = dyn_cast<llvm::InsertValueInst>(&in)) return insertValue(*iv);
    if (auto* ld = dyn_cast<llvm::LoadInst>(&in)) return load(*ld);
    if (auto* st = dyn_cast<llvm::StoreInst>(&in)) return store(*st);
    if (auto* gep = dyn_cast<llvm::GetElementPtrInst>(&in)) return getElementPtr(*gep);
    if (auto* al = dyn_cast<llvm::AllocaInst>(&in)) return alloca(*al);
    if (auto* fr = dyn_cast<llvm::FreezeInst>(&in)) return copyValue(&in, fr->getOperand(0));
    unsupported(in, fmt::format("the operation '{}'", in.getOpcodeName()));
  }

  void copyValue(llvm::Value* dstValue, llvm::Value* srcValue) {
    const std::vector<Reg> src = regs(srcValue);
    const std::vector<Reg> dst = regs(dstValue);
    for (size_t k = 0; k < dst.size(); ++k) emitCopy(dst[k], src[k]);
  }

  void emitCopy(Reg dst, Reg src, int block = -1) {
    MInst mi;
    switch (dst.file) {
      case RegFile::V: mi = make(InsnId::VpuMov, DType::I32, dst); break;
      case RegFile::S: mi = make(InsnId::SpuMov, DType::I32, dst); break;
      case RegFile::I:
        mi = make(InsnId::SpuIMov, DType::I32, dst);
        mi.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
        break;
      case RegFile::SP: mi = make(InsnId::SpuMovSp, DType::F32, dst); break;
      case RegFile::VP: mi = make(InsnId::VpuMovVp, DType::F32, dst); break;
      case RegFile::AD: mi = make(InsnId::SpuMovAd, DType::F32, dst); break;
      default: throw CodegenError("cannot copy a register of this kind", errorLoc(inst_));
    }
    mi.src[0] = MOperand::ofReg(src);
    mi.copy = true;
    emit(mi, block);
  }

  // Re-establishes the sign extension of an odd-width integer in r.
  void signExtendInPlace(Reg r, unsigned width) {
    for (InsnId op : {InsnId::SpuShl, InsnId::SpuShr}) {
      MInst m = make(op, DType::I32, r);
      m.src[0] = MOperand::ofReg(r);
      m.src[1] = MOperand::ofImm(32 - width);
      emit(m);
    }
  }

  // The zero extension of an odd-width integer, for unsigned operations.
  Reg zeroExtended(llvm::Value* v) {
    Reg r = newReg(RegFile::S);
    MInst m = make(InsnId::SpuAnd, DType::I32, r);
    m.src[0] = MOperand::ofReg(reg(v));
    m.src[1] = MOperand::ofImm((1u << v->getType()->getIntegerBitWidth()) - 1u);
    emit(m);
    return r;
  }

  void binary(llvm::BinaryOperator& bo) {
    using Op = llvm::Instruction::BinaryOps;
    if (oddWidth(bo.getType())) return oddWidthBinary(bo);
    TypeClass tc = classOf(bo);
    bool vector = tc.file == RegFile::V;
    if (tc.file != RegFile::S && !vector) {
      if (tc.file == RegFile::I) return indexBinary(bo);
      if (tc.file == RegFile::SP || tc.file == RegFile::VP) return predicateBinary(bo, tc.file);
      unsupported(bo, "this arithmetic");
    }
    DType dt = tc.dtype;
    InsnId op;
    bool commutative = bo.isCommutative();
    switch (bo.getOpcode()) {
      case Op::Add: case Op::FAdd: op = vector ? InsnId::VpuAdd : InsnId::SpuAdd; break;
      case Op::Sub: case Op::FSub: op = vector ? InsnId::VpuSub : InsnId::SpuSub; break;
      case Op::Mul: case Op::FMul: op = vector ? InsnId::VpuMul : InsnId::SpuMul; break;
      case Op::And: op = vector ? InsnId::VpuAnd : InsnId::SpuAnd; break;
      case Op::Or: op = vector ? InsnId::VpuOr : InsnId::SpuOr; break;
      case Op::Xor: op = vector ? InsnId::VpuXor : InsnId::SpuXor; break;
      case Op::Shl: op = vector ? InsnId::VpuShl : InsnId::SpuShl; break;
      case Op::LShr: op = vector ? InsnId::VpuShr : InsnId::SpuShr; dt = unsignedOf(dt); break;
      case Op::AShr: op = vector ? InsnId::VpuShr : InsnId::SpuShr; break;
      case Op::UDiv: case Op::URem:
        if (vector) unsupported(bo, "vector integer division");
        op = bo.getOpcode() == Op::UDiv ? InsnId::SpuUdiv : InsnId::SpuUrem;
        dt = unsignedOf(dt);
        break;
      case Op::SDiv: case Op::SRem:
        if (vector) unsupported(bo, "vector integer division");
        return signedDivide(bo, dt);
      default: unsupported(bo, fmt::format("the operation '{}'", bo.getOpcodeName()));
    }
    if (dt == DType::F32 || dt == DType::BF16 || dt == DType::F16) {
      if (op == InsnId::SpuAnd || op == InsnId::VpuAnd) unsupported(bo, "bitwise operations on floats");
    }
    llvm::Value* a = bo.getOperand(0);
    llvm::Value* b = bo.getOperand(1);
    // The first source must be a register: constants and splats go second when the operation commutes.
    auto isScalarLike = [&](llvm::Value* v) {
      return isa<llvm::Constant>(v) || (vector && llvm::getSplatValue(v) != nullptr);
    };
    if (commutative && isScalarLike(a) && !isScalarLike(b)) std::swap(a, b);
    // c - x on float vectors with c a constant or a scalar: madd(x, -1, c), the same rounding (the product
    // is exact), where sub would need c broadcast into a vector register first.
    if (op == InsnId::VpuSub && bo.getOpcode() == Op::FSub && isScalarLike(a) && !isScalarLike(b)) {
      const isa::InsnInfo& madd = isa::insnInfo(InsnId::VpuMadd);
      MInst mi = make(InsnId::VpuMadd, dt, reg(&bo));
      mi.src[0] = MOperand::ofReg(regAsVector(b));
      mi.src[1] = operand(llvm::ConstantFP::get(bo.getType(), -1.0), madd.kinds[2]);
      mi.src[2] = operand(a, madd.kinds[3]);
      emit(mi);
      return;
    }
    Reg dst = reg(&bo);
    const isa::InsnInfo& info = isa::insnInfo(op);
    MInst mi = make(op, dt, dst);
    mi.src[0] = MOperand::ofReg(vector ? regAsVector(a) : reg(a));
    mi.src[1] = operand(b, info.kinds[2]);
    emit(mi);
  }

  // copysign(a, b) (LLVM makes `x * 0.0f` of a finite x into copysign(0.0, x)): a's magnitude with b's sign
  // bit, NaNs and zeros included, as integer operations: (a & ~sign) | (b & sign), a's part folded when a is
  // a constant.
  void copySign(llvm::IntrinsicInst& ii) {
    TypeClass tc = classOf(ii);
    if (tc.file != RegFile::S && tc.file != RegFile::V) unsupported(ii, "copysign of this type");
    const bool vector = tc.file == RegFile::V;
    const bool wide = tc.dtype == DType::F32;
    const DType it = wide ? DType::I32 : DType::I16;
    const uint32_t sign = wide ? 0x80000000u : 0x8000u, magnitude = wide ? 0x7fffffffu : 0x7fffu;
    const InsnId andOp = vector ? InsnId::VpuAnd : InsnId::SpuAnd, orOp = vector ? InsnId::VpuOr : InsnId::SpuOr;
    const auto value = [&](llvm::Value* v) { return MOperand::ofReg(vector ? regAsVector(v) : reg(v)); };
    Reg signOfB = newReg(tc.file);
    MInst s = make(andOp, it, signOfB);
    s.src[0] = value(ii.getArgOperand(1));
    s.src[1] = MOperand::ofImm(sign);
    emit(s);
    llvm::Value* a = ii.getArgOperand(0);
    if (vector && llvm::getSplatValue(a)) a = llvm::getSplatValue(a);
    MInst r = make(orOp, it, reg(&ii));
    r.src[0] = MOperand::ofReg(signOfB);
    if (auto* c = dyn_cast<llvm::ConstantFP>(a)) {
      r.src[1] = MOperand::ofImm(static_cast<uint32_t>(c->getValueAPF().bitcastToAPInt().getZExtValue()) & magnitude);
    } else {
      Reg magnitudeOfA = newReg(tc.file);
      MInst m = make(andOp, it, magnitudeOfA);
      m.src[0] = value(ii.getArgOperand(0));
      m.src[1] = MOperand::ofImm(magnitude);
      emit(m);
      r.src[1] = MOperand::ofReg(magnitudeOfA);
    }
    emit(r);
  }

  // -x on floats flips the sign bit, NaNs and zeros included (IEEE negate), as an integer xor.
  void negateFloat(llvm::UnaryOperator& un) {
    TypeClass tc = classOf(un);
    if (tc.file != RegFile::S && tc.file != RegFile::V) unsupported(un, "negation of this type");
    const bool wide = tc.dtype == DType::F32;
    Reg dst = reg(&un);
    MInst mi = make(tc.file == RegFile::V ? InsnId::VpuXor : InsnId::SpuXor, wide ? DType::I32 : DType::I16, dst);
    mi.src[0] = MOperand::ofReg(tc.file == RegFile::V ? regAsVector(un.getOperand(0)) : reg(un.getOperand(0)));
    mi.src[1] = MOperand::ofImm(wide ? 0x80000000u : 0x8000u);
    emit(mi);
  }

  // Arithmetic on an odd-width integer: in 32 bits on extended operands, then sign-extended again.
  void oddWidthBinary(llvm::BinaryOperator& bo) {
    using Op = llvm::Instruction::BinaryOps;
    if (bo.getType()->isVectorTy()) unsupported(bo, "vectors of this integer width");
    unsigned w = bo.getType()->getIntegerBitWidth();
    bool unsignedOp = bo.getOpcode() == Op::LShr || bo.getOpcode() == Op::UDiv || bo.getOpcode() == Op::URem;
    InsnId op;
    switch (bo.getOpcode()) {
      case Op::Add: op = InsnId::SpuAdd; break;
      case Op::Sub: op = InsnId::SpuSub; break;
      case Op::Mul: op = InsnId::SpuMul; break;
      case Op::And: op = InsnId::SpuAnd; break;
      case Op::Or: op = InsnId::SpuOr; break;
      case Op::Xor: op = InsnId::SpuXor; break;
      case Op::Shl: op = InsnId::SpuShl; break;
      case Op::LShr: case Op::AShr: op = InsnId::SpuShr; break;
      case Op::UDiv: op = InsnId::SpuUdiv; break;
      case Op::URem: op = InsnId::SpuUrem; break;
      default: unsupported(bo, "this operation on an integer of this width");
    }
    Reg a = unsignedOp ? zeroExtended(bo.getOperand(0)) : reg(bo.getOperand(0));
    MOperand b = unsignedOp && !isa<llvm::Constant>(bo.getOperand(1))
                     ? MOperand::ofReg(zeroExtended(bo.getOperand(1)))
                     : operand(bo.getOperand(1), isa::kindBit(RegFile::S) | isa::kindBit(RegFile::Imm));
    if (b.isImm() && unsignedOp) b.imm &= (1u << w) - 1u;
    Reg dst = reg(&bo);
    MInst m = make(op, unsignedOp ? DType::U32 : DType::I32, dst);
    m.src[0] = MOperand::ofReg(a);
    m.src[1] = b;
    emit(m);
    signExtendInPlace(dst, w);
  }

  // a / b and a % b on signed integers through the unsigned divider: |a| / |b|, negated when the signs
  // differ (the remainder takes the sign of a).
  void signedDivide(llvm::BinaryOperator& bo, DType dt) {
    bool rem = bo.getOpcode() == llvm::Instruction::SRem;
    Reg a = reg(bo.getOperand(0));
    MOperand b = operand(bo.getOperand(1), isa::kindBit(RegFile::S) | isa::kindBit(RegFile::Imm));
    Reg absA = newReg(RegFile::S), absB = newReg(RegFile::S), q = newReg(RegFile::S);
    MInst m = make(InsnId::SpuAbs, dt, absA);
    m.src[0] = MOperand::ofReg(a);
    emit(m);
    m = make(InsnId::SpuAbs, dt, absB);
    m.src[0] = b;
    emit(m);
    m = make(rem ? InsnId::SpuUrem : InsnId::SpuUdiv, unsignedOf(dt), q);
    m.src[0] = MOperand::ofReg(absA);
    m.src[1] = MOperand::ofReg(absB);
    emit(m);
    Reg negative = newReg(RegFile::SP);
    if (rem) {
      m = make(InsnId::SpuCmpLess, dt, negative);
      m.src[0] = MOperand::ofReg(a);
      m.src[1] = MOperand::ofImm(0);
      emit(m);
    } else {
      Reg signs = newReg(RegFile::S);
      m = make(InsnId::SpuXor, dt, signs);
      m.src[0] = MOperand::ofReg(a);
      m.src[1] = b;
      emit(m);
      m = make(InsnId::SpuCmpLess, dt, negative);
      m.src[0] = MOperand::ofReg(signs);
      m.src[1] = MOperand::ofImm(0);
      emit(m);
    }
    Reg dst = reg(&bo);
    emitCopy(dst, q);
    m = make(InsnId::SpuNeg, dt, dst);
    m.src[0] = MOperand::ofReg(q);
    m.dstIsRead = true;
    m.pred = negative;
    emit(m);
  }

  // One lane of an int5 into a scalar register.
  Reg laneToScalar(llvm::Value* v, int lane) {
    Reg s = newReg(RegFile::S);
    MInst m = make(InsnId::SpuMovIrfDim, DType::I32, s);
    m.src[0] = MOperand::ofReg(reg(v));
    m.sw = isa::switchField(isa::SwitchField::Dim).set(0, static_cast<uint32_t>(lane));
    emit(m);
    return s;
  }

  // int5 arithmetic: every dimension.
  void indexBinary(llvm::BinaryOperator& bo) {
    using Op = llvm::Instruction::BinaryOps;
    InsnId op;
    switch (bo.getOpcode()) {
      case Op::Add: op = InsnId::SpuIAdd; break;
      case Op::Sub: op = InsnId::SpuISub; break;
      case Op::Mul: op = InsnId::SpuIMul; break;
      case Op::And: op = InsnId::SpuIAnd; break;
      case Op::Or: op = InsnId::SpuIOr; break;
      case Op::Xor: op = InsnId::SpuIXor; break;
      case Op::Shl: {
        // x << k by a constant k in every lane (LLVM makes c + c into c << 1): a multiply by 2^k.
        auto* k = dyn_cast_or_null<llvm::ConstantInt>(llvm::getSplatValue(bo.getOperand(1)));
        if (!k) {
          // A variable or per-lane amount (LLVM writes a conditional doubling as a shift by `select c, 0,
          // 1`: seed3392): lane by lane through scalar registers.
          Reg dst = reg(&bo);
          for (int lane = 0; lane < 5; ++lane) {
            Reg shifted = newReg(RegFile::S);
            MInst sh = make(InsnId::SpuShl, DType::I32, shifted);
            sh.src[0] = MOperand::ofReg(laneToScalar(bo.getOperand(0), lane));
            sh.src[1] = MOperand::ofReg(laneToScalar(bo.getOperand(1), lane));
            emit(sh);
            MInst mv = make(InsnId::SpuIMov, DType::I32, dst);
            mv.src[0] = MOperand::ofReg(shifted);
            mv.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 1u << lane);
            mv.dstIsRead = lane > 0;
            emit(mv);
          }
          return;
        }
        MInst mi = make(InsnId::SpuIMul, DType::I32, reg(&bo));
        mi.src[0] = MOperand::ofImm(1u << (k->getZExtValue() & 31u));
        mi.src[1] = MOperand::ofReg(reg(bo.getOperand(0)));
        mi.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
        emit(mi);
        return;
      }
      default: unsupported(bo, "this operation on int5 coordinates");
    }
    // i_<op> dst, a, b computes a op b; a may be a broadcast scalar or immediate, b is a register.
    llvm::Value* a = bo.getOperand(0);
    llvm::Value* b = bo.getOperand(1);
    if (bo.isCommutative() && !isa<llvm::Constant>(a) && !llvm::getSplatValue(a)) std::swap(a, b);
    MInst mi = make(op, DType::I32, reg(&bo));
    mi.src[0] = indexOperand(a);
    mi.src[1] = MOperand::ofReg(reg(b));
    mi.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
    emit(mi);
  }

  // (lane, value) of an int5 constant that is zero in every lane but one.
  static std::optional<std::pair<uint32_t, int64_t>> singleNonZeroLane(llvm::Constant* c) {
    std::optional<std::pair<uint32_t, int64_t>> found;
    for (uint32_t k = 0; k < 5; ++k) {
      auto* e = dyn_cast_or_null<llvm::ConstantInt>(c->getAggregateElement(k));
      if (!e) return std::nullopt;
      if (e->isZero()) continue;
      if (found) return std::nullopt;
      found = std::make_pair(k, e->getSExtValue());
    }
    return found;
  }

  MOperand indexOperand(llvm::Value* v) {
    llvm::Value* s = llvm::getSplatValue(v);
    if (auto* c = dyn_cast<llvm::Constant>(v); c && !s && c->isNullValue()) return MOperand::ofImm(0);
    // A constant in one dimension only (a coordinate step): the shared register for it.
    if (auto* c = dyn_cast<llvm::Constant>(v); c && !s)
      if (auto lane = singleNonZeroLane(c); lane && hasCoordinateConstant(lane->first, static_cast<int32_t>(lane->second)))
        return MOperand::ofReg(coordinateConstant(lane->first, static_cast<int32_t>(lane->second)));
    if (s) {
      if (auto* c = dyn_cast<llvm::Constant>(s)) return MOperand::ofImm(*immediateOf(c));
      return MOperand::ofReg(reg(s));
    }
    return MOperand::ofReg(reg(v));
  }

  void predicateBinary(llvm::BinaryOperator& bo, RegFile file) {
    using Op = llvm::Instruction::BinaryOps;
    bool vec = file == RegFile::VP;
    llvm::Value* a = bo.getOperand(0);
    llvm::Value* b = bo.getOperand(1);
    Reg dst = reg(&bo);
    // x ^ true is a negation.
    if (bo.getOpcode() == Op::Xor) {
      for (int k = 0; k < 2; ++k) {
        auto* c = dyn_cast<llvm::Constant>(k ? a : b);
        if (c && c->isAllOnesValue()) {
          MInst mi = make(vec ? InsnId::VpuVpNot : InsnId::SpuSpNot, DType::F32, dst);
          mi.src[0] = MOperand::ofReg(reg(k ? b : a));
          emit(mi);
          return;
        }
      }
    }
    InsnId op;
    switch (bo.getOpcode()) {
      case Op::And: op = vec ? InsnId::VpuVpAnd : InsnId::SpuSpAnd; break;
      case Op::Or: op = vec ? InsnId::VpuVpOr : InsnId::SpuSpOr; break;
      case Op::Xor: op = vec ? InsnId::VpuVpXor : InsnId::SpuSpXor; break;
      default: unsupported(bo, "this operation on predicates");
    }
    MInst mi = make(op, DType::F32, dst);
    mi.src[0] = MOperand::ofReg(reg(a));
    mi.src[1] = MOperand::ofReg(reg(b));
    emit(mi);
  }

  void compare(llvm::CmpInst& cmp) {
    using P = llvm::CmpInst::Predicate;
    llvm::Value* a = cmp.getOperand(0);
    llvm::Value* b = cmp.getOperand(1);
    auto operandClass = classify(a->getType());
    if (!operandClass) unsupported(cmp, "a comparison of this type");
    bool vector = operandClass->file == RegFile::V;
    if (operandClass->file != RegFile::S && !vector) unsupported(cmp, "a comparison of this type");
    P pred = cmp.getPredicate();
    if (isa<llvm::Constant>(a) && !isa<llvm::Constant>(b)) {
      std::swap(a, b);
      pred = cmp.getSwappedPredicate();
    }
    DType dt = operandClass->dtype;
    if (pred == P::FCMP_UNO || pred == P::FCMP_ORD || pred == P::FCMP_ONE || pred == P::FCMP_UEQ)
      return compareComposite(cmp, a, b, dt, vector);
    bool negate = false;
    InsnId op;
    auto pick = [&](InsnId s, InsnId v) { op = vector ? v : s; };
    switch (pred) {
      case P::ICMP_EQ: case P::FCMP_OEQ: pick(InsnId::SpuCmpEq, InsnId::VpuCmpEq); break;
      case P::ICMP_NE: case P::FCMP_UNE: pick(InsnId::SpuCmpNeq, InsnId::VpuCmpNeq); break;
      case P::ICMP_SLT: case P::FCMP_OLT: pick(InsnId::SpuCmpLess, InsnId::VpuCmpLess); break;
      case P::ICMP_SLE: case P::FCMP_OLE: pick(InsnId::SpuCmpLeq, InsnId::VpuCmpLeq); break;
      case P::ICMP_SGT: case P::FCMP_OGT: pick(InsnId::SpuCmpGrt, InsnId::VpuCmpGrt); break;
      case P::ICMP_SGE: case P::FCMP_OGE: pick(InsnId::SpuCmpGeq, InsnId::VpuCmpGeq); break;
      case P::ICMP_ULT: pick(InsnId::SpuCmpLess, InsnId::VpuCmpLess); dt = unsignedOf(dt); break;
      case P::ICMP_ULE: pick(InsnId::SpuCmpLeq, InsnId::VpuCmpLeq); dt = unsignedOf(dt); break;
      case P::ICMP_UGT: pick(InsnId::SpuCmpGrt, InsnId::VpuCmpGrt); dt = unsignedOf(dt); break;
      case P::ICMP_UGE: pick(InsnId::SpuCmpGeq, InsnId::VpuCmpGeq); dt = unsignedOf(dt); break;
      // Unordered-or comparisons are the negation of the opposite ordered one.
      case P::FCMP_UGE: pick(InsnId::SpuCmpLess, InsnId::VpuCmpLess); negate = true; break;
      case P::FCMP_UGT: pick(InsnId::SpuCmpLeq, InsnId::VpuCmpLeq); negate = true; break;
      case P::FCMP_ULE: pick(InsnId::SpuCmpGrt, InsnId::VpuCmpGrt); negate = true; break;
      case P::FCMP_ULT: pick(InsnId::SpuCmpGeq, InsnId::VpuCmpGeq); negate = true; break;
      default: unsupported(cmp, "this comparison");
    }
    Reg dst = reg(&cmp);
    Reg out = negate ? newReg(dst.file) : dst;
    const isa::InsnInfo& info = isa::insnInfo(op);
    MInst mi = make(op, dt, out);
    mi.src[0] = MOperand::ofReg(vector ? regAsVector(a) : reg(a));
    mi.src[1] = operand(b, info.kinds[2]);
    if (oddWidth(a->getType()) && cmp.isUnsigned()) {
      // Unsigned order of values kept sign-extended: compare their zero extensions.
      unsigned w = a->getType()->getIntegerBitWidth();
      mi.src[0] = MOperand::ofReg(zeroExtended(a));
      if (mi.src[1].isImm()) mi.src[1].imm &= (1u << w) - 1u;
      else mi.src[1] = MOperand::ofReg(zeroExtended(b));
    }
    emit(mi);
    if (negate) {
      MInst n = make(vector ? InsnId::VpuVpNot : InsnId::SpuSpNot, DType::F32, dst);
      n.src[0] = MOperand::ofReg(out);
      emit(n);
    }
  }

  // Float comparisons that take two instructions: unordered (a NaN operand: x != x holds only for NaN),
  // ordered, ordered-and-unequal (less or greater) and their negations.
  void compareComposite(llvm::CmpInst& cmp, llvm::Value* a, llvm::Value* b, DType dt, bool vector) {
    using P = llvm::CmpInst::Predicate;
    const RegFile pf = vector ? RegFile::VP : RegFile::SP;
    auto one = [&](InsnId s, InsnId v, llvm::Value* x, llvm::Value* y) {
      Reg r = newReg(pf);
      MInst mi = make(vector ? v : s, dt, r);
      mi.src[0] = MOperand::ofReg(vector ? regAsVector(x) : reg(x));
      mi.src[1] = operand(y, isa::insnInfo(mi.op).kinds[2]);
      emit(mi);
      return r;
    };
    auto combine = [&](InsnId s, InsnId v, Reg x, Reg y, Reg dst) {
      MInst mi = make(vector ? v : s, DType::F32, dst);
      mi.src[0] = MOperand::ofReg(x);
      mi.src[1] = MOperand::ofReg(y);
      emit(mi);
    };
    const P pred = cmp.getPredicate();
    const bool negate = pred == P::FCMP_ORD || pred == P::FCMP_UEQ;
    Reg dst = reg(&cmp);
    Reg out = negate ? newReg(pf) : dst;
    if (pred == P::FCMP_UNO || pred == P::FCMP_ORD) {
      Reg nanA = one(InsnId::SpuCmpNeq, InsnId::VpuCmpNeq, a, a);
      auto* cb = dyn_cast<llvm::ConstantFP>(b);
      if (cb && !cb->isNaN()) {
        emitCopy(out, nanA);
      } else {
        Reg nanB = one(InsnId::SpuCmpNeq, InsnId::VpuCmpNeq, b, b);
        combine(InsnId::SpuSpOr, InsnId::VpuVpOr, nanA, nanB, out);
      }
    } else {
      Reg less = one(InsnId::SpuCmpLess, InsnId::VpuCmpLess, a, b);
      Reg greater = one(InsnId::SpuCmpGrt, InsnId::VpuCmpGrt, a, b);
      combine(InsnId::SpuSpOr, InsnId::VpuVpOr, less, greater, out);
    }
    if (negate) {
      MInst n = make(vector ? InsnId::VpuVpNot : InsnId::SpuSpNot, DType::F32, dst);
      n.src[0] = MOperand::ofReg(out);
      emit(n);
    }
  }

  // The move of a value of this class, for predicated selection.
  InsnId moveFor(RegFile f) {
    switch (f) {
      case RegFile::V: return InsnId::VpuMov;
      case RegFile::S: return InsnId::SpuMov;
      case RegFile::I: return InsnId::SpuIMov;
      case RegFile::SP: return InsnId::SpuMovSp;
      case RegFile::VP: return InsnId::VpuMovVp;
      default: throw CodegenError("cannot select values of this kind", errorLoc(inst_));
    }
  }

  // d = c ? a : b: move b, then a predicated move of a.
  void selectInst(llvm::SelectInst& sel) {
    TypeClass tc = classOf(sel);
    Reg cond = reg(sel.getCondition());
    Reg dst = reg(&sel);
    InsnId mov = moveFor(tc.file);
    uint32_t kinds = isa::insnInfo(mov).kinds[1];
    MInst first = make(mov, tc.dtype, dst);
    first.src[0] = tc.file == RegFile::V ? operand(sel.getFalseValue(), kinds)
                   : tc.file == RegFile::I ? selectedIndex(sel.getFalseValue(), kinds)
                                           : sourceFor(sel.getFalseValue(), kinds);
    if (tc.file == RegFile::I) first.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
    // A copy the allocator may remove by giving both sides one register (a loop's counter that resets:
    // `n - 1`, then the reset value where the predicate holds, all in the counter's register). Not for
    // vectors: there the false value is mostly computed in the iteration too, and a copy left uncoalesced
    // is a VPU operation the modulo scheduler did not count.
    first.copy = first.src[0].isReg() && (tc.file == RegFile::S || tc.file == RegFile::I);
    emit(first);
    MInst second = make(mov, tc.dtype, dst);
    second.src[0] = tc.file == RegFile::V ? operand(sel.getTrueValue(), kinds)
                    : tc.file == RegFile::I ? selectedIndex(sel.getTrueValue(), kinds)
                                            : sourceFor(sel.getTrueValue(), kinds);
    if (tc.file == RegFile::I) second.sw = first.sw;
    second.dstIsRead = true;
    second.pred = cond;
    if (cond.file == RegFile::VP && tc.file != RegFile::V && tc.file != RegFile::VP)
      unsupported(sel, "a per-lane selection of non-vector values");
    emit(second);
  }

  // An int5 operand of a select in a loop: a coordinate step (one non-zero lane) is the shared register
  // made once in the entry block, not two moves in every iteration (the flat loops' row-end step).
  MOperand selectedIndex(llvm::Value* v, uint32_t kinds) {
    if (auto* c = dyn_cast<llvm::Constant>(v); c && !c->isNullValue() && inLoop(inst_->getParent()))
      if (auto lane = singleNonZeroLane(c); lane && hasCoordinateConstant(lane->first, static_cast<int32_t>(lane->second)))
        return MOperand::ofReg(coordinateConstant(lane->first, static_cast<int32_t>(lane->second)));
    return sourceFor(v, kinds);
  }

  MOperand sourceFor(llvm::Value* v, uint32_t kinds) {
    if (auto* c = dyn_cast<llvm::Constant>(v); c && (kinds & isa::kindBit(RegFile::Imm)))
      if (auto imm = immediateOf(c)) return MOperand::ofImm(c->getType()->isIntegerTy(1) ? (*imm & 1u) : *imm);
    return MOperand::ofReg(reg(v));
  }

  void castInst(llvm::CastInst& cast) {
    using Op = llvm::Instruction::CastOps;
    llvm::Value* src = cast.getOperand(0);
    llvm::Type* from = src->getType();
    llvm::Type* to = cast.getType();
    if (int5LaneView(&cast)) return;  // read by extractElement
    auto fc = classify(from), tc = classify(to);
    if (!fc || !tc) unsupported(cast, "this conversion");
    Reg dst = reg(&cast);
    switch (cast.getOpcode()) {
      case Op::BitCast: case Op::PtrToInt: case Op::IntToPtr: case Op::AddrSpaceCast:
        if (fc->file != tc->file) unsupported(cast, "a reinterpretation between register kinds");
        emitCopy(dst, reg(src));
        return;
      case Op::ZExt: case Op::SExt:
        if ((fc->file == RegFile::SP && tc->file == RegFile::S) || (fc->file == RegFile::VP && tc->file == RegFile::V)) {
          // i1 -> 0 or 1 (-1 for sext): a move of 0, then a move of the true value where the predicate holds
          // (per lane for a vector comparison used as integers).
          const bool vector = tc->file == RegFile::V;
          const InsnId mov = vector ? InsnId::VpuMov : InsnId::SpuMov;
          const DType dt = vector ? tc->dtype : DType::I32;
          MInst zero = make(mov, dt, dst);
          zero.src[0] = MOperand::ofImm(0);
          emit(zero);
          MInst one = make(mov, dt, dst);
          one.src[0] = MOperand::ofImm(cast.getOpcode() == Op::ZExt ? 1u : 0xffffffffu);
          one.dstIsRead = true;
          one.pred = reg(src);
          emit(one);
          return;
        }
        if (fc->file != RegFile::S || tc->file != RegFile::S) unsupported(cast, "this extension");
        if (cast.getOpcode() == Op::SExt) {
          emitCopy(dst, reg(src));  // narrow integers are kept sign-extended
        } else {
          MInst m = make(InsnId::SpuAnd, DType::I32, dst);
          m.src[0] = MOperand::ofReg(reg(src));
          m.src[1] = MOperand::ofImm((1u << from->getIntegerBitWidth()) - 1u);
          emit(m);
        }
        if (oddWidth(to)) signExtendInPlace(dst, to->getIntegerBitWidth());
        return;
      case Op::Trunc: {
        if (tc->file == RegFile::SP) {
          Reg low = newReg(RegFile::S);
          MInst m = make(InsnId::SpuAnd, DType::I32, low);
          m.src[0] = MOperand::ofReg(reg(src));
          m.src[1] = MOperand::ofImm(1);
          emit(m);
          MInst c = make(InsnId::SpuCmpNeq, DType::I32, dst);
          c.src[0] = MOperand::ofReg(low);
          c.src[1] = MOperand::ofImm(0);
          emit(c);
          return;
        }
        if (tc->file != RegFile::S) unsupported(cast, "this truncation");
        if (oddWidth(to)) {
          emitCopy(dst, reg(src));
          signExtendInPlace(dst, to->getIntegerBitWidth());
          return;
        }
        MInst m = make(InsnId::SpuMov, tc->dtype, dst);  // re-extends the low bits
        m.src[0] = MOperand::ofReg(reg(src));
        emit(m);
        return;
      }
      case Op::FPToSI: case Op::FPToUI: case Op::SIToFP: case Op::UIToFP: case Op::FPExt: case Op::FPTrunc: {
        DType fromT = fc->dtype, toT = tc->dtype;
        Reg from = fc->file == RegFile::SP ? Reg{} : reg(src);
        if (fc->file == RegFile::SP) {
          // A scalar bool to float: 0 or 1 (-1 when signed) in a scalar register first, then converted.
          from = newReg(RegFile::S);
          MInst zero = make(InsnId::SpuMov, DType::I32, from);
          zero.src[0] = MOperand::ofImm(0);
          emit(zero);
          MInst one = make(InsnId::SpuMov, DType::I32, from);
          one.src[0] = MOperand::ofImm(cast.getOpcode() == Op::SIToFP ? 0xffffffffu : 1u);
          one.dstIsRead = true;
          one.pred = reg(src);
          emit(one);
          fromT = DType::I32;
        }
        if (cast.getOpcode() == Op::FPToUI) toT = unsignedOf(toT);
        if (cast.getOpcode() == Op::UIToFP) fromT = unsignedOf(fromT);
        bool vector = fc->file == RegFile::V;
        if (fc->file == RegFile::VP) unsupported(cast, "a conversion of a bool vector to float (select 0 or 1 first)");
        if (vector && dtypeSize(fromT) != dtypeSize(toT)) unsupported(cast, "a vector conversion between widths (use the convert intrinsics)");
        isa::ConversionInsn conv = isa::cConversion(vector, fromT, toT);
        MInst m = make(conv.id, conv.dtype, dst);
        m.src[0] = MOperand::ofReg(from);
        m.sw = conv.sw;  // a vector convert writes every lane: its old value (F_READS_DST) is no input
        // TPC-C's float-to-int conversions are fptosi/fptoui of llvm.roundeven (the front end's
        // float_to_int.cpp): one convert that rounds half to even.
        if (auto* round = roundedToEven(src)) {
          m.src[0] = MOperand::ofReg(reg(round->getArgOperand(0)));
          m.sw = isa::switchField(isa::SwitchField::Rm).set(m.sw, static_cast<uint32_t>(isa::RoundingMode::RHNE));
        }
        emit(m);
        return;
      }
      default: unsupported(cast, fmt::format("the conversion '{}'", cast.getOpcodeName()));
    }
  }

  // A bit cast of an int5 to narrower integer lanes that is only read lane by lane with constant indices
  // (LLVM makes `(short)c[k]` into that): each read takes the int5 lane and shifts the part out.
  static llvm::BitCastInst* int5LaneView(llvm::Value* v) {
    auto* bc = dyn_cast<llvm::BitCastInst>(v);
    if (!bc) return nullptr;
    auto* from = dyn_cast<llvm::FixedVectorType>(bc->getSrcTy());
    auto* to = dyn_cast<llvm::FixedVectorType>(bc->getDestTy());
    if (!from || !to || from->getNumElements() != 5 || !from->getElementType()->isIntegerTy(32) ||
        !to->getElementType()->isIntegerTy() || to->getScalarSizeInBits() >= 32)
      return nullptr;
    for (llvm::User* u : bc->users()) {
      if (auto* sv = dyn_cast<llvm::ShuffleVectorInst>(u); sv && sv->getOperand(0) == bc && splatIndex(*sv) >= 0 &&
                                                          splatIndex(*sv) < static_cast<int>(to->getNumElements()))
        continue;  // a broadcast of one part
      auto* ee = dyn_cast<llvm::ExtractElementInst>(u);
      if (!ee || ee->getVectorOperand() != bc || !isa<llvm::ConstantInt>(ee->getIndexOperand())) return nullptr;
    }
    return bc;
  }

  // The one element all defined mask elements of a shuffle name, or -1.
  static int splatIndex(const llvm::ShuffleVectorInst& sv) {
    int lane = -1;
    for (int e : sv.getShuffleMask()) {
      if (e < 0) continue;
      if (lane >= 0 && e != lane) return -1;
      lane = e;
    }
    return lane;
  }

  // Part `index` of an int5LaneView, sign-extended into `dst` (a fresh scalar register if none).
  Reg int5Part(llvm::BitCastInst* view, uint32_t index, Reg dst) {
    const uint32_t bits = view->getDestTy()->getScalarSizeInBits();
    const uint32_t at = index * bits;
    Reg lane = newReg(RegFile::S);
    MInst m = make(InsnId::SpuMovIrfDim, DType::I32, lane);
    m.src[0] = MOperand::ofReg(reg(view->getOperand(0)));
    m.sw = isa::switchField(isa::SwitchField::Dim).set(0, at / 32);
    emit(m);
    // the part to the top, then an arithmetic shift down: sign-extended, as narrow values are kept
    Reg top = newReg(RegFile::S);
    MInst shl = make(InsnId::SpuShl, DType::I32, top);
    shl.src[0] = MOperand::ofReg(lane);
    shl.src[1] = MOperand::ofImm(32 - bits - at % 32);
    emit(shl);
    MInst shr = make(InsnId::SpuShr, DType::I32, dst);
    shr.src[0] = MOperand::ofReg(top);
    shr.src[1] = MOperand::ofImm(32 - bits);
    emit(shr);
    return dst;
  }

  void extractElement(llvm::ExtractElementInst& ee) {
    if (onlyFeedsPrintf(ee)) return;  // printed by printf_lane
    if (llvm::BitCastInst* view = int5LaneView(ee.getVectorOperand())) {
      int5Part(view, static_cast<uint32_t>(cast<llvm::ConstantInt>(ee.getIndexOperand())->getZExtValue()), reg(&ee));
      return;
    }
    auto vc = classify(ee.getVectorOperandType());
    auto* idx = dyn_cast<llvm::ConstantInt>(ee.getIndexOperand());
    if (!vc || vc->file != RegFile::I || !idx) unsupported(ee, "reading one lane of a vector");
    MInst m = make(InsnId::SpuMovIrfDim, DType::I32, reg(&ee));
    m.src[0] = MOperand::ofReg(reg(ee.getVectorOperand()));
    m.sw = isa::switchField(isa::SwitchField::Dim).set(0, static_cast<uint32_t>(idx->getZExtValue()));
    emit(m);
  }

  void insertElement(llvm::InsertElementInst& ie) {
    auto vc = classify(ie.getType());
    // insertelement into a vector that only feeds a splat shuffle is folded with the shuffle.
    if (vc && vc->file == RegFile::V) {
      bool onlySplats = !ie.use_empty();
      for (llvm::User* u : ie.users()) onlySplats &= isa<llvm::ShuffleVectorInst>(u) && llvm::getSplatValue(u);
      if (onlySplats) return;
    }
    auto* idx = dyn_cast<llvm::ConstantInt>(ie.getOperand(2));
    if (!vc || vc->file != RegFile::I || !idx) unsupported(ie, "writing one lane of a vector");
    Reg dst = reg(&ie);
    llvm::Value* base = ie.getOperand(0);
    // Inserting over the same lane as the insert we build on: start from that insert's base instead, so
    // that successive coordinate updates (unrolled iterations) do not wait for each other.
    while (auto* inner = dyn_cast<llvm::InsertElementInst>(base)) {
      auto* innerIdx = dyn_cast<llvm::ConstantInt>(inner->getOperand(2));
      if (!innerIdx || innerIdx->getZExtValue() != idx->getZExtValue()) break;
      base = inner->getOperand(0);
    }
    // base with x + C in a lane, when base with x in that lane is already at hand: add a constant
    // coordinate vector instead (one index-register operation, no chain through the scalar unit).
    auto [x, constant] = baseAndConstant(ie.getOperand(1));
    const auto lane = static_cast<uint32_t>(idx->getZExtValue());
    auto cacheKey = std::make_tuple(cur_, base, x, lane);
    // The vector inserted into already holds x in that lane (it is an insert of x there, or x is read from
    // its lane: `c[0] += 64`): it is the one at hand.
    if (llvm::Value* into = ie.getOperand(0); constant != 0 && !isa<llvm::Constant>(into)) {
      const auto sameLane = [&](llvm::Value* i) {
        auto* k = dyn_cast<llvm::ConstantInt>(i);
        return k && k->getZExtValue() == lane;
      };
      auto* ins = dyn_cast<llvm::InsertElementInst>(into);
      auto* ex = dyn_cast<llvm::ExtractElementInst>(x);
      if ((ins && ins->getOperand(1) == x && sameLane(ins->getOperand(2))) ||
          (ex && ex->getVectorOperand() == into && sameLane(ex->getIndexOperand())))
        insertCache_.try_emplace(cacheKey, reg(into));
    }
    if (constant != 0) {
      if (auto it = insertCache_.find(cacheKey); it != insertCache_.end()) {
        // A shared constant register where the add repeats (in a loop) or the register exists already;
        // elsewhere the copy and an immediate add cost less than making the register.
        if (coordinateConstants_.count({lane, static_cast<int32_t>(constant)}) ||
            (inLoop(inst_->getParent()) && hasCoordinateConstant(lane, static_cast<int32_t>(constant)))) {
          MInst m = make(InsnId::SpuIAdd, DType::I32, dst);
          m.src[0] = MOperand::ofReg(coordinateConstant(lane, static_cast<int32_t>(constant)));
          m.src[1] = MOperand::ofReg(it->second);
          m.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
          emit(m);
        } else {  // the copy, then the constant added to its one lane
          emitCopy(dst, it->second);
          mf_.blocks[static_cast<size_t>(cur_)].insts.back().copy = false;
          MInst m = make(InsnId::SpuIAdd, DType::I32, dst);
          m.src[0] = MOperand::ofImm(static_cast<uint32_t>(constant));
          m.src[1] = MOperand::ofReg(dst);
          m.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 1u << lane);
          m.dstIsRead = true;
          emit(m);
        }
        return;
      }
    } else if (x == ie.getOperand(1)) {
      insertCache_[cacheKey] = dst;
    }
    if (auto* c = dyn_cast<llvm::Constant>(base); c && !isa<llvm::UndefValue>(c)) {
      materialize(c, dst);  // made where it is needed rather than copied
    } else if (!isa<llvm::UndefValue>(base)) {
      // Not coalescable: updated coordinates in a register of their own let unrolled iterations overlap
      // instead of waiting for each other's reads of one index register. Except where this insert is all
      // that reads the base, one step of building an int5 lane by lane: nothing else waits for that
      // register, so the allocator may build the vector in place.
      emitCopy(dst, reg(base));
      const auto* built = dyn_cast<llvm::InsertElementInst>(base);
      if (!(built && built->hasOneUse() && built->getParent() == ie.getParent()))
        mf_.blocks[static_cast<size_t>(cur_)].insts.back().copy = false;
    }
    MInst m = make(InsnId::SpuIMov, DType::I32, dst);
    m.src[0] = sourceFor(ie.getOperand(1), isa::kindBit(RegFile::S) | isa::kindBit(RegFile::Imm));
    m.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 1u << idx->getZExtValue());
    m.dstIsRead = true;
    emit(m);
  }

  void shuffle(llvm::ShuffleVectorInst& sv) {
    // Splats are folded into their users (scalar operands) or broadcast by regAsVector when needed.
    if (llvm::getSplatValue(&sv)) {
      auto c = classify(sv.getType());
      if (c && c->file == RegFile::V) {
        bool allFold = true;
        for (llvm::User* u : sv.users()) allFold &= !isa<llvm::PHINode>(u) && !isa<llvm::SelectInst>(u);
        if (!allFold) {
          Reg r = newReg(RegFile::V);
          values_.emplace(&sv, std::vector<Reg>{r});
          MInst mi = make(InsnId::VpuMov, c->dtype, r);
          mi.src[0] = operand(llvm::getSplatValue(&sv), isa::kindBit(RegFile::S) | isa::kindBit(RegFile::Imm));
          emit(mi);
        }
        return;
      }
      if (c && c->file == RegFile::I) {
        Reg r = reg(&sv);
        MInst mi = make(InsnId::SpuIMov, DType::I32, r);
        mi.src[0] = sourceFor(llvm::getSplatValue(&sv), isa::kindBit(RegFile::S) | isa::kindBit(RegFile::Imm));
        mi.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
        emit(mi);
        return;
      }
    }
    auto c = classify(sv.getType());
    auto sc = classify(sv.getOperand(0)->getType());
    llvm::ArrayRef<int> mask = sv.getShuffleMask();
    const int n0 = static_cast<int>(llvm::cast<llvm::FixedVectorType>(sv.getOperand(0)->getType())->getNumElements());
    // The lane of an int5 that mask element e names: its operand and lane (e < 0: undefined).
    auto laneOf = [&](int e) { return std::make_pair(sv.getOperand(e < n0 ? 0 : 1), e < n0 ? e : e - n0); };
    if (llvm::BitCastInst* view = int5LaneView(sv.getOperand(0)); view && c && c->file == RegFile::V) {
      Reg part = int5Part(view, static_cast<uint32_t>(splatIndex(sv)), newReg(RegFile::S));
      MInst m = make(InsnId::VpuMov, c->dtype, reg(&sv));
      m.src[0] = MOperand::ofReg(part);
      emit(m);
      return;
    }
    if (c && sc && sc->file == RegFile::I && c->file == RegFile::V) {
      // A broadcast of one lane of an int5 (LLVM folds extractelement + splat into this): the lane to a
      // scalar register, then a move to every lane.
      int lane = -1;
      bool splat = true;
      for (int e : mask) {
        if (e < 0) continue;
        if (lane >= 0 && e != lane) splat = false;
        lane = e;
      }
      if (splat && lane >= 0) {
        auto [v, l] = laneOf(lane);
        Reg s = laneToScalar(v, l);
        MInst m = make(InsnId::VpuMov, c->dtype, reg(&sv));
        m.src[0] = MOperand::ofReg(s);
        emit(m);
        return;
      }
    }
    if (c && sc && sc->file == RegFile::I && c->file == RegFile::I) {
      // Lanes of two int5 values (LLVM turns a run of insertelements over a constant into this): start
      // from the operand that gives the most lanes in place, move the other in-place lanes with one i_mov
      // per operand (dimmask), and the lanes that change position through a scalar register.
      Reg dst = reg(&sv);
      int inPlace[2] = {0, 0};
      for (int i = 0; i < static_cast<int>(mask.size()); ++i)
        if (mask[i] >= 0 && laneOf(mask[i]).second == i) ++inPlace[mask[i] < n0 ? 0 : 1];
      int base = inPlace[1] > inPlace[0] ? 1 : 0;
      emitCopy(dst, reg(sv.getOperand(static_cast<unsigned>(base))));
      mf_.blocks[static_cast<size_t>(cur_)].insts.back().copy = false;
      uint32_t dimmask[2] = {0, 0};
      for (int i = 0; i < static_cast<int>(mask.size()); ++i) {
        if (mask[i] < 0) continue;
        int from = mask[i] < n0 ? 0 : 1;
        if (laneOf(mask[i]).second == i) {
          if (from != base) dimmask[from] |= 1u << i;
          continue;
        }
        auto [v, l] = laneOf(mask[i]);
        MInst m = make(InsnId::SpuIMov, DType::I32, dst);
        m.src[0] = MOperand::ofReg(laneToScalar(v, l));
        m.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 1u << i);
        m.dstIsRead = true;
        emit(m);
      }
      for (int from = 0; from < 2; ++from) {
        if (!dimmask[from]) continue;
        MInst m = make(InsnId::SpuIMov, DType::I32, dst);
        m.src[0] = MOperand::ofReg(reg(sv.getOperand(static_cast<unsigned>(from))));
        m.sw = isa::switchField(isa::SwitchField::DimMask).set(0, dimmask[from]);
        m.dstIsRead = true;
        emit(m);
      }
      return;
    }
    unsupported(sv, "reading one lane of a vector, or rearranging lanes,");
  }

  void extractValue(llvm::ExtractValueInst& ev) {
    if (ev.getNumIndices() != 1) unsupported(ev, "nested aggregates");
    const std::vector<Reg> src = regs(ev.getAggregateOperand());
    emitCopy(reg(&ev), src.at(ev.getIndices()[0]));
  }

  void insertValue(llvm::InsertValueInst& iv) {
    if (iv.getNumIndices() != 1) unsupported(iv, "nested aggregates");
    const std::vector<Reg> dst = regs(&iv);
    llvm::Value* agg = iv.getAggregateOperand();
    if (!isa<llvm::UndefValue>(agg)) {
      const std::vector<Reg> base = regs(agg);
      for (size_t k = 0; k < dst.size(); ++k)
        if (k != iv.getIndices()[0]) emitCopy(dst[k], base[k]);
    }
    emitCopy(dst[iv.getIndices()[0]], reg(iv.getInsertedValueOperand()));
  }

  // Pointers to local memory are byte addresses in S registers (vector local memory tagged, see
  // allocateLocal); pointers to global memory live in AD registers.
  MOperand addressOperand(llvm::Value* ptr) {
    if (auto* c = dyn_cast<llvm::Constant>(ptr)) {
      Reg r = reg(c);  // materializes the address
      return MOperand::ofReg(r);
    }
    return MOperand::ofReg(reg(ptr));
  }

  // Strips the vector-local tag from an address operand. An address made in this block by adding a tagged
  // constant (an element of a local array) is made again with the constant untagged: the two adds run side
  // by side instead of an `and` after the add (and the tagged one goes if nothing else reads it).
  MOperand untag(MOperand addr) {
    if (addr.isImm()) return MOperand::ofImm(addr.imm & ~kVectorLocalTag);
    const std::vector<MInst>& insts = mf_.blocks[static_cast<size_t>(cur_)].insts;
    for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
      if (!(it->dst == addr.reg)) continue;
      // (Only while the add's operand still holds the value it read.)
      const bool operandKept = it->src[0].isReg() && std::none_of(insts.rbegin(), it, [&](const MInst& later) {
        return later.dst == it->src[0].reg;
      });
      if (it->op == InsnId::SpuAdd && !it->pred.valid() && operandKept && it->src[1].isImm() &&
          (it->src[1].imm & kVectorLocalTag)) {
        const uint32_t untagged = it->src[1].imm & ~kVectorLocalTag;
        if (untagged == 0) return it->src[0];  // an array at local address 0: its index alone, no add to wait for
        MInst again = *it;
        again.dst = newReg(RegFile::S);
        again.src[1] = MOperand::ofImm(untagged);
        again.variables.clear();
        emit(again);
        return MOperand::ofReg(again.dst);
      }
      break;
    }
    Reg r = newReg(RegFile::S);
    MInst m = make(InsnId::SpuAnd, DType::U32, r);
    m.src[0] = addr;
    m.src[1] = MOperand::ofImm(~kVectorLocalTag);
    emit(m);
    return MOperand::ofReg(r);
  }

  MOperand constantAddress(llvm::Value* ptr) {
    if (auto* g = dyn_cast<llvm::GlobalVariable>(ptr)) return MOperand::ofImm(localAddress(g));
    if (auto* ce = dyn_cast<llvm::ConstantExpr>(ptr)) {
      InstructionHolder in(ce->getAsInstruction());
      if (auto* gep = dyn_cast<llvm::GetElementPtrInst>(in.get())) {
        llvm::APInt off(32, 0);
        if (gep->accumulateConstantOffset(f_.getParent()->getDataLayout(), off))
          if (auto* g = dyn_cast<llvm::GlobalVariable>(gep->getPointerOperand()))
            return MOperand::ofImm(localAddress(g) + static_cast<uint32_t>(off.getZExtValue()));
      }
    }
    if (auto it = allocaAddress_.find(ptr); it != allocaAddress_.end()) return MOperand::ofImm(it->second);
    return MOperand::ofReg(reg(ptr));
  }

  void load(llvm::LoadInst& ld) {
    TypeClass tc = classOf(ld);
    llvm::Value* ptr = ld.getPointerOperand();
    if (ld.getPointerAddressSpace() == kGlobalAddressSpace) {
      if (tc.file != RegFile::S && tc.file != RegFile::V) unsupported(ld, "a global load of this type");
      MInst m = make(tc.file == RegFile::V ? InsnId::LdGV : InsnId::LdG, tc.dtype, reg(&ld));
      m.src[0] = MOperand::ofReg(reg(ptr));
      emit(m);
      return;
    }
    MOperand addr = constantAddress(ptr);
    if (tc.file == RegFile::V) {
      MInst m = make(InsnId::LdLV, tc.dtype, reg(&ld));
      m.src[0] = untag(addr);
      emit(m);
    } else if (tc.file == RegFile::S) {
      MInst m = make(InsnId::LdL, tc.dtype, reg(&ld));
      m.src[0] = addr;
      emit(m);
    } else {
      unsupported(ld, "a local-memory load of this type");
    }
  }

  void store(llvm::StoreInst& st) {
    llvm::Value* v = st.getValueOperand();
    TypeClass tc = classOf(*v);
    llvm::Value* ptr = st.getPointerOperand();
    if (st.getPointerAddressSpace() == kGlobalAddressSpace) {
      MInst m = make(tc.file == RegFile::V ? InsnId::StGV : InsnId::StG, tc.dtype, Reg{});
      m.src[0] = MOperand::ofReg(reg(ptr));
      m.src[1] = MOperand::ofReg(tc.file == RegFile::V ? regAsVector(v) : reg(v));
      emit(m);
      return;
    }
    MOperand addr = constantAddress(ptr);
    if (tc.file == RegFile::V) {
      MInst m = make(InsnId::StLV, tc.dtype, Reg{});
      m.src[0] = untag(addr);
      m.src[1] = MOperand::ofReg(regAsVector(v));
      emit(m);
    } else if (tc.file == RegFile::S) {
      MInst m = make(InsnId::StL, tc.dtype, Reg{});
      m.src[0] = addr;
      m.src[1] = MOperand::ofReg(reg(v));
      emit(m);
    } else {
      unsupported(st, "a local-memory store of this type");
    }
  }

  void getElementPtr(llvm::GetElementPtrInst& gep) {
    const llvm::DataLayout& dl = f_.getParent()->getDataLayout();
    if (gep.getAddressSpace() == kGlobalAddressSpace) unsupported(gep, "address arithmetic on global pointers");
    llvm::APInt constOff(32, 0);
    MOperand base = constantAddress(gep.getPointerOperand());
    Reg dst = reg(&gep);
    if (gep.accumulateConstantOffset(dl, constOff)) {
      addTo(dst, base, static_cast<uint32_t>(constOff.getZExtValue()));
      return;
    }
    // base + sum(index * element size), a constant base added with the constant indices (one add, which
    // untag() can redo without the vector-local tag).
    std::optional<MOperand> acc;
    uint32_t constant = 0;
    if (base.isImm()) constant = base.imm;
    else acc = base;
    for (auto it = llvm::gep_type_begin(gep); it != llvm::gep_type_end(gep); ++it) {
      llvm::Value* idx = it.getOperand();
      uint64_t scale;
      if (llvm::StructType* st = it.getStructTypeOrNull()) {
        auto* ci = llvm::cast<llvm::ConstantInt>(idx);
        constant += static_cast<uint32_t>(dl.getStructLayout(st)->getElementOffset(static_cast<unsigned>(ci->getZExtValue())));
        continue;
      }
      scale = it.getSequentialElementStride(dl);
      if (auto* ci = dyn_cast<llvm::ConstantInt>(idx)) {
        constant += static_cast<uint32_t>(ci->getSExtValue() * static_cast<int64_t>(scale));
        continue;
      }
      Reg scaled = newReg(RegFile::S);
      MInst m;
      if ((scale & (scale - 1)) == 0) {
        m = make(InsnId::SpuShl, DType::I32, scaled);
        m.src[1] = MOperand::ofImm(static_cast<uint32_t>(__builtin_ctzll(scale)));
      } else {
        m = make(InsnId::SpuMul, DType::I32, scaled);
        m.src[1] = MOperand::ofImm(static_cast<uint32_t>(scale));
      }
      m.src[0] = MOperand::ofReg(reg(idx));
      if (scale == 1) {
        emitCopy(scaled, reg(idx));
      } else {
        emit(m);
      }
      if (!acc) {
        acc = MOperand::ofReg(scaled);
        continue;
      }
      Reg sum = newReg(RegFile::S);
      MInst add = make(InsnId::SpuAdd, DType::I32, sum);
      add.src[0] = MOperand::ofReg(scaled);
      add.src[1] = *acc;
      emit(add);
      acc = MOperand::ofReg(sum);
    }
    addTo(dst, acc ? *acc : MOperand::ofImm(0), constant);
  }

  void addTo(Reg dst, MOperand base, uint32_t offset) {
    if (base.isImm()) {
      MInst m = make(InsnId::SpuMov, DType::I32, dst);
      m.src[0] = MOperand::ofImm(base.imm + offset);
      emit(m);
      return;
    }
    if (offset == 0) {
      emitCopy(dst, base.reg);
      return;
    }
    MInst m = make(InsnId::SpuAdd, DType::I32, dst);
    m.src[0] = base;
    m.src[1] = MOperand::ofImm(offset);
    emit(m);
  }

  void alloca(llvm::AllocaInst& al) {
    if (!al.isStaticAlloca()) unsupported(al, "a variable-length array");
    uint32_t addr = allocateLocal(al.getAllocatedType());
    allocaAddress_[&al] = addr;
    MInst m = make(InsnId::SpuMov, DType::I32, reg(&al));
    m.src[0] = MOperand::ofImm(addr);
    emit(m);
  }

  void branch(llvm::BranchInst& br) {
    MBlock& b = mf_.blocks[static_cast<size_t>(cur_)];
    b.endLoc = loc_;
    if (auto it = loopCount_.find(cur_); it != loopCount_.end() && br.isUnconditional()) {
      // Preheader of a hardware loop: `loop` with a zero start, the trip count and step 1.
      int body = blockIndex_.at(br.getSuccessor(0));
      b.next = body;
      b.loopBody = body;
      b.loopCount = it->second;
      b.loopZero = newReg(RegFile::S);
      b.loopIter = newReg(RegFile::S);
      MInst zero = make(InsnId::SpuMov, DType::I32, b.loopZero);
      zero.src[0] = MOperand::ofImm(0);
      emit(zero);
      loopBodies_[body] = b.loopIter;
      return;
    }
    if (auto it = loopBodies_.find(cur_); it != loopBodies_.end() && br.isConditional()) {
      // The body of a hardware loop: the core repeats it; leaving it falls through to the exit.
      llvm::BasicBlock* self = br.getParent();
      int inLoop = -1, out = -1;
      for (int k = 0; k < 2; ++k) {
        llvm::BasicBlock* s = br.getSuccessor(static_cast<unsigned>(k));
        bool backEdge = s == self || (s->size() == 1 && s->getSingleSuccessor() == self);
        (backEdge ? inLoop : out) = blockIndex_.at(s);
      }
      if (inLoop >= 0 && out >= 0) {
        b.next = out;
        b.bodyIter = it->second;
        if (inLoop != cur_) {
          mf_.blocks[static_cast<size_t>(inLoop)].dead = true;
          for (llvm::BasicBlock* s : llvm::successors(self))
            if (blockIndex_.at(s) == inLoop) backEdgeBlock_[s] = cur_;
        }
        return;
      }
    }
    if (br.isUnconditional()) {
      b.next = blockIndex_.at(br.getSuccessor(0));
      return;
    }
    int t = blockIndex_.at(br.getSuccessor(0)), f = blockIndex_.at(br.getSuccessor(1));
    llvm::Value* cond = br.getCondition();
    if (auto* c = dyn_cast<llvm::ConstantInt>(cond)) {
      b.next = c->isOne() ? t : f;
      return;
    }
    b.condPred = reg(cond);
    // Jump on the condition to the block that does not follow in the layout.
    if (t == cur_ + 1) {
      b.condTarget = f;
      b.condNegate = true;
      b.next = t;
    } else {
      b.condTarget = t;
      b.next = f;
    }
  }

  // ---------------------------------------------------------------------------------- calls

  void callInst(llvm::CallInst& call) {
    llvm::Function* callee = call.getCalledFunction();
    if (!callee) unsupported(call, "a call through a pointer");
    if (auto* ii = dyn_cast<llvm::IntrinsicInst>(&call)) return llvmIntrinsic(*ii);
    llvm::StringRef name = callee->getName();
    if (name == "printf") return printfCall(call);
    if (name == kHardwareLoopMarker) {
      loopCount_[cur_] = reg(call.getArgOperand(0));
      return;
    }
    if (!name.starts_with(isa::kBuiltinPrefix.data()))
      throw CodegenError(fmt::format("call to '{}' cannot be compiled: TPC code calls only intrinsics and "
                                     "functions that are inlined", name.str()), errorLoc(inst_));
    const isa::IntrinsicInfo* info = isa::findIntrinsic(name.substr(isa::kBuiltinPrefix.size()).str());
    if (!info) throw CodegenError(fmt::format("unknown intrinsic '{}'", name.str()), errorLoc(inst_));
    lowerIntrinsicCall(*this, call, *info);
  }

  static bool onlyFeedsPrintf(const llvm::Value& v) {
    if (v.use_empty()) return false;
    for (const llvm::User* u : v.users()) {
      if (isa<llvm::FPExtInst>(u) && onlyFeedsPrintf(*u)) continue;  // through the promotion to double
      auto* call = dyn_cast<llvm::CallInst>(u);
      if (!call || !call->getCalledFunction() || call->getCalledFunction()->getName() != "printf") return false;
    }
    return true;
  }

  // printf(format) or printf(format, value): the value is a scalar (floats arrive promoted to double:
  // the float is printed) or one lane of a vector, with a run-time lane number.
  void printfCall(llvm::CallInst& call) {
    llvm::StringRef text;
    if (call.arg_size() < 1 || !llvm::getConstantStringInfo(call.getArgOperand(0), text))
      throw CodegenError("printf: the format must be a string literal", errorLoc(inst_));
    std::string why;
    auto parsed = isa::parsePrintfFormat(text, &why);
    if (!parsed) throw CodegenError("printf: " + why, errorLoc(inst_));
    size_t values = call.arg_size() - 1;
    bool wantsValue = parsed->conversion != isa::PrintfConversion::None;
    if (values > 1) throw CodegenError("printf: a TPC printf prints at most one value", errorLoc(inst_));
    if (wantsValue != (values == 1))
      throw CodegenError(wantsValue ? "printf: the format converts a value but none is given"
                                    : "printf: a value is given but the format has no conversion for it", errorLoc(inst_));
    uint32_t index = 0;
    while (index < mf_.printfFormats.size() && mf_.printfFormats[index] != text) ++index;
    if (index == mf_.printfFormats.size()) mf_.printfFormats.push_back(text.str());
    MInst m = make(InsnId::SpuPrintfStr, DType::F32, Reg{});
    m.sw = isa::switchField(isa::SwitchField::Format).set(0, index);
    if (values == 1) {
      llvm::Value* v = call.getArgOperand(1);
      if (auto* ext = dyn_cast<llvm::FPExtInst>(v)) v = ext->getOperand(0);  // the default promotion
      if (auto* ee = dyn_cast<llvm::ExtractElementInst>(v); ee && classify(ee->getVectorOperandType()) &&
                                                           classify(ee->getVectorOperandType())->file == RegFile::V) {
        TypeClass tc = *classify(ee->getVectorOperandType());
        m.op = InsnId::SpuPrintfLane;
        m.dtype = tc.dtype;
        m.src[0] = MOperand::ofReg(regAsVector(ee->getVectorOperand()));
        if (auto* k = dyn_cast<llvm::ConstantInt>(ee->getIndexOperand()))  // LLVM writes constant lanes as i64
          m.src[1] = MOperand::ofImm(static_cast<uint32_t>(k->getZExtValue()));
        else
          m.src[1] = operand(ee->getIndexOperand(), isa::kindBit(RegFile::S) | isa::kindBit(RegFile::Imm));
      } else {
        auto c = classify(v->getType());
        if (!c || c->file != RegFile::S) unsupported(*v, "printf of a value of this type");
        m.op = InsnId::SpuPrintf;
        m.dtype = c->dtype;
        m.src[0] = operand(v, isa::kindBit(RegFile::S) | isa::kindBit(RegFile::Imm));
      }
    }
    emit(m);
  }

  // llvm.roundeven feeding only float-to-int conversions, which take its rounding into their convert.
  static llvm::IntrinsicInst* roundedToEven(llvm::Value* v) {
    auto* ii = dyn_cast<llvm::IntrinsicInst>(v);
    if (!ii || ii->getIntrinsicID() != llvm::Intrinsic::roundeven) return nullptr;
    for (const llvm::User* u : ii->users())
      if (!isa<llvm::FPToSIInst>(u) && !isa<llvm::FPToUIInst>(u)) return nullptr;
    return ii;
  }

  void llvmIntrinsic(llvm::IntrinsicInst& ii) {
    namespace ID = llvm::Intrinsic;
    if (roundedToEven(&ii)) return;  // selected with its conversions
    switch (ii.getIntrinsicID()) {
      case ID::dbg_value:
        if (auto* dv = llvm::dyn_cast<llvm::DbgValueInst>(&ii))
          noteVariable(dv->getVariable(), dv->getDebugLoc().getInlinedAt(), dv->getValue());
        return;
      case ID::lifetime_start: case ID::lifetime_end: case ID::assume: case ID::dbg_declare:
      case ID::dbg_label: case ID::experimental_noalias_scope_decl: case ID::donothing:
        return;
      case ID::smax: case ID::smin: case ID::umax: case ID::umin: case ID::maxnum: case ID::minnum:
      case ID::maximum: case ID::minimum: {
        TypeClass tc = classOf(ii);
        bool vector = tc.file == RegFile::V;
        bool isMax = ii.getIntrinsicID() == ID::smax || ii.getIntrinsicID() == ID::umax ||
                     ii.getIntrinsicID() == ID::maxnum || ii.getIntrinsicID() == ID::maximum;
        DType dt = (ii.getIntrinsicID() == ID::umax || ii.getIntrinsicID() == ID::umin) ? unsignedOf(tc.dtype) : tc.dtype;
        InsnId op = vector ? (isMax ? InsnId::VpuMax : InsnId::VpuMin) : (isMax ? InsnId::SpuMax : InsnId::SpuMin);
        llvm::Value* a = ii.getArgOperand(0);
        llvm::Value* b = ii.getArgOperand(1);
        if (isa<llvm::Constant>(a) || (vector && llvm::getSplatValue(a))) std::swap(a, b);
        MInst m = make(op, dt, reg(&ii));
        m.src[0] = MOperand::ofReg(vector ? regAsVector(a) : reg(a));
        m.src[1] = operand(b, isa::insnInfo(op).kinds[2]);
        emit(m);
        return;
      }
      case ID::abs: case ID::fabs: {
        TypeClass tc = classOf(ii);
        bool vector = tc.file == RegFile::V;
        MInst m = make(vector ? InsnId::VpuAbs : InsnId::SpuAbs, tc.dtype, reg(&ii));
        m.src[0] = MOperand::ofReg(reg(ii.getArgOperand(0)));
        emit(m);
        return;
      }
      case ID::copysign: return copySign(ii);
      default: unsupported(ii, fmt::format("the LLVM intrinsic '{}'", ii.getCalledFunction()->getName().str()));
    }
  }

  // Whether a coordinate constant register may serve (lane, c): it exists, or there is room for one more.
  // Each holds an index register through the whole kernel; beyond a few, constants go into instructions.
  static constexpr size_t kMaxCoordinateConstants = 4;
  bool inLoop(const llvm::BasicBlock* bb) {
    if (!loops_) {
      dominators_ = std::make_unique<llvm::DominatorTree>(f_);
      loops_ = std::make_unique<llvm::LoopInfo>(*dominators_);
    }
    return loops_->getLoopFor(bb) != nullptr;
  }

  bool hasCoordinateConstant(uint32_t lane, int32_t c) const {
    return coordinateConstants_.count({lane, c}) || coordinateConstants_.size() < kMaxCoordinateConstants;
  }

  // An index register holding C in `lane` and 0 elsewhere, made once in the entry block.
  Reg coordinateConstant(uint32_t lane, int32_t c) {
    auto key = std::make_pair(lane, c);
    if (auto it = coordinateConstants_.find(key); it != coordinateConstants_.end()) return it->second;
    Reg r = newReg(RegFile::I);
    MInst zero = make(InsnId::SpuIMov, DType::I32, r);
    zero.src[0] = MOperand::ofImm(0);
    zero.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
    MInst set = make(InsnId::SpuIMov, DType::I32, r);
    set.src[0] = MOperand::ofImm(static_cast<uint32_t>(c));
    set.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 1u << lane);
    set.dstIsRead = true;
    emit(zero, 0);
    emit(set, 0);
    return coordinateConstants_[key] = r;
  }

  // Coordinates made by inserting `x + C` into dimension 0 of a base vector: the access is at
  // (base, x) shifted by C elements.
  void describeCoordinates(llvm::Value* ndx, MInst* m) {
    if (auto* phi = dyn_cast<llvm::PHINode>(ndx)) return describeCoordinateIv(phi, m);
    auto* ie = dyn_cast<llvm::InsertElementInst>(ndx);
    if (!ie) return;
    auto* idx = dyn_cast<llvm::ConstantInt>(ie->getOperand(2));
    if (!idx || idx->getZExtValue() != 0) return;
    llvm::Value* base = ie->getOperand(0);
    while (auto* inner = dyn_cast<llvm::InsertElementInst>(base)) {
      auto* k = dyn_cast<llvm::ConstantInt>(inner->getOperand(2));
      if (!k || k->getZExtValue() != 0) break;
      base = inner->getOperand(0);
    }
    auto [x, c] = baseAndConstant(ie->getOperand(1));
    if (auto* k = dyn_cast<llvm::ConstantInt>(x)) {  // constant coordinates: one base for all of them
      c += k->getSExtValue();
      x = nullptr;
    }
    m->coordBase = llvm::hash_combine(base, x);
    if (!m->coordBase) m->coordBase = 1;
    m->coordOffset = c;
    // x a PHI of this very block whose back-edge value is x + K: the access moves by K per iteration.
    if (auto* phi = llvm::dyn_cast_or_null<llvm::PHINode>(x); phi && phi->getParent() == ie->getParent()) {
      auto* baseInst = dyn_cast<llvm::Instruction>(base);
      if (!baseInst || baseInst->getParent() != phi->getParent())
        for (llvm::Value* in : phi->incoming_values())
          if (auto [from, k] = baseAndConstant(in); from == phi && k) m->coordStep = k;
    }
  }

  // A coordinate induction variable (coordinate_ivs.cpp): it starts at coordinates as above and
  // advances by a vector that is K in dimension 0 and zero elsewhere.
  void describeCoordinateIv(llvm::PHINode* phi, MInst* m) {
    llvm::Value* start = nullptr;
    int64_t step = 0;
    for (llvm::Value* in : phi->incoming_values()) {
      auto* add = dyn_cast<llvm::BinaryOperator>(in);
      auto* stepVec = add ? dyn_cast<llvm::InsertElementInst>(add->getOperand(1)) : nullptr;
      if (add && add->getOpcode() == llvm::Instruction::Add && add->getOperand(0) == phi && stepVec) {
        auto* k = dyn_cast<llvm::ConstantInt>(stepVec->getOperand(1));
        auto* lane = dyn_cast<llvm::ConstantInt>(stepVec->getOperand(2));
        auto* rest = dyn_cast<llvm::Constant>(stepVec->getOperand(0));
        if (k && lane && lane->isZero() && rest && rest->isNullValue()) step = k->getSExtValue();
      } else {
        start = in;
      }
    }
    // A start made from another copy's start plus a constant in dimension 0 (coordinate_ivs.cpp).
    int64_t delta = 0;
    while (auto* add = dyn_cast_or_null<llvm::BinaryOperator>(start)) {
      auto* vec = add->getOpcode() == llvm::Instruction::Add ? dyn_cast<llvm::InsertElementInst>(add->getOperand(1)) : nullptr;
      auto* k = vec ? dyn_cast<llvm::ConstantInt>(vec->getOperand(1)) : nullptr;
      auto* lane = vec ? dyn_cast<llvm::ConstantInt>(vec->getOperand(2)) : nullptr;
      auto* rest = vec ? dyn_cast<llvm::Constant>(vec->getOperand(0)) : nullptr;
      if (!k || !lane || !lane->isZero() || !rest || !rest->isNullValue()) return;
      delta += k->getSExtValue();
      start = add->getOperand(0);
    }
    if (!start || !step || !isa<llvm::InsertElementInst>(start)) return;
    describeCoordinates(start, m);
    m->coordOffset += delta;
    if (m->coordBase) m->coordStep = step;
  }

  int tensorArgument(llvm::Value* v, const std::string& intrinsic) {
    if (auto it = tensorIndex_.find(v); it != tensorIndex_.end()) return it->second;
    if (auto* c = dyn_cast<llvm::ConstantInt>(v)) return static_cast<int>(c->getSExtValue());
    throw CodegenError(fmt::format("{}: the tensor argument must be a tensor parameter of the kernel", intrinsic), errorLoc(inst_));
  }

  // ---------------------------------------------------------------------------------- SelectionContext

  Reg valueReg(llvm::Value* v) override { return reg(v); }
  const std::vector<Reg>& valueRegs(llvm::Value* v) override { return regs(v); }
  MOperand valueOperand(llvm::Value* v, uint32_t kinds) override { return operand(v, kinds); }
  MOperand indexSource(llvm::Value* v) override { return indexOperand(v); }
  Reg vectorReg(llvm::Value* v) override { return regAsVector(v); }
  Reg freshReg(RegFile f) override { return newReg(f); }
  Reg indexSpaceReg(uint32_t phys) override {
    auto [it, fresh] = indexSpaceRegs_.try_emplace(phys);
    if (fresh) {
      it->second = newReg(RegFile::I);
      mf_.precolored.emplace_back(it->second, phys);
    }
    return it->second;
  }
  MInst& emitInst(MInst mi) override { return emit(mi); }
  void emitRegCopy(Reg dst, Reg src) override { emitCopy(dst, src); }
  void copyIrValue(llvm::Value* dst, llvm::Value* src) override { copyValue(dst, src); }
  SourceLoc currentLoc() const override { return loc_; }
  SourceLoc errorLocation() const override { return errorLoc(inst_); }
  int tensorNumber(llvm::Value* v, const std::string& intrinsic) override { return tensorArgument(v, intrinsic); }
  void noteCoordinates(llvm::Value* ndx, MInst* m) override { describeCoordinates(ndx, m); }
  [[noreturn]] void fail(const llvm::Value& v, const std::string& what) override { unsupported(v, what); }

  // ---------------------------------------------------------------------------------- PHIs

  // Parallel copies at the end of each predecessor: first into fresh temporaries, then into the PHI
  // registers, so that PHIs reading each other's values (swaps) stay correct.
  void lowerPhis() {
    for (llvm::BasicBlock& bb : f_) {
      std::vector<llvm::PHINode*> phis;
      for (llvm::PHINode& phi : bb.phis()) phis.push_back(&phi);
      if (phis.empty()) continue;
      for (llvm::BasicBlock* pred : llvm::predecessors(&bb)) {
        int p = blockIndex_.at(pred);
        // The copies of a hardware loop's back edge go at the end of the body itself.
        if (auto it = backEdgeBlock_.find(pred); it != backEdgeBlock_.end()) p = it->second;
        int saved = cur_;
        cur_ = p;
        std::vector<std::vector<Reg>> temps;
        for (llvm::PHINode* phi : phis) {
          inst_ = phi;
          llvm::Value* in = phi->getIncomingValueForBlock(pred);
          std::vector<Reg> t;
          // An undefined address (a pointer assigned only inside a loop): the PHI's register keeps whatever
          // it holds, since no instruction loads an address register with a constant.
          if (isa<llvm::UndefValue>(in) && classOf(*in).file == RegFile::AD) {
            temps.push_back(t);
            continue;
          }
          const std::vector<Reg> src = regs(in);
          for (const Reg& s : src) {
            Reg tmp = newReg(s.file);
            emitCopy(tmp, s, p);
            t.push_back(tmp);
          }
          temps.push_back(t);
        }
        for (size_t k = 0; k < phis.size(); ++k) {
          const std::vector<Reg> dst = regs(phis[k]);
          for (size_t r = 0; r < temps[k].size(); ++r) emitCopy(dst[r], temps[k][r], p);
        }
        cur_ = saved;
      }
    }
  }

  llvm::Function& f_;
  const KernelSignature& sig_;
  MFunction mf_;
  std::unordered_map<const llvm::BasicBlock*, int> blockIndex_;
  std::unordered_map<const llvm::Value*, std::vector<Reg>> values_;
  std::map<std::pair<const llvm::DILocalVariable*, const llvm::DILocation*>, uint32_t> variableIndex_;  // into mf_.variables
  struct PendingVariable {
    int block;
    uint32_t variable;
    Reg reg;  // invalid: the variable's location ends
  };
  std::vector<PendingVariable> pendingVariables_;  // assigned before their block's first instruction
  std::map<const llvm::DILocation*, uint32_t> scopeIndex_;  // inline call site -> scope (1-based)
  std::unordered_map<const llvm::Value*, int> tensorIndex_;
  std::map<uint32_t, Reg> indexSpaceRegs_;  // indexSpaceReg: one virtual register per index-space register
  std::unordered_map<const llvm::GlobalVariable*, uint32_t> localOffsets_;
  std::unordered_map<const llvm::Value*, uint32_t> allocaAddress_;
  std::vector<Reg> scratch_;
  std::map<std::tuple<int, llvm::Value*, llvm::Value*, uint32_t>, Reg> insertCache_;  // (block, base, x, lane)
  std::map<std::pair<uint32_t, int32_t>, Reg> coordinateConstants_;
  std::unique_ptr<llvm::DominatorTree> dominators_;  // for inLoop, made when first asked
  std::unique_ptr<llvm::LoopInfo> loops_;
  std::unordered_map<int, Reg> loopCount_;                       // preheader -> trip count
  std::unordered_map<int, Reg> loopBodies_;                      // body -> iterator
  std::unordered_map<const llvm::BasicBlock*, int> backEdgeBlock_;  // dead back-edge block -> body
  int cur_ = 0;
  const llvm::Instruction* inst_ = nullptr;  // being selected
  SourceLoc loc_;
};

}  // namespace

MInst makeInst(InsnId op, DType dt, Reg dst) {
  MInst mi;
  mi.op = op;
  mi.dtype = isa::insnInfo(op).hasDType() ? dt : DType::F32;
  mi.dst = dst;
  return mi;
}

MFunction selectInstructions(llvm::Function& entry, const KernelSignature& signature) {
  return Selector(entry, signature).run();
}

}  // namespace tpc::cc
