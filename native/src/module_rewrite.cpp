#include "module_rewrite.h"

#include <map>
#include <optional>

#include <fmt/format.h>
#include <llvm/Analysis/ConstantFolding.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include "runtime.h"
#include "tpc/isa/intrinsic_lowering.h"
#include "tpc/support/error.h"

namespace tpc::native {

namespace {

using isa::InsnId;
using isa::RegFile;
using isa::kindBit;

constexpr unsigned kGlobalAddressSpace = 2;  // __global__ (the front end's address spaces)
constexpr unsigned kLocalAddressSpace = 1;   // __local__
constexpr const char* kHardwareLoopMarker = "__tpc_hwloop";

[[noreturn]] void unsupported(const std::string& what) {
  throw UserError(fmt::format("the native path cannot run this kernel: {}", what));
}

std::optional<ValueKind> kindOf(llvm::Type* t) {
  if (t->isIntegerTy(1)) return ValueKind::Bool;
  if (t->isIntegerTy() && t->getIntegerBitWidth() <= 32) return ValueKind::Scalar;
  if (t->isFloatTy() || t->isHalfTy() || t->isBFloatTy()) return ValueKind::Scalar;
  if (t->isPointerTy()) {
    if (t->getPointerAddressSpace() == kGlobalAddressSpace) return ValueKind::GlobalPtr;
    return std::nullopt;
  }
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t)) {
    llvm::Type* e = vt->getElementType();
    unsigned n = vt->getNumElements();
    if (e->isIntegerTy(1) && (n == 64 || n == 128 || n == 256)) return ValueKind::BoolVector;
    if (e->isIntegerTy(8) && (n == 8 || n == 16 || n == 32)) return ValueKind::BoolVector;
    if (e->isIntegerTy(32) && n == 5) return ValueKind::Int5;
    if (n * e->getScalarSizeInBits() == 8u * isa::kVectorBytes) return ValueKind::Vector;
  }
  return std::nullopt;
}

RegFile fileOf(ValueKind k, uint32_t kinds) {
  switch (k) {
    case ValueKind::Vector: return RegFile::V;
    case ValueKind::BoolVector: return RegFile::VP;
    case ValueKind::Int5: return RegFile::I;
    case ValueKind::Bool: return (kinds & kindBit(RegFile::SP)) ? RegFile::SP : RegFile::S;
    case ValueKind::Scalar: return RegFile::S;
    case ValueKind::GlobalPtr: return RegFile::AD;
  }
  return RegFile::None;
}

// Builds the plan of one call (or instruction): registers of the running core, used as scratch, for the
// arguments (operands), the steps, the result.
class PlanBuilder {
 public:
  PlanBuilder(llvm::Instruction& inst, std::string name) : inst_(inst) {
    plan_.name = std::move(name);
  }

  CallPlan& plan() { return plan_; }

  uint8_t allocate(RegFile f) {
    static constexpr uint8_t kFirst[8] = {0, 0, 0, 2, 1, 0, 0, 0};  // I0/I1 hold the box, SP0 reads true
    auto& next = next_[static_cast<int>(f)];
    return static_cast<uint8_t>(kFirst[static_cast<int>(f)] + next++);
  }

  ValueSlot slotFor(llvm::Type* t, uint32_t kinds, const char* what) {
    std::optional<ValueKind> k = kindOf(t);
    if (!k) unsupported(fmt::format("{}: {} of type {}", plan_.name, what, typeName(t)));
    ValueSlot v;
    v.kind = *k;
    v.file = fileOf(*k, kinds);
    if (!(kinds & kindBit(v.file)))
      unsupported(fmt::format("{}: {} of type {} where the instruction takes no {} register", plan_.name, what,
                              typeName(t), isa::regFilePrefix(v.file)));
    v.reg = allocate(v.file);
    return v;
  }

  // The argument `arg` in a register the instruction's operand accepts (kinds).
  isa::Operand input(int arg, uint32_t kinds) {
    ValueSlot v = slotFor(inst_.getOperand(static_cast<unsigned>(arg))->getType(), kinds, "an argument");
    v.arg = arg;
    plan_.inputs.push_back(v);
    return isa::Operand{v.file, v.reg};
  }

  // Loads `arg` into an existing register (the destination's old value).
  void preload(int arg, const isa::Operand& reg) {
    ValueSlot v = slotFor(inst_.getOperand(static_cast<unsigned>(arg))->getType(), kindBit(reg.file), "an income");
    v.reg = reg.index;
    v.arg = arg;
    plan_.inputs.push_back(v);
  }

  // Member `member` of the pair argument `arg`, into a new register (reg < 0) or into register `reg`.
  isa::Operand inputMember(int arg, int member, uint32_t kinds, int reg = -1) {
    llvm::Type* pair = inst_.getOperand(static_cast<unsigned>(arg))->getType();
    ValueSlot v = slotFor(memberType(pair, member), kinds, "a pair member");
    if (reg >= 0) v.reg = static_cast<uint8_t>(reg);
    v.arg = arg;
    v.member = member;
    plan_.inputs.push_back(v);
    return isa::Operand{v.file, v.reg};
  }

  // Member `member` of a pair result.
  isa::Operand resultMember(int member, uint32_t kinds) {
    ValueSlot v = slotFor(memberType(inst_.getType(), member), kinds, "a pair result");
    v.member = member;
    plan_.resultMembers.push_back(v);
    plan_.hasResult = true;
    return isa::Operand{v.file, v.reg};
  }

  isa::Operand result(uint32_t dstKinds) {
    plan_.result = slotFor(inst_.getType(), dstKinds, "a result");
    plan_.hasResult = true;
    return isa::Operand{plan_.result.file, plan_.result.reg};
  }

  void step(const isa::SlotInsn& insn, int tensorArg = -1) {
    isa::SlotInsn s = insn;
    if (!isa::insnInfo(s.id).hasDType()) s.dtype = DType::F32;  // the field reads 0 in an encoded slot
    PlanStep p;
    p.slot = sim::predecodeSlot(s);
    p.runtimeTensor = tensorArg >= 0;
    if (tensorArg >= 0) plan_.tensorArg = tensorArg;
    if (!p.slot.fn) unsupported(fmt::format("{}: no semantics for '{}'", plan_.name, isa::insnInfo(s.id).mnemonic));
    plan_.steps.push_back(p);
  }

