// Machine IR of the backend: instructions of the ISA over virtual registers, in basic blocks.
// Instruction selection (isel.cpp) produces it from LLVM IR; register allocation, scheduling into
// bundles and emission work on it without LLVM.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tpc/isa/encoding.h"

namespace tpc::cc {

using isa::RegFile;

// A register operand: virtual (before allocation) or physical.
struct Reg {
  RegFile file = RegFile::None;
  uint32_t id = 0;        // virtual register number, or the physical index once allocated
  bool physical = false;  // names an architectural register already (i0, i1, parameters)
  bool valid() const { return file != RegFile::None; }
  bool operator==(const Reg&) const = default;
};

struct MOperand {
  enum class Kind : uint8_t { None, Reg, Imm } kind = Kind::None;
  Reg reg;
  uint32_t imm = 0;
  static MOperand none() { return {}; }
  static MOperand ofReg(Reg r) { return {Kind::Reg, r, 0}; }
  static MOperand ofImm(uint32_t v) { return {Kind::Imm, {}, v}; }
  bool isReg() const { return kind == Kind::Reg; }
  bool isImm() const { return kind == Kind::Imm; }
};

struct SourceLoc {
  uint32_t line = 0, column = 0;
  uint32_t scope = 0;  // inline scope (-g): 0 the kernel, k > 0 MFunction::scopes[k - 1]
};

struct MInst {
  isa::InsnId op = isa::InsnId::SpuNop;
  DType dtype = DType::F32;
  uint32_t sw = 0;
  Reg dst;
  bool dstIsRead = false;  // the old value of dst is an input (income, accumulator, partial write)
  std::array<MOperand, 4> src{};
  Reg pred;                // SP or VP register; invalid: always executes
  bool predNegate = false;
  bool copy = false;       // a plain register move, removed when both sides get the same register
  // Tensor accesses whose coordinates are a known base plus a constant offset in dimension 0: accesses
  // with the same base whose offsets are a vector or more apart touch different elements.
  uint64_t coordBase = 0;  // 0: unknown
  int64_t coordOffset = 0;
  // In a single-block loop whose induction variable is the base's dimension-0 term: how far that term
  // moves from one iteration to the next (0: unknown). Modulo scheduling uses it to tell the accesses of
  // different iterations apart.
  int64_t coordStep = 0;
  // In a modulo-scheduled loop kernel: the cycle (modulo the initiation interval) the modulo schedule
  // chose, which the list scheduler follows as its priority; -1 elsewhere.
  int moduloCycle = -1;
  // Source variables that hold this instruction's result from here on (-g): index into
  // MFunction::variables and the register (rewritten with the others by the allocator). An invalid
  // register: the variable is assigned here a value the code does not keep (undef, a constant, a value
  // folded away), so its earlier location ends and it is <optimized out> from here on.
  std::vector<std::pair<uint32_t, Reg>> variables;
  SourceLoc loc;
};

// The registers an instruction reads as values: its sources, its predicate, and its destination's old
// value when it keeps part of it (dstIsRead): the allocator's and dead-code elimination's view (a
// predicated write's old value is their own concern). The schedulers add what the hardware reads besides
// (schedule.cpp, modulo_graph.h).
template <class F> void forEachRegisterRead(const MInst& mi, F f) {
  for (const MOperand& o : mi.src)
    if (o.isReg()) f(o.reg);
  if (mi.pred.valid()) f(mi.pred);
  if (mi.dstIsRead && mi.dst.valid()) f(mi.dst);
}

// A block ends by jumping to condTarget when condPred (negated if condNegate) holds, and otherwise goes on
// to `next`; next == -1 ends the kernel.
struct MBlock {
  std::vector<MInst> insts;
  int condTarget = -1;
  Reg condPred;
  bool condNegate = false;
  int next = -1;
  SourceLoc endLoc;

  // A preheader of a hardware loop ends with `loop loopIter, loopZero, loopCount, 1` running block
  // loopBody (which follows it) loopCount times.
  int loopBody = -1;
  Reg loopCount, loopZero, loopIter;
  // A hardware loop body: the iterator the core updates at its end stays allocated through it.
  Reg bodyIter;
  bool dead = false;  // never reached (the back-edge block of a hardware loop): no code
  int moduloLoop = -1;  // a block of a modulo-scheduled loop: the loop's number (ModuloPlan)
};

struct MFunction {
  std::string name;
  std::vector<MBlock> blocks;  // in layout order; block 0 is the entry
  std::array<uint32_t, 8> numVirtual{};  // virtual registers allocated per file
  std::vector<std::pair<Reg, uint32_t>> precolored;  // virtual register -> the physical index it must get
  struct Variable {
    std::string name, typeName;
    uint32_t scope = 0;       // inline scope, as SourceLoc::scope
    bool isArgument = false;  // a parameter of its function
  };
  std::vector<Variable> variables;  // source variables with debug locations (-g)
  // Variables that are loops over an index-space dimension (-g): variables[variable] / scale is the
  // coordinate of the iteration.
  struct IndexVariable {
    uint32_t variable = 0;
    uint8_t dim = 0;
    int32_t scale = 1;
  };
  std::vector<IndexVariable> indexVariables;
  // Inlined calls (-g): the function, the scope it was inlined into, and the call's line and column there.
  struct InlineScope {
    std::string function;
    uint32_t parent = 0, line = 0, column = 0;
  };
  std::vector<InlineScope> scopes;
  // __local__ variables (-g): where each lives in scalar or vector local memory for the whole kernel.
  struct LocalVariable {
    std::string name, typeName;
    uint32_t offset = 0;
    bool vector = false;
  };
  std::vector<LocalVariable> localVariables;
  std::vector<std::string> printfFormats;  // format strings of printf, by index
  uint32_t scalarLocalBytes = 0, vectorLocalBytes = 0;  // local memory used by the kernel's data

  Reg newVirtual(RegFile f) { return Reg{f, numVirtual[static_cast<int>(f)]++}; }
};

// A scheduled bundle, with the source location of its first instruction that has one.
struct ScheduledBundle {
  isa::Bundle bundle;
  SourceLoc loc;
  std::vector<std::pair<uint32_t, Reg>> variables;  // variables whose value an instruction here produces
};

}  // namespace tpc::cc
