// Lowering of calls of TPC intrinsics to machine instructions, by the intrinsic table's Lowering kind.
//
// The reference's arguments map onto our instructions as follows:
//   - sources: the parameters a, b, c, d (or src / src1, src2 / addr / value when the reference names them
//     so) in order; `income` (set_indx: `ndx`) is the destination's old value, kept where the predicate is
//     false and, for instructions that write only part of their destination (F_READS_DST: index-register
//     operations, partial loads, mov_dual_group, calc_fp_special), where they do not write;
//   - `switches` (`options` for the high-level converts) is translated field by field: any bit we cannot
//     honour is a compile error, never silently dropped;
//   - constant parameters that select switch fields: dimmask, dim, size/offset (partial tensor access),
//     rmw (read-modify-write selector), src_dg/dest_dg/sdg0..3 (mov_dual_group).
#include <algorithm>

#include <fmt/format.h>
#include <llvm/Analysis/ConstantFolding.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "selection_context.h"
#include "tpc/isa/intrinsic_lowering.h"

namespace tpc::cc {

namespace {

using isa::InsnId;
using isa::SwitchField;
using isa::kindBit;
using llvm::dyn_cast;

class Lowerer {
 public:
  Lowerer(SelectionContext& cx, llvm::CallInst& call, const isa::IntrinsicInfo& info)
      : cx_(cx), call_(call), info_(info), loc_(cx.errorLocation()) {}

  void run() {
    switch (info_.lowering) {
      case isa::Lowering::IndexSpaceOffset:
      case isa::Lowering::IndexSpaceSize: return indexSpace();
      case isa::Lowering::Op:
      case isa::Lowering::Mac: return op();
      case isa::Lowering::LdTnsr:
      case isa::Lowering::StTnsr:
      case isa::Lowering::StTnsrLow:
      case isa::Lowering::StTnsrHigh:
      case isa::Lowering::LdTnsrLow:
      case isa::Lowering::LdTnsrHigh: return tensor();
      case isa::Lowering::Store: return store();
      case isa::Lowering::LdGBroadcast: return loadGlobalBroadcast();
      case isa::Lowering::Reinterpret: return cx_.copyIrValue(&call_, arg("a"));
      case isa::Lowering::MovDualGroup: return movDualGroup(false);
      case isa::Lowering::MovDualGroupAll: return movDualGroup(true);
      case isa::Lowering::TensorDimSize:
      case isa::Lowering::TensorDimStride:
      case isa::Lowering::TensorHwprefStride:
      case isa::Lowering::TensorPadBits: return tensorQuery();
      case isa::Lowering::ConvertAllNarrow: return convertAll(false);
      case isa::Lowering::ConvertAllWiden: return convertAll(true);
      case isa::Lowering::WideProduct: return wideProduct();
      case isa::Lowering::ConvertWiden: return convertWiden();
    }
    error("unknown lowering");
  }

 private:
  struct Predicate {
    bool never = false;   // a constant predicate that disables the instruction
    bool always = true;   // no predicate needed
    Reg reg;
    bool negate = false;
  };

  llvm::Value* arg(const char* name) const {
    int k = info_.paramIndex(name);
    return k < 0 ? nullptr : call_.getArgOperand(static_cast<unsigned>(k));
  }
  bool has(const char* name) const { return info_.paramIndex(name) >= 0; }

  [[noreturn]] void error(const std::string& what) const {
    throw CodegenError(fmt::format("{}: {}", info_.name, what), loc_);
  }

  // A constant integer, through casts of constants (at -O0 a bool argument arrives as `trunc i8 1 to i1`).
  llvm::ConstantInt* constantInt(llvm::Value* v) const {
    if (auto* c = dyn_cast<llvm::ConstantInt>(v)) return c;
    if (auto* cast = dyn_cast<llvm::CastInst>(v))
      if (llvm::ConstantInt* op = constantInt(cast->getOperand(0)))
        return llvm::dyn_cast_or_null<llvm::ConstantInt>(llvm::ConstantFoldCastOperand(
            cast->getOpcode(), op, cast->getType(), call_.getModule()->getDataLayout()));
    return nullptr;
  }