 private:
  static std::string typeName(llvm::Type* t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t->print(os);
    return s;
  }

  llvm::Type* memberType(llvm::Type* pair, int member) {
    auto* st = llvm::dyn_cast<llvm::StructType>(pair);
    if (!st || st->getNumElements() <= static_cast<unsigned>(member))
      unsupported(fmt::format("{}: a pair or quad of type {}", plan_.name, typeName(pair)));
    return st->getElementType(static_cast<unsigned>(member));
  }

  llvm::Instruction& inst_;
  CallPlan plan_;
  std::array<int, 8> next_{};
};

// The plan of a call of intrinsic `info`, following the lowering of the compiler (isel_intrinsics.cpp)
// with the shared rules of tpc/isa/intrinsic_lowering.h.
class IntrinsicPlanner {
 public:
  IntrinsicPlanner(llvm::CallInst& call, const isa::IntrinsicInfo& info)
      : call_(call), info_(info), b_(call, info.name) {}

  CallPlan build() {
    try {
      switch (info_.lowering) {
        case isa::Lowering::IndexSpaceOffset:
        case isa::Lowering::IndexSpaceSize: indexSpace(); break;
        case isa::Lowering::Op:
        case isa::Lowering::Mac: op(); break;
        case isa::Lowering::LdTnsr:
        case isa::Lowering::StTnsr:
        case isa::Lowering::StTnsrLow:
        case isa::Lowering::StTnsrHigh:
        case isa::Lowering::LdTnsrLow:
        case isa::Lowering::LdTnsrHigh: tensor(); break;
        case isa::Lowering::Store: store(); break;
        case isa::Lowering::LdGBroadcast: loadGlobalBroadcast(); break;
        case isa::Lowering::Reinterpret: reinterpret(); break;
        case isa::Lowering::MovDualGroup: movDualGroup(false); break;
        case isa::Lowering::MovDualGroupAll: movDualGroup(true); break;
        case isa::Lowering::ConvertAllNarrow: convertAll(false); break;
        case isa::Lowering::ConvertAllWiden: convertAll(true); break;
        case isa::Lowering::WideProduct: wideProduct(); break;
        case isa::Lowering::ConvertWiden: convertWiden(); break;
        case isa::Lowering::TensorDimSize:
        case isa::Lowering::TensorDimStride:
        case isa::Lowering::TensorHwprefStride:
        case isa::Lowering::TensorPadBits: tensorQuery(); break;
      }
    } catch (const isa::IntrinsicLoweringError& e) {
      unsupported(fmt::format("{}: {}", info_.name, e.what()));
    }
    return std::move(b_.plan());
  }

 private:
  struct Predicate {
    bool never = false;
    bool always = true;
    isa::Operand reg;
    bool vector = false;
    bool negate = false;
  };

  int param(const char* name) const { return info_.paramIndex(name); }
  llvm::Value* arg(int k) const { return call_.getArgOperand(static_cast<unsigned>(k)); }

  isa::ConstantParam constants() const {
    return [this](std::string_view name) -> std::optional<uint32_t> {
      auto* c = llvm::dyn_cast<llvm::ConstantInt>(arg(param(std::string(name).c_str())));
      if (!c) return std::nullopt;
      return static_cast<uint32_t>(c->getZExtValue());
    };
  }

  Predicate predicate() {
    Predicate p;
    p.negate = isa::requireConstantParam(info_, constants(), "polarity") != 0;
    int k = param("predicate");
    if (k < 0) return p;
    llvm::Value* v = arg(k);
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) {
      p.never = c->isZero() != p.negate;
      return p;
    }
    if (auto* c = llvm::dyn_cast<llvm::Constant>(v); c && (c->isAllOnesValue() || c->isNullValue())) {
      p.never = c->isAllOnesValue() == p.negate;
      return p;
    }
    p.always = false;
    p.vector = v->getType()->isVectorTy();
    p.reg = b_.input(k, kindBit(p.vector ? RegFile::VP : RegFile::SP));
    return p;
  }

  static void applyPredicate(isa::SlotInsn& insn, const Predicate& p) {
    if (p.always) return;
    insn.predIndex = p.reg.index;
    insn.predVector = p.vector;
    insn.predNegate = p.negate;
  }

  isa::SlotInsn make(InsnId id) const {
    isa::SlotInsn insn;
    insn.id = id;
    insn.dtype = info_.dtype;
    insn.sw = isa::intrinsicSwitchWord(info_, id, constants());
    return insn;
  }

  // The call's value when the instruction does not run: the income (or accumulator), or nothing.
  void returnIncome() {
    CallPlan& plan = b_.plan();
    if (call_.getType()->isVoidTy()) {
      plan.kind = CallPlan::Kind::Nothing;
      return;
    }
    int k = isa::intrinsicIncomeParam(info_);
    if (k < 0) k = param("accumulator");
    if (k < 0) unsupported(fmt::format("{}: a constant false predicate without an income", info_.name));
    plan.kind = CallPlan::Kind::ReturnArg;
    plan.resultArg = k;
  }

  // The destination: the call's result, holding the income (or accumulator) before the instruction runs.
  void destination(isa::SlotInsn& insn) {
    const isa::InsnInfo& ii = isa::insnInfo(insn.id);
    if (!ii.hasDst()) return;
    insn.dst = b_.result(ii.kinds[0]);
    int tied = info_.lowering == isa::Lowering::Mac ? param("accumulator") : isa::intrinsicIncomeParam(info_);
    if (tied >= 0) b_.preload(tied, insn.dst);
  }

  void indexSpace() {
    isa::SlotInsn insn;
    insn.id = InsnId::SpuIMov;
    insn.dtype = DType::I32;
    insn.src[0] = {RegFile::I, static_cast<uint8_t>(info_.lowering == isa::Lowering::IndexSpaceOffset
                                                        ? isa::kIndexSpaceOffsetReg
                                                        : isa::kIndexSpaceSizeReg)};
    insn.sw = isa::switchField(isa::SwitchField::DimMask).set(0, 0x1f);
    insn.dst = b_.result(kindBit(RegFile::I));
    b_.step(insn);
  }

  void op() {
    const isa::InsnInfo& ii = isa::insnInfo(info_.insn);
    isa::SlotInsn insn = make(info_.insn);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    std::vector<int> srcs = isa::intrinsicSourceParams(info_);
    if (static_cast<int>(srcs.size()) != ii.numSources())
      unsupported(fmt::format("{}: the table gives {} sources, {} takes {}", info_.name, srcs.size(), ii.mnemonic,
                              ii.numSources()));
    for (size_t k = 0; k < srcs.size(); ++k) insn.src[k] = b_.input(srcs[k], ii.kinds[k + 1]);
    applyPredicate(insn, p);
    destination(insn);
    b_.step(insn);
  }

  void tensor() {
    const InsnId id = isa::tensorAccessInsn(info_, constants());
    const isa::InsnInfo& ii = isa::insnInfo(id);
    isa::SlotInsn insn = make(id);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    if (info_.insn == InsnId::GenAddr && !p.always)
      unsupported(fmt::format("{}: a predicate that is not a compile-time constant", info_.name));
    int ndx = param("ndx") >= 0 ? param("ndx") : param("inx");
    insn.src[0] = b_.input(ndx, ii.kinds[1]);
    if (int value = param("value"); value >= 0) insn.src[1] = b_.input(value, ii.kinds[2]);
    if (id != info_.insn) {  // the register form: size and offset are its last two sources
      const int k = ii.numSources() - 2;
      insn.src[k] = b_.input(param("size"), ii.kinds[k + 1]);
      insn.src[k + 1] = b_.input(param("offset"), ii.kinds[k + 2]);
    }
    int tensorArg = param("tensor");
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(arg(tensorArg))) {
      insn.setField(isa::SwitchField::Tensor, static_cast<uint32_t>(c->getZExtValue()) & 0xffu);
      tensorArg = -1;
    }  // else: the tensor number arrives at run time (from the entry's tensor parameters)
    applyPredicate(insn, p);
    destination(insn);
    b_.step(insn, tensorArg);
  }

  // Descriptor queries (get_dim_size, ...): ld_tdesc of one field of tensor `a`'s descriptor (dim is a
  // constant; the tensor a constant or the entry's tensor parameter), as isel_intrinsics.cpp's tensorQuery.
  void tensorQuery() {
    isa::SlotInsn insn = make(info_.insn);
    insn.setField(isa::SwitchField::TdescField, static_cast<uint32_t>(isa::tensorQueryField(info_.lowering)));
    int tensorArg = param("a");
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(arg(tensorArg))) {
      insn.setField(isa::SwitchField::Tensor, static_cast<uint32_t>(c->getZExtValue()) & 0xffu);
      tensorArg = -1;
    }
    insn.dst = b_.result(isa::insnInfo(info_.insn).kinds[0]);
    b_.step(insn, tensorArg);
  }

  void store() {
    const isa::InsnInfo& ii = isa::insnInfo(info_.insn);
    isa::SlotInsn insn = make(info_.insn);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    insn.src[0] = b_.input(param("addr"), ii.kinds[1]);
    insn.src[1] = b_.input(param("value"), ii.kinds[2]);
    applyPredicate(insn, p);
    b_.step(insn);
  }

  // The call's result as a mov of `from` (type `type`) under the call's predicate: how a vector predicate
  // of the intrinsic's lanes reaches an instruction that cannot take it itself.
  void moveToResult(const isa::Operand& from, DType type, const Predicate& p) {
    isa::SlotInsn mov;
    mov.id = InsnId::VpuMov;
    mov.dtype = type;
    mov.src[0] = from;
    applyPredicate(mov, p);
    destination(mov);
    b_.step(mov);
  }

  // v_<t>_ld_g: one element into a scalar register, then to every lane.
  void loadGlobalBroadcast() {
    isa::SlotInsn ld = make(InsnId::LdG);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    ld.src[0] = b_.input(param("addr"), isa::insnInfo(InsnId::LdG).kinds[1]);
    ld.dst = {RegFile::S, b_.allocate(RegFile::S)};
    if (!p.vector) applyPredicate(ld, p);
    b_.step(ld);
    moveToResult(ld.dst, info_.dtype, p);
  }

  void reinterpret() {
    CallPlan& plan = b_.plan();
    plan.kind = CallPlan::Kind::CopyArg;
    plan.resultArg = param("a");
  }

  void movDualGroup(bool all) {
    std::vector<isa::DualGroupMove> moves = isa::dualGroupMoves(info_, constants(), all);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    isa::Operand src = b_.input(param("a"), kindBit(RegFile::V));
    // A lane predicate selects lanes of the intrinsic's type, while mov_dual_group predicates 32-bit
    // lanes: move without it into a temporary, then merge with a predicated move of the type.
    bool lanes = !p.always && p.vector;
    isa::Operand dst;
    if (lanes) {
      dst = {RegFile::V, b_.allocate(RegFile::V)};
      b_.preload(isa::intrinsicIncomeParam(info_), dst);
    } else {
      dst = b_.result(kindBit(RegFile::V));
      b_.preload(isa::intrinsicIncomeParam(info_), dst);
    }
    const isa::Operand mask = moves.empty() ? isa::Operand{} : b_.input(param("b"), kindBit(RegFile::S));
    for (const isa::DualGroupMove& move : moves) {
      isa::SlotInsn m;
      m.id = InsnId::VpuMovDualGroup;
      m.dtype = info_.dtype;
      m.dst = dst;
      m.src[0] = src;
      m.src[1] = mask;
      m.setField(isa::SwitchField::SrcGroup, move.src);
      m.setField(isa::SwitchField::DstGroup, move.dst);
      m.setField(isa::SwitchField::WriteGroups, move.groups);
      if (!lanes) applyPredicate(m, p);
      b_.step(m);
    }
    if (lanes) moveToResult(dst, info_.dtype, p);
  }

  // Two interleaved converts between a pair and one register, as the compiler lowers them.
  void convertAll(bool widen) {
    isa::SlotInsn base = make(InsnId::VpuConvert);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    const uint32_t v = kindBit(RegFile::V);
    int src = isa::convertAllSourceParam(info_), income = isa::intrinsicIncomeParam(info_);
    isa::Operand one = widen ? b_.input(src, v) : b_.result(v);
    isa::Operand pair[2];
    for (int k = 0; k < 2; ++k) pair[k] = widen ? b_.resultMember(k, v) : b_.inputMember(src, k, v);
    if (!p.always) {  // what the predicate disables keeps the income
      if (widen)
        for (int k = 0; k < 2; ++k) b_.inputMember(income, k, v, pair[k].index);
      else
        b_.preload(income, one);
    }
    for (uint32_t part = 0; part < 2; ++part) {
      isa::SlotInsn m = base;
      m.sw = isa::convertAllPartSwitches(info_, constants(), base.sw, part);
      m.src[0] = widen ? one : pair[part];
      m.dst = widen ? pair[part] : one;
      applyPredicate(m, p);
      b_.step(m);
    }
  }

  // Up-converts without a lane: a vector predicate (one bit per result lane) through a predicated mov, as the
  // compiler lowers them.
  void convertWiden() {
    Predicate p = predicate();
    if (p.never) return returnIncome();
    if (!p.vector) return op();
    isa::SlotInsn conv = make(InsnId::VpuConvert);
    conv.src[0] = b_.input(param("src"), isa::insnInfo(InsnId::VpuConvert).kinds[1]);
    conv.dst = {RegFile::V, b_.allocate(RegFile::V)};
    b_.step(conv);
    moveToResult(conv.dst, info_.dt2, p);
  }

  // Integer mul / mac with wider products: one mul_wide / mac_wide per member, as the compiler lowers them.
  void wideProduct() {
    const isa::InsnInfo& ii = isa::insnInfo(info_.insn);
    isa::SlotInsn base = make(info_.insn);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    const uint32_t v = kindBit(RegFile::V);
    const bool mac = info_.insn == InsnId::VpuMacWide;
    isa::Operand a = b_.input(param("a"), ii.kinds[1]), b = b_.input(param("b"), ii.kinds[2]);
    for (uint32_t part = 0; part < isa::wideProductParts(info_.dtype); ++part) {
      isa::SlotInsn m = base;
      m.setField(isa::SwitchField::Part, part);
      m.src[0] = a;
      m.src[1] = b;
      m.dst = b_.resultMember(static_cast<int>(part), v);
      int tied = mac ? param("accumulator") : !p.always ? isa::intrinsicIncomeParam(info_) : -1;
      if (tied >= 0) b_.inputMember(tied, static_cast<int>(part), v, m.dst.index);
      applyPredicate(m, p);
      b_.step(m);
    }
  }

  llvm::CallInst& call_;
  const isa::IntrinsicInfo& info_;
  PlanBuilder b_;
};