  uint32_t constant(const char* name) const {
    try {
      return isa::requireConstantParam(info_, constants(), name);
    } catch (const isa::IntrinsicLoweringError& e) {
      error(e.what());
    }
  }

  llvm::Value* income() const {
    int k = isa::intrinsicIncomeParam(info_);
    return k < 0 ? nullptr : call_.getArgOperand(static_cast<unsigned>(k));
  }

  // The constant parameters of the call, for the shared lowering rules (tpc/isa/intrinsic_lowering.h).
  isa::ConstantParam constants() const {
    return [this](std::string_view name) -> std::optional<uint32_t> {
      llvm::ConstantInt* c = constantInt(arg(std::string(name).c_str()));
      if (!c) return std::nullopt;
      return static_cast<uint32_t>(c->getZExtValue());
    };
  }

  // An instruction with its data types, translated switches and the switch fields of constant parameters.
  MInst base(InsnId id) const {
    MInst m = makeInst(id, info_.dtype, Reg{});
    try {
      m.sw = isa::intrinsicSwitchWord(info_, id, constants());
    } catch (const isa::IntrinsicLoweringError& e) {
      error(e.what());
    }
    return m;
  }

  // ------------------------------------------------------------------------------------ operands

  Predicate predicate() const {
    Predicate p;
    p.negate = constant("polarity") != 0;
    llvm::Value* v = arg("predicate");
    if (!v) return p;
    if (llvm::ConstantInt* c = constantInt(v)) {
      p.never = c->isZero() != p.negate;
      return p;
    }
    if (auto* c = dyn_cast<llvm::Constant>(v)) {
      bool ones = c->isAllOnesValue(), zero = c->isNullValue();
      if (ones || zero) {
        p.never = ones == p.negate;  // every lane enabled, or none
        return p;
      }
    }
    p.always = false;
    p.reg = cx_.valueReg(v);
    return p;
  }

  // A scalar predicate as 0 or 1 in a scalar register.
  Reg predicateAsScalar(llvm::Value* v) {
    Reg r = cx_.freshReg(RegFile::S);
    MInst zero = makeInst(InsnId::SpuMov, DType::I32, r);
    zero.src[0] = MOperand::ofImm(0);
    cx_.emitInst(zero);
    MInst one = makeInst(InsnId::SpuMov, DType::I32, r);
    one.src[0] = MOperand::ofImm(1);
    one.dstIsRead = true;
    one.pred = cx_.valueReg(v);
    cx_.emitInst(one);
    return r;
  }

  // Source operand for a slot that accepts `kinds`.
  MOperand source(llvm::Value* v, uint32_t kinds) {
    if (v->getType()->isIntegerTy(1) && !(kinds & kindBit(RegFile::SP)) && (kinds & kindBit(RegFile::S))) {
      if (llvm::ConstantInt* c = constantInt(v); c && (kinds & kindBit(RegFile::Imm)))
        return MOperand::ofImm(c->isZero() ? 0u : 1u);
      return MOperand::ofReg(predicateAsScalar(v));  // a bool where the slot takes a scalar
    }
    if (kinds & kindBit(RegFile::I)) {
      if (v->getType()->isVectorTy()) {
        // A splat or constant int5 becomes a broadcast scalar or immediate, which only some operands take
        // (i_min's second source is an index register: seed2643).
        MOperand o = cx_.indexSource(v);
        if (kinds & kindBit(o.isReg() ? o.reg.file : RegFile::Imm)) return o;
        return MOperand::ofReg(cx_.valueReg(v));
      }
      kinds &= ~kindBit(RegFile::I);  // a scalar broadcast to the dimensions
    }
    return cx_.valueOperand(v, kinds);
  }