// printf(format) or printf(format, value): the simulator's printf instruction with the object's format
// string of the same text. The value is a scalar (a float arrives promoted to double: the float is
// printed) or a vector lane extracted by the host code.
CallPlan printfPlan(llvm::CallInst& call, const sim::Program& program, llvm::Value** value) {
  llvm::StringRef text;
  if (call.arg_size() < 1 || !llvm::getConstantStringInfo(call.getArgOperand(0), text))
    unsupported("printf: the format is not a string literal");
  uint32_t index = 0;
  while (index < program.numPrintfFormats() && program.printfFormat(index) != text) ++index;
  if (index == program.numPrintfFormats())
    unsupported(fmt::format("printf: the format \"{}\" is not in the object's format table", text.str()));
  PlanBuilder b(call, "printf");
  isa::SlotInsn insn;
  insn.id = InsnId::SpuPrintfStr;
  insn.setField(isa::SwitchField::Format, index);
  *value = nullptr;
  if (call.arg_size() == 2) {
    llvm::Value* v = call.getArgOperand(1);
    if (auto* ext = llvm::dyn_cast<llvm::FPExtInst>(v)) v = ext->getOperand(0);  // the default promotion
    llvm::Type* t = v->getType();
    insn.id = InsnId::SpuPrintf;
    if (t->isFloatTy()) insn.dtype = DType::F32;
    else if (t->isBFloatTy()) insn.dtype = DType::BF16;
    else if (t->isHalfTy()) insn.dtype = DType::F16;
    else if (t->isIntegerTy(16)) insn.dtype = DType::I16;
    else if (t->isIntegerTy(8)) insn.dtype = DType::I8;
    else if (t->isIntegerTy() && t->getIntegerBitWidth() > 1 && t->getIntegerBitWidth() <= 32) insn.dtype = DType::I32;
    else unsupported("printf of a value that is not a scalar");
    ValueSlot slot = b.slotFor(t, kindBit(RegFile::S), "a printf value");
    slot.arg = 0;
    b.plan().inputs.push_back(slot);
    insn.src[0] = {slot.file, slot.reg};
    *value = v;
  } else if (call.arg_size() > 2) {
    unsupported("printf with more than one value");
  }
  b.step(insn);
  return std::move(b.plan());
}

// The data type of a scalar or of a vector's elements, as the compiler classifies them.
std::optional<DType> elementDType(llvm::Type* t) {
  t = t->getScalarType();
  if (t->isFloatTy()) return DType::F32;
  if (t->isBFloatTy()) return DType::BF16;
  if (t->isHalfTy()) return DType::F16;
  if (t->isIntegerTy(16)) return DType::I16;
  if (t->isIntegerTy(8)) return DType::I8;
  if (t->isIntegerTy() && t->getIntegerBitWidth() > 1 && t->getIntegerBitWidth() <= 32) return DType::I32;
  return std::nullopt;
}

DType unsignedOf(DType t) {
  return t == DType::I32 ? DType::U32 : t == DType::I16 ? DType::U16 : t == DType::I8 ? DType::U8 : t;
}

// Plain C operations whose meaning on the core differs from the host's and that the compiler turns into
// one instruction: conversions involving floats (the core saturates, truncates NaN to 0, rounds bf16 and
// f16 its way) and bf16/f16 arithmetic (the host has none). f32 arithmetic stays on the host (with
// denormals flushed, see runtime.cpp). Returns nothing for operations the host runs as they are.
std::optional<CallPlan> instructionPlan(llvm::Instruction& i) {
  using Op = llvm::Instruction::BinaryOps;
  llvm::Type* t = i.getType();
  auto shape = [](llvm::Type* ty) {  // 0: scalar, 1: a vector register, -1: neither
    if (!ty->isVectorTy()) return 0;
    auto* vt = llvm::cast<llvm::FixedVectorType>(ty);
    return vt->getNumElements() * vt->getScalarSizeInBits() == 8u * isa::kVectorBytes ? 1 : -1;
  };
  if (auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(&i)) {
    llvm::Type* e = t->getScalarType();
    if (!e->isBFloatTy() && !e->isHalfTy()) return std::nullopt;
    bool vector = shape(t) == 1;
    InsnId op;
    switch (bo->getOpcode()) {
      case Op::FAdd: op = vector ? InsnId::VpuAdd : InsnId::SpuAdd; break;
      case Op::FSub: op = vector ? InsnId::VpuSub : InsnId::SpuSub; break;
      case Op::FMul: op = vector ? InsnId::VpuMul : InsnId::SpuMul; break;
      default: unsupported(fmt::format("the bf16/f16 operation '{}'", bo->getOpcodeName()));
    }
    if (shape(t) < 0) unsupported("bf16/f16 arithmetic on a vector that is not one register");
    PlanBuilder b(i, bo->getOpcodeName());
    const isa::InsnInfo& ii = isa::insnInfo(op);
    isa::SlotInsn insn;
    insn.id = op;
    insn.dtype = *elementDType(t);
    insn.src[0] = b.input(0, ii.kinds[1]);
    insn.src[1] = b.input(1, ii.kinds[2]);
    insn.dst = b.result(ii.kinds[0]);
    b.step(insn);
    return std::move(b.plan());
  }
  auto* cast = llvm::dyn_cast<llvm::CastInst>(&i);
  if (!cast) return std::nullopt;
  unsigned opc = cast->getOpcode();
  using CO = llvm::Instruction::CastOps;
  if (opc != CO::FPToSI && opc != CO::FPToUI && opc != CO::SIToFP && opc != CO::UIToFP && opc != CO::FPExt &&
      opc != CO::FPTrunc)
    return std::nullopt;
  llvm::Type* from = cast->getSrcTy();
  std::optional<DType> fromT = elementDType(from), toT = elementDType(t);
  // double only feeds printf (the default promotion); vectors of different widths are not compiled.
  if (!fromT || !toT || shape(from) != shape(t) || shape(t) < 0) return std::nullopt;
  if (opc == CO::FPToUI) toT = unsignedOf(*toT);
  if (opc == CO::UIToFP) fromT = unsignedOf(*fromT);
  isa::ConversionInsn conv = isa::cConversion(shape(t) == 1, *fromT, *toT);
  PlanBuilder b(i, cast->getOpcodeName());
  const isa::InsnInfo& ii = isa::insnInfo(conv.id);
  isa::SlotInsn insn;
  insn.id = conv.id;
  insn.dtype = conv.dtype;
  insn.sw = conv.sw;
  insn.src[0] = b.input(0, ii.kinds[1]);
  insn.dst = b.result(ii.kinds[0]);
  b.step(insn);
  return std::move(b.plan());
}