  // The parameters that are the instruction's sources, in order.
  std::vector<llvm::Value*> sources() const {
    std::vector<llvm::Value*> out;
    for (int k : isa::intrinsicSourceParams(info_)) out.push_back(call_.getArgOperand(static_cast<unsigned>(k)));
    return out;
  }

  // Whether the instruction may leave part of its destination unwritten (so the income must be there).
  static bool partialWrite(const MInst& m) { return isa::instructionWritesPartially(m.op, m.dtype, m.sw); }

  // ------------------------------------------------------------------------------------ emission

  // The call's value when the instruction does not run.
  void returnIncome() {
    if (call_.getType()->isVoidTy()) return;
    llvm::Value* v = income();
    if (!v) v = arg("accumulator");
    if (v) cx_.copyIrValue(&call_, v);
  }

  // Emits m (sources set) with the predicate, and the call's result as its destination.
  void finish(MInst m, const Predicate& p) {
    const isa::InsnInfo& insn = isa::insnInfo(m.op);
    if (!p.always) {
      m.pred = p.reg;
      m.predNegate = p.negate;
    }
    if (!insn.hasDst()) {
      cx_.emitInst(m);
      return;
    }
    Reg dst = cx_.valueReg(&call_);
    // A bool result of an instruction that writes a scalar register (s_i1_ld_l): compare with zero.
    bool toPredicate = dst.file == RegFile::SP && insn.kinds[0] == kindBit(RegFile::S);
    Reg out = toPredicate ? cx_.freshReg(RegFile::S) : dst;
    llvm::Value* tied = info_.lowering == isa::Lowering::Mac && m.op != InsnId::VpuMadd ? arg("accumulator")
                        : (!p.always || partialWrite(m)) ? income()
                                                          : nullptr;
    if (tied) {
      cx_.emitRegCopy(out, toPredicate ? predicateAsScalar(tied) : cx_.valueReg(tied));
      m.dstIsRead = true;
    }
    // Otherwise a partial write (F_READS_DST) has nothing to keep: the old value is undefined, and not an
    // input the allocator must keep alive (the schedulers still order the hardware's read of it).
    m.dst = out;
    cx_.emitInst(m);
    if (toPredicate) {
      MInst c = makeInst(InsnId::SpuCmpNeq, DType::I32, dst);
      c.src[0] = MOperand::ofReg(out);
      c.src[1] = MOperand::ofImm(0);
      cx_.emitInst(c);
    }
  }

  // ------------------------------------------------------------------------------------ lowerings

  // A copy of the index-space register: the allocator may give both sides that register (it is never
  // allocated otherwise), so that the copy disappears unless the kernel writes the value's register while
  // the index space is still to be read.
  void indexSpace() {
    uint32_t phys = info_.lowering == isa::Lowering::IndexSpaceOffset ? isa::kIndexSpaceOffsetReg
                                                                      : isa::kIndexSpaceSizeReg;
    cx_.emitRegCopy(cx_.valueReg(&call_), cx_.indexSpaceReg(phys));
  }