// The runtime functions the thunks call, and the values a function fetches once in its entry block.
class Thunks {
 public:
  explicit Thunks(llvm::Module& m) : ctx_(m.getContext()) {
    ptr_ = llvm::PointerType::getUnqual(ctx_);
    i64_ = llvm::Type::getInt64Ty(ctx_);
    i32_ = llvm::Type::getInt32Ty(ctx_);
    exec_ = callee(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr_, i32_}, false),
                   reinterpret_cast<void*>(&tpc_native_exec));
    registers_ = callee(llvm::FunctionType::get(ptr_, false), reinterpret_cast<void*>(&tpc_native_registers));
    delta_ = callee(llvm::FunctionType::get(i64_, false), reinterpret_cast<void*>(&tpc_native_global_delta));
  }

  // Replaces `inst` (a call or an instruction) by: its arguments stored into the current core's registers,
  // the runtime running the plan's steps, its result loaded from a register.
  void replace(llvm::Instruction& inst, const CallPlan& plan, const std::vector<llvm::Value*>& args) {
    llvm::IRBuilder<> b(&inst);
    llvm::Value* result = nullptr;
    switch (plan.kind) {
      case CallPlan::Kind::Nothing: break;
      case CallPlan::Kind::ReturnArg: result = sameBits(b, args[static_cast<size_t>(plan.resultArg)], inst.getType()); break;
      case CallPlan::Kind::CopyArg: result = sameBits(b, args[static_cast<size_t>(plan.resultArg)], inst.getType()); break;
      case CallPlan::Kind::Execute: {
        llvm::Function& f = *inst.getFunction();
        for (const ValueSlot& in : plan.inputs) storeInput(b, f, in, args[static_cast<size_t>(in.arg)]);
        llvm::Value* tensor = plan.tensorArg >= 0 ? b.CreateZExt(args[static_cast<size_t>(plan.tensorArg)], i32_)
                                                  : static_cast<llvm::Value*>(b.getInt32(0));
        llvm::Value* planPtr = b.CreateIntToPtr(llvm::ConstantInt::get(i64_, reinterpret_cast<uint64_t>(&plan)), ptr_);
        b.CreateCall(exec_, {planPtr, tensor});
        if (plan.hasResult && !plan.resultMembers.empty()) {
          auto* st = llvm::cast<llvm::StructType>(inst.getType());
          result = llvm::PoisonValue::get(st);
          for (const ValueSlot& m : plan.resultMembers) {
            unsigned k = static_cast<unsigned>(m.member);
            result = b.CreateInsertValue(result, loadResult(b, f, m, st->getElementType(k)), k);
          }
        } else if (plan.hasResult) {
          result = loadResult(b, f, plan.result, inst.getType());
        }
        break;
      }
    }
    if (result) inst.replaceAllUsesWith(result);
    else if (!inst.use_empty())  // a plan without a result for a value the kernel uses: a planner bug
      unsupported(fmt::format("{}: the call's value is used but its plan gives no result", plan.name));
    inst.eraseFromParent();
  }

 private:
  llvm::FunctionCallee callee(llvm::FunctionType* type, void* address) {
    return llvm::FunctionCallee(
        type, llvm::ConstantExpr::getIntToPtr(llvm::ConstantInt::get(i64_, reinterpret_cast<uint64_t>(address)), ptr_));
  }

  // The current core's register file (or the global-memory delta), fetched once per kernel invocation.
  llvm::Value* entryValue(llvm::Function& f, std::map<llvm::Function*, llvm::Value*>& cache, llvm::FunctionCallee fn) {
    auto it = cache.find(&f);
    if (it != cache.end()) return it->second;
    llvm::IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
    return cache[&f] = b.CreateCall(fn);
  }

  llvm::Value* registerAddress(llvm::IRBuilder<>& b, llvm::Function& f, const ValueSlot& v) {
    llvm::Value* regs = entryValue(f, registers_by_function_, registers_);
    return b.CreateConstGEP1_64(b.getInt8Ty(), regs, registerOffset(v.file, v.reg));
  }

  // The bits of `v` as a value of type `t` of the same size or smaller (reinterpretations; bool vectors of
  // different lane counts keep their low bytes, zero above).
  llvm::Value* sameBits(llvm::IRBuilder<>& b, llvm::Value* v, llvm::Type* t) {
    if (v->getType() == t) return v;
    const llvm::DataLayout& dl = b.GetInsertBlock()->getModule()->getDataLayout();
    if (dl.getTypeStoreSizeInBits(v->getType()) == dl.getTypeSizeInBits(t) &&
        dl.getTypeSizeInBits(v->getType()) == dl.getTypeSizeInBits(t))
      return b.CreateBitCast(v, t);
    llvm::Function& f = *b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&*f.getEntryBlock().getFirstInsertionPt());
    llvm::Value* buf = entry.CreateAlloca(llvm::ArrayType::get(b.getInt8Ty(), isa::kVectorBytes));
    b.CreateMemSet(buf, b.getInt8(0), isa::kVectorBytes, llvm::MaybeAlign(1));
    b.CreateAlignedStore(v, buf, llvm::Align(1));
    return b.CreateAlignedLoad(t, buf, llvm::Align(1));
  }

  // Registers are only as aligned as their file's element (vector registers: 64 bytes).
  static llvm::Align alignOf(const ValueSlot& v) { return llvm::Align(v.file == RegFile::V ? 64 : 1); }
  static void store(llvm::IRBuilder<>& b, const ValueSlot& slot, llvm::Value* v, llvm::Value* at) {
    b.CreateAlignedStore(v, at, alignOf(slot));
  }
  static llvm::Value* load(llvm::IRBuilder<>& b, const ValueSlot& slot, llvm::Type* t, llvm::Value* at) {
    return b.CreateAlignedLoad(t, at, alignOf(slot));
  }

  // Vector registers move as <64 x i32> whatever their element type: the host's code generator has no
  // bf16/f16 vector arithmetic and splits every load, store or copy of <128 x bfloat> or <128 x half> into
  // element operations (a -O2 bf16 kernel took tens of seconds to compile). Values of those types are
  // kept as <64 x i32> around the runtime calls; see also retypeHalfValues.
  static llvm::Type* wordsType(llvm::IRBuilder<>& b) {
    return llvm::FixedVectorType::get(b.getInt32Ty(), isa::kVectorBytes / 4);
  }
  static llvm::Value* asWords(llvm::IRBuilder<>& b, llvm::Value* v) {
    return v->getType() == wordsType(b) ? v : b.CreateBitCast(v, wordsType(b));
  }
  static llvm::Value* fromWords(llvm::IRBuilder<>& b, llvm::Value* v, llvm::Type* t) {
    return v->getType() == t ? v : b.CreateBitCast(v, t);
  }

  void storeInput(llvm::IRBuilder<>& b, llvm::Function& f, const ValueSlot& in, llvm::Value* v) {
    if (in.member >= 0) v = b.CreateExtractValue(v, static_cast<unsigned>(in.member));
    llvm::Value* at = registerAddress(b, f, in);
    llvm::Type* t = v->getType();
    switch (in.kind) {
      case ValueKind::Vector: store(b, in, asWords(b, v), at); return;
      case ValueKind::Int5: store(b, in, v, at); return;
      case ValueKind::BoolVector:
        store(b, in, llvm::Constant::getNullValue(llvm::FixedVectorType::get(b.getInt8Ty(), 32)), at);
        store(b, in, v, at);
        return;
      case ValueKind::Bool:
        store(b, in, b.CreateZExt(v, in.file == RegFile::SP ? b.getInt8Ty() : i32_), at);
        return;
      case ValueKind::Scalar:
        if (t->isIntegerTy()) v = t->getIntegerBitWidth() < 32 ? b.CreateSExt(v, i32_) : v;  // as the compiler keeps them
        else if (t->isFloatTy()) v = b.CreateBitCast(v, i32_);
        else v = b.CreateZExt(b.CreateBitCast(v, b.getInt16Ty()), i32_);  // bf16, f16: the 16 bits
        store(b, in, v, at);
        return;
      case ValueKind::GlobalPtr: {
        llvm::Value* delta = entryValue(f, delta_by_function_, delta_);
        store(b, in, b.CreateSub(b.CreatePtrToInt(v, i64_), delta), at);
        return;
      }
    }
  }

  llvm::Value* loadResult(llvm::IRBuilder<>& b, llvm::Function& f, const ValueSlot& out, llvm::Type* t) {
    llvm::Value* at = registerAddress(b, f, out);
    switch (out.kind) {
      case ValueKind::Vector: return fromWords(b, load(b, out, wordsType(b), at), t);
      case ValueKind::Int5:
      case ValueKind::BoolVector: return load(b, out, t, at);
      case ValueKind::Bool: {
        llvm::Value* v = load(b, out, out.file == RegFile::SP ? b.getInt8Ty() : i32_, at);
        return b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
      }
      case ValueKind::Scalar: {
        llvm::Value* v = load(b, out, i32_, at);
        if (t->isIntegerTy()) return t->getIntegerBitWidth() < 32 ? b.CreateTrunc(v, t) : v;
        if (t->isFloatTy()) return b.CreateBitCast(v, t);
        return b.CreateBitCast(b.CreateTrunc(v, b.getInt16Ty()), t);
      }
      case ValueKind::GlobalPtr: {
        llvm::Value* delta = entryValue(f, delta_by_function_, delta_);
        return b.CreateIntToPtr(b.CreateAdd(load(b, out, i64_, at), delta), t);
      }
    }
    return nullptr;
  }

  llvm::LLVMContext& ctx_;
  llvm::Type* ptr_;
  llvm::Type* i64_;
  llvm::Type* i32_;
  llvm::FunctionCallee exec_, registers_, delta_;
  std::map<llvm::Function*, llvm::Value*> registers_by_function_, delta_by_function_;
};

// Folds instructions whose operands are all constants (at -O0 a bool argument arrives as `trunc i8 1 to
// i1`), so that switches, predicates and the other constant parameters are constants, as the compiler's
// selection sees them.
void foldConstants(llvm::Module& m) {
  const llvm::DataLayout& dl = m.getDataLayout();
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : llvm::make_early_inc_range(bb))
        if (llvm::Constant* c = llvm::ConstantFoldInstruction(&i, dl)) {
          i.replaceAllUsesWith(c);
          i.eraseFromParent();
        }
}

// Moves of bf16/f16 values (phis, selects, splats, lane inserts) are done on their bits, as i16 or
// <N x i16> with bit casts around (which cost nothing); the arithmetic itself runs as instructions of the
// core (instructionPlan). Vectors: the host's code generator has no bf16/f16 vector arithmetic and split
// such moves into per-element operations (a -O2 bf16 kernel unrolled 16 times took minutes to compile).
// Scalars: it moved a bf16 phi or select through f32 and back with an instruction that flushes denormals,
// so a denormal bit pattern (from s_bf16_xor) became 0 natively (fuzz seed 207028).
void retypeHalfValues(llvm::Module& m) {
  // The integer type of a bf16/f16 scalar or vector type's bits; nullptr for other types.
  auto bitsOf = [](llvm::Type* t) -> llvm::Type* {
    llvm::Type* e = t->getScalarType();
    return e->isBFloatTy() || e->isHalfTy() ? t->getWithNewType(llvm::Type::getInt16Ty(t->getContext())) : nullptr;
  };
  std::vector<llvm::Instruction*> work;
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb)
        if (bitsOf(i.getType()) && (llvm::isa<llvm::PHINode>(i) || llvm::isa<llvm::SelectInst>(i) ||
                                    llvm::isa<llvm::ShuffleVectorInst>(i) || llvm::isa<llvm::InsertElementInst>(i)))
          work.push_back(&i);
  for (llvm::Instruction* i : work) {
    llvm::Type* original = i->getType();
    llvm::Type* it = bitsOf(original);
    auto toInt = [&](llvm::Value* v, llvm::Instruction* before) -> llvm::Value* {
      llvm::Type* bits = bitsOf(v->getType());
      return bits ? llvm::IRBuilder<>(before).CreateBitCast(v, bits) : v;
    };
    llvm::Value* replacement = nullptr;
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(i)) {
      auto* np = llvm::PHINode::Create(it, phi->getNumIncomingValues(), phi->getName() + ".i16", phi);
      for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k)
        np->addIncoming(toInt(phi->getIncomingValue(k), phi->getIncomingBlock(k)->getTerminator()),
                        phi->getIncomingBlock(k));
      llvm::IRBuilder<> b(&*phi->getParent()->getFirstInsertionPt());
      replacement = b.CreateBitCast(np, original);
    } else {
      llvm::Instruction* ni = i->clone();
      ni->mutateType(it);
      for (unsigned k = 0; k < ni->getNumOperands(); ++k) ni->setOperand(k, toInt(i->getOperand(k), i));
      ni->insertBefore(i);
      ni->takeName(i);
      llvm::IRBuilder<> b(i);
      replacement = b.CreateBitCast(ni, original);
    }
    i->replaceAllUsesWith(replacement);
    i->eraseFromParent();
  }
}

// bitcast(bitcast(x)) -> bitcast(x) or x, then the casts left unused go. After the thunks and
// retypeHalfValues, bf16/f16 vectors mostly pass between runtime calls as <64 x i32> -> <128 x bfloat> ->
// <64 x i32>; the host's instruction selection does not fold that pair across its legalization of the
// bf16 vector (element by element), so it is folded here.
void foldBitcastChains(llvm::Module& m) {
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : llvm::make_early_inc_range(bb)) {
        auto* bc = llvm::dyn_cast<llvm::BitCastInst>(&i);
        if (!bc) continue;
        auto* inner = llvm::dyn_cast<llvm::BitCastInst>(bc->getOperand(0));
        if (!inner) continue;
        llvm::Value* x = inner->getOperand(0);
        if (x->getType() == bc->getType()) {
          bc->replaceAllUsesWith(x);
          bc->eraseFromParent();
        } else {
          bc->setOperand(0, x);
        }
      }
  bool changed = true;
  while (changed) {
    changed = false;
    for (llvm::Function& f : m)
      for (llvm::BasicBlock& bb : f)
        for (llvm::Instruction& i : llvm::make_early_inc_range(bb))
          if (llvm::isa<llvm::BitCastInst>(i) && i.use_empty()) {
            i.eraseFromParent();
            changed = true;
          }
  }
}

llvm::Function* findKernelEntry(llvm::Module& m) {
  llvm::Function* entry = nullptr;
  for (llvm::Function& f : m) {
    if (f.isDeclaration() || f.hasLocalLinkage()) continue;
    if (entry) unsupported(fmt::format("the bitcode defines two functions ('{}' and '{}')", entry->getName().str(),
                                       f.getName().str()));
    entry = &f;
  }
  if (!entry) unsupported("the bitcode defines no kernel entry");
  return entry;
}

// Every __local__ variable back to zero (local memory of a fresh core; the compiler rejects initializers).
void addResetLocals(llvm::Module& m) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* f = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                                   llvm::GlobalValue::ExternalLinkage, kResetLocalsName, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", f));
  for (llvm::GlobalVariable& g : m.globals()) {
    if (g.isConstant() || g.isDeclaration() || g.getAddressSpace() != kLocalAddressSpace) continue;
    b.CreateMemSet(&g, b.getInt8(0), m.getDataLayout().getTypeAllocSize(g.getValueType()), g.getAlign());
  }
  b.CreateRetVoid();
}