  void op() {
    const isa::InsnInfo& insn = isa::insnInfo(info_.insn);
    MInst m = base(info_.insn);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    std::vector<llvm::Value*> srcs = sources();
    if (static_cast<int>(srcs.size()) != insn.numSources())
      error(fmt::format("the table gives {} sources, {} takes {}", srcs.size(), insn.mnemonic, insn.numSources()));
    for (size_t k = 0; k < srcs.size(); ++k) m.src[k] = source(srcs[k], insn.kinds[k + 1]);
    // A vector mac on every lane as madd where that saves a copy (the same rounding: both fuse f32, both
    // round the 16-bit floats' exact product once in the f32 sum): madd reads its addend instead of
    // updating it in place, so an accumulator that stays live is not copied first, and a scalar or a
    // constant one is not broadcast into a vector register. An accumulator that dies here (a loop's
    // running sum) stays in place: as a new value each time it would need a copy back at the latch,
    // which a modulo schedule may keep apart from it (two registers for one sum).
    if (m.op == InsnId::VpuMac && p.always && isa::switchField(isa::SwitchField::Neg).get(m.sw) == 0) {
      llvm::Value* acc = arg("accumulator");
      const MOperand addend = source(acc, isa::insnInfo(InsnId::VpuMadd).kinds[3]);
      if (!addend.isReg() || addend.reg.file != RegFile::V || !acc->hasOneUse()) {
        m.op = InsnId::VpuMadd;  // the same switches (saturation; no negation)
        m.src[2] = addend;
        return finish(m, Predicate{});
      }
    }
    finish(m, p);
  }

  void tensor() {
    const InsnId id = isa::tensorAccessInsn(info_, constants());
    MInst m = base(id);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    bool genAddr = info_.insn == InsnId::GenAddr;
    if (genAddr && !p.always)
      error("a predicate that is not a compile-time constant is not supported (address registers have no "
            "predicated copy)");
    llvm::Value* ndx = has("ndx") ? arg("ndx") : arg("inx");
    if (!genAddr) cx_.noteCoordinates(ndx, &m);
    m.src[0] = MOperand::ofReg(cx_.valueReg(ndx));
    m.sw = isa::switchField(SwitchField::Tensor).set(m.sw, static_cast<uint32_t>(cx_.tensorNumber(arg("tensor"), info_.name)));
    if (llvm::Value* value = arg("value")) m.src[1] = MOperand::ofReg(cx_.vectorReg(value));
    if (id != info_.insn) {  // the register form: size and offset are its last two sources
      const isa::InsnInfo& insn = isa::insnInfo(id);
      const int k = insn.numSources() - 2;
      m.src[k] = source(arg("size"), insn.kinds[k + 1]);
      m.src[k + 1] = source(arg("offset"), insn.kinds[k + 2]);
    }
    finish(m, p);
  }

  // get_dim_size, get_dim_stride, get_tensor_hwpref_stride, __tensor_pad_bits: one field of the descriptor of
  // tensor `a` (dim, where there is one, is a constant).
  void tensorQuery() {
    MInst m = base(info_.insn);
    m.sw = isa::switchField(SwitchField::TdescField).set(m.sw, static_cast<uint32_t>(isa::tensorQueryField(info_.lowering)));
    m.sw = isa::switchField(SwitchField::Tensor).set(m.sw, static_cast<uint32_t>(cx_.tensorNumber(arg("a"), info_.name)));
    m.dst = cx_.valueReg(&call_);
    cx_.emitInst(m);
  }

  void store() {
    const isa::InsnInfo& insn = isa::insnInfo(info_.insn);
    MInst m = base(info_.insn);
    Predicate p = predicate();
    if (p.never) return;
    m.src[0] = source(arg("addr"), insn.kinds[1]);
    m.src[1] = source(arg("value"), insn.kinds[2]);
    finish(m, p);
  }

  // v_<t>_ld_g: one element into a scalar register, then to every lane.
  void loadGlobalBroadcast() {
    MInst ld = base(InsnId::LdG);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    Reg s = cx_.freshReg(RegFile::S);
    ld.dst = s;
    ld.src[0] = source(arg("addr"), isa::insnInfo(InsnId::LdG).kinds[1]);
    if (!p.always && p.reg.file == RegFile::SP) {
      ld.pred = p.reg;
      ld.predNegate = p.negate;
    }
    cx_.emitInst(ld);
    MInst mov = makeInst(InsnId::VpuMov, info_.dtype, Reg{});
    mov.src[0] = MOperand::ofReg(s);
    finish(mov, p);
  }