// The entry with host parameter types: bf16 and f16 scalars travel as their 16 bits (libffi has no such
// types), everything else as the kernel declares it.
std::vector<ParamAbi> addEntry(llvm::Module& m, llvm::Function& kernel, const obj::KernelObject& object) {
  llvm::LLVMContext& ctx = m.getContext();
  if (kernel.arg_size() != object.params.size())
    unsupported(fmt::format("the bitcode's entry takes {} parameters, the object's metadata lists {}",
                            kernel.arg_size(), object.params.size()));
  std::vector<llvm::Type*> types;
  std::vector<ParamAbi> abi;
  for (size_t k = 0; k < object.params.size(); ++k) {
    const obj::Param& p = object.params[k];
    llvm::Type* t = kernel.getArg(static_cast<unsigned>(k))->getType();
    DType dt = p.kind == obj::ParamKind::Tensor ? DType::I32 : p.scalarType;
    ParamAbi a;
    switch (dt) {
      case DType::F32: a = ParamAbi::F32; break;
      case DType::BF16: case DType::F16: a = ParamAbi::Bits16; break;
      case DType::I32: a = ParamAbi::I32; break;
      case DType::U32: a = ParamAbi::U32; break;
      case DType::I16: a = ParamAbi::I16; break;
      case DType::U16: a = ParamAbi::U16; break;
      case DType::I8: a = ParamAbi::I8; break;
      default: a = ParamAbi::U8; break;
    }
    bool floatType = a == ParamAbi::F32 ? t->isFloatTy() : a == ParamAbi::Bits16 ? (t->isHalfTy() || t->isBFloatTy())
                                                                                 : t->isIntegerTy();
    if (!floatType)
      unsupported(fmt::format("parameter {} ('{}') has type {} in the metadata but not in the bitcode", k + 1, p.name,
                              dtypeName(dt)));
    abi.push_back(a);
    // bool parameters arrive as 32-bit scalars (any nonzero value is true, as on the core).
    types.push_back(a == ParamAbi::Bits16 ? llvm::Type::getInt16Ty(ctx) : t->isIntegerTy(1) ? llvm::Type::getInt32Ty(ctx) : t);
  }
  auto* f = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), types, false),
                                   llvm::GlobalValue::ExternalLinkage, kEntryName, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", f));
  std::vector<llvm::Value*> args;
  for (unsigned k = 0; k < f->arg_size(); ++k) {
    llvm::Value* a = f->getArg(k);
    llvm::Type* want = kernel.getArg(k)->getType();
    args.push_back(a->getType() == want ? a : want->isIntegerTy(1) ? b.CreateICmpNE(a, b.getInt32(0)) : b.CreateBitCast(a, want));
  }
  b.CreateCall(&kernel, args);
  b.CreateRetVoid();
  return abi;
}

// bf16 and f16 negation as the compiler emits it: the sign bit flipped in the integer view. Left as `fneg`,
// the host promotes the value, and every bf16 value that meets it in a phi, to f32 and converts back with
// an instruction that flushes denormals: a bf16 denormal made by a bitwise intrinsic (s_bf16_xor) became
// -0 natively while the simulator kept it (fuzz seed 206293).
void negateHalvesAsIntegers(llvm::Module& m) {
  std::vector<llvm::UnaryOperator*> negations;
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb)
        if (auto* u = llvm::dyn_cast<llvm::UnaryOperator>(&i); u && u->getOpcode() == llvm::Instruction::FNeg) {
          llvm::Type* e = u->getType()->getScalarType();
          if (e->isBFloatTy() || e->isHalfTy()) negations.push_back(u);
        }
  for (llvm::UnaryOperator* u : negations) {
    llvm::IRBuilder<> b(u);
    llvm::Type* bits = u->getType()->getWithNewType(b.getInt16Ty());
    llvm::Value* x = b.CreateBitCast(u->getOperand(0), bits);
    x = b.CreateXor(x, llvm::ConstantInt::get(bits, 0x8000));
    x = b.CreateBitCast(x, u->getType());
    u->replaceAllUsesWith(x);
    x->takeName(u);
    u->eraseFromParent();
  }
}

}  // namespace

PreparedModule prepareModule(llvm::Module& m, const obj::KernelObject& object, const sim::Program& program,
                             const std::string& hostTriple, const llvm::DataLayout& hostLayout) {
  PreparedModule out;
  llvm::Function* kernel = findKernelEntry(m);
  m.setTargetTriple(hostTriple);
  m.setDataLayout(hostLayout);
  for (llvm::Function& f : m) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
    f.setCallingConv(llvm::CallingConv::C);
  }
  foldConstants(m);
  retypeHalfValues(m);
  negateHalvesAsIntegers(m);

  Thunks thunks(m);

  std::vector<llvm::CallInst*> calls;
  std::vector<llvm::Instruction*> operations;
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb) {
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&i); call && !llvm::isa<llvm::IntrinsicInst>(call))
          calls.push_back(call);
        else if (llvm::isa<llvm::BinaryOperator>(&i) || llvm::isa<llvm::CastInst>(&i))
          operations.push_back(&i);
      }
  for (llvm::Instruction* i : operations) {
    std::optional<CallPlan> plan = instructionPlan(*i);
    if (!plan) continue;
    out.plans.push_back(std::make_unique<CallPlan>(std::move(*plan)));
    std::vector<llvm::Value*> operands(i->op_begin(), i->op_end());
    thunks.replace(*i, *out.plans.back(), operands);
  }
  for (llvm::CallInst* call : calls) {
    llvm::Function* callee = call->getCalledFunction();
    if (!callee) unsupported("a call through a pointer");
    llvm::StringRef name = callee->getName();
    if (name == kHardwareLoopMarker) {
      call->eraseFromParent();
      continue;
    }
    if (!callee->isDeclaration()) continue;  // inlined already by the compiler; never the case today
    std::vector<llvm::Value*> args;
    CallPlan plan;
    if (name == "printf") {
      llvm::Value* value = nullptr;
      plan = printfPlan(*call, program, &value);
      if (value) args.push_back(value);
    } else if (name.starts_with(isa::kBuiltinPrefix.data())) {
      const isa::IntrinsicInfo* info = isa::findIntrinsic(name.substr(isa::kBuiltinPrefix.size()).str());
      if (!info) unsupported(fmt::format("unknown intrinsic '{}'", name.str()));
      plan = IntrinsicPlanner(*call, *info).build();
      for (unsigned k = 0; k < call->arg_size(); ++k) args.push_back(call->getArgOperand(k));
    } else {
      unsupported(fmt::format("call to '{}'", name.str()));
    }
    out.plans.push_back(std::make_unique<CallPlan>(std::move(plan)));
    thunks.replace(*call, *out.plans.back(), args);
  }
  foldBitcastChains(m);
  for (llvm::Function* f : {m.getFunction(kHardwareLoopMarker)})
    if (f && f->use_empty()) f->eraseFromParent();

  addResetLocals(m);
  kernel->setName("__tpc_native_kernel");
  kernel->setLinkage(llvm::GlobalValue::InternalLinkage);
  out.params = addEntry(m, *kernel, object);
  return out;
}

}  // namespace tpc::native