  void movDualGroup(bool all) {
    std::vector<isa::DualGroupMove> moves;
    try {
      moves = isa::dualGroupMoves(info_, constants(), all);
    } catch (const isa::IntrinsicLoweringError& e) {
      error(e.what());
    }
    Predicate p = predicate();
    if (p.never) return returnIncome();
    Reg src = cx_.vectorReg(arg("a"));
    // A lane predicate selects lanes of the intrinsic's type, while mov_dual_group predicates 32-bit
    // lanes: move without it into a temporary, then merge with a predicated move of the type.
    bool lanes = !p.always && p.reg.file == RegFile::VP;
    Predicate moveP = lanes ? Predicate{} : p;
    Reg dst = lanes ? cx_.freshReg(RegFile::V) : cx_.valueReg(&call_);
    // Bytes the moves do not write (and all of them when a scalar predicate is false) keep income.
    const bool whole = moves.size() == 4 && std::all_of(moves.begin(), moves.end(), [](const isa::DualGroupMove& m) {
      return m.groups == 3 && m.mask == 0xffffffffu;
    });
    if (!whole || !moveP.always) cx_.emitRegCopy(dst, cx_.valueReg(income()));
    for (const isa::DualGroupMove& move : moves) {
      MInst m = makeInst(InsnId::VpuMovDualGroup, info_.dtype, dst);
      m.src[0] = MOperand::ofReg(src);
      m.src[1] = MOperand::ofImm(move.mask);
      m.sw = isa::switchField(SwitchField::SrcGroup).set(0, move.src);
      m.sw = isa::switchField(SwitchField::DstGroup).set(m.sw, move.dst);
      m.sw = isa::switchField(SwitchField::WriteGroups).set(m.sw, move.groups);
      m.dstIsRead = true;
      if (!moveP.always) {
        m.pred = moveP.reg;
        m.predNegate = moveP.negate;
      }
      cx_.emitInst(m);
    }
    if (lanes) {
      MInst mov = makeInst(InsnId::VpuMov, info_.dtype, Reg{});
      mov.src[0] = MOperand::ofReg(dst);
      finish(mov, p);
    }
  }

  // The n registers of a pair or quad (float128, int256, ...): an aggregate value's, or a constant's members.
  std::vector<Reg> memberRegs(llvm::Value* v, unsigned n = 2) {
    const char* what = n == 2 ? "a pair argument that is not a pair" : "a quad argument that is not a quad";
    if (auto* c = dyn_cast<llvm::Constant>(v)) {
      std::vector<Reg> out;
      for (unsigned k = 0; k < n; ++k) {
        llvm::Constant* e = c->getAggregateElement(k);
        if (!e) error(what);
        out.push_back(cx_.vectorReg(e));
      }
      return out;
    }
    const std::vector<Reg>& rs = cx_.valueRegs(v);
    if (rs.size() != n) error(what);
    return rs;
  }

  // Integer v_<t>_mul / v_<t>_mac with products wider than the type (Lowering::WideProduct): one
  // mul_wide / mac_wide per member of the pair or quad result, part k into member k.
  void wideProduct() {
    const isa::InsnInfo& insn = isa::insnInfo(info_.insn);
    MInst m0 = base(info_.insn);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    const unsigned parts = isa::wideProductParts(info_.dtype);
    std::vector<Reg> dst = cx_.valueRegs(&call_);
    if (dst.size() != parts) error("the result is not of the intrinsic's type");
    llvm::Value* tied = info_.insn == InsnId::VpuMacWide ? arg("accumulator") : !p.always ? income() : nullptr;
    if (tied) {  // the accumulator, or what the predicate disables keeps the income
      std::vector<Reg> in = memberRegs(tied, parts);
      for (unsigned k = 0; k < parts; ++k) cx_.emitRegCopy(dst[k], in[k]);
    }
    MOperand a = source(arg("a"), insn.kinds[1]), b = source(arg("b"), insn.kinds[2]);
    for (unsigned part = 0; part < parts; ++part) {
      MInst m = m0;
      m.sw = isa::switchField(SwitchField::Part).set(m.sw, part);
      m.src[0] = a;
      m.src[1] = b;
      m.dst = dst[part];
      m.dstIsRead = tied != nullptr;
      if (!p.always) {
        m.pred = p.reg;
        m.predNegate = p.negate;
      }
      cx_.emitInst(m);
    }
  }

  // v_convert_f32_to_bf16_all and convert_float128_to_bfloat128 (narrow: the pair into one register),
  // v_convert_bf16_to_f32_all and convert_bfloat128_to_float128 (widen: one register into the pair result):
  // two converts (tpc/isa/intrinsic_lowering.h).
  void convertAll(bool widen) {
    MInst m0 = base(InsnId::VpuConvert);
    Predicate p = predicate();
    if (p.never) return returnIncome();
    llvm::Value* from = call_.getArgOperand(static_cast<unsigned>(isa::convertAllSourceParam(info_)));
    std::vector<Reg> src = widen ? std::vector<Reg>{cx_.vectorReg(from)} : memberRegs(from);
    std::vector<Reg> dst = widen ? std::vector<Reg>(cx_.valueRegs(&call_)) : std::vector<Reg>{cx_.valueReg(&call_)};
    if (dst.size() != (widen ? 2u : 1u)) error("the result is not of the intrinsic's type");
    if (!p.always) {  // lanes (or everything) the predicate disables keep the income
      std::vector<Reg> in = widen ? memberRegs(income()) : std::vector<Reg>{cx_.vectorReg(income())};
      for (size_t k = 0; k < dst.size(); ++k) cx_.emitRegCopy(dst[k], in[k]);
    }
    for (uint32_t part = 0; part < 2; ++part) {
      MInst m = m0;
      try {
        m.sw = isa::convertAllPartSwitches(info_, constants(), m0.sw, part);
      } catch (const isa::IntrinsicLoweringError& e) {
        error(e.what());
      }
      m.src[0] = MOperand::ofReg(src[widen ? 0 : part]);
      m.dst = dst[widen ? part : 0];
      // convert reads its destination (F_READS_DST): narrowing writes every other lane and the second
      // convert keeps the first one's; where nothing is kept (a widening part, the first narrowing part
      // without a predicate) the old value is undefined and no input.
      m.dstIsRead = !p.always || (!widen && part == 1);
      if (!p.always) {
        m.pred = p.reg;
        m.predNegate = p.negate;
      }
      cx_.emitInst(m);
    }
  }

  // Up-converts without a lane (Lowering::ConvertWiden). The convert reads source lanes 0, r, 2r, ... and a
  // vector predicate of that instruction would follow those source lanes; the reference's predicate has one
  // bit per result lane, so it applies through a predicated mov of the result type instead.
  void convertWiden() {
    Predicate p = predicate();
    if (p.never) return returnIncome();
    if (p.always || p.reg.file != RegFile::VP) return op();
    MInst m = base(InsnId::VpuConvert);
    m.src[0] = source(arg("src"), isa::insnInfo(InsnId::VpuConvert).kinds[1]);
    m.dst = cx_.freshReg(RegFile::V);  // every lane is written: the old value (F_READS_DST) is no input
    cx_.emitInst(m);
    MInst mov = makeInst(InsnId::VpuMov, info_.dt2, Reg{});
    mov.src[0] = MOperand::ofReg(m.dst);
    finish(mov, p);
  }

  SelectionContext& cx_;
  llvm::CallInst& call_;
  const isa::IntrinsicInfo& info_;
  SourceLoc loc_;
};

}  // namespace

void lowerIntrinsicCall(SelectionContext& cx, llvm::CallInst& call, const isa::IntrinsicInfo& info) {
  Lowerer(cx, call, info).run();
}

}  // namespace tpc::cc
