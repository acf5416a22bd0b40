// From an optimized LLVM module to a kernel object: the tailored optimization pipeline, then
// instruction selection, register allocation, scheduling and encoding.
#pragma once

#include <memory>
#include <string>

#include "tpc/cc/isel.h"
#include "tpc/object/kernel_object.h"

namespace llvm {
class Module;
class Function;
}

namespace tpc::cc {

// Inlines every function into the kernel entry and runs O2 without the vectorizers (or, at -O0, only
// what code generation needs: inlining and promotion of locals to registers); then lowers switches and
// splits critical edges for instruction selection.
// Innermost loops without an unroll pragma are unrolled `unrollCount` times (with a remainder loop when
// the trip count is unknown), as `#pragma unroll(N)` would: independent iterations in one block give the
// scheduler work to overlap.
// Gives each unrolled copy's coordinates in single-block innermost loops an int5 induction variable of
// its own (coordinate_ivs.cpp), at most `maxIvs` per loop (each holds an index register through it).
void reduceCoordinates(llvm::Function& f, size_t maxIvs = 20);

// Coordinates of one block built lane by lane from the same values plus constants (`{n + 64 j, m, 0, 0,
// 0}`) become one vector built once plus constant offsets (lane_offsets.cpp).
void shareLaneOffsets(llvm::Function& f);

// Outside innermost loops, int5 values that are the same base plus offsets in one lane, a fixed step
// apart, become a chain of adds of that step, which shares one constant (coordinate_chains.cpp).
void chainCoordinateOffsets(llvm::Function& f);

// Constant int5 vectors built in loops (coordinate steps) are built once before the outermost loop
// around them, one per value (constant_coordinates.cpp).
void hoistConstantCoordinates(llvm::Function& f);

// An induction variable's increment in its loop's header goes after the variable's last read there,
// so that the two can share a register (iv_increments.cpp).
void sinkIvIncrements(llvm::Function& f);

// PHIs of narrow-integer views of int5s (<20 x i8>, <10 x i16>: LLVM's form of `(uint8_t)c[k]`) become
// PHIs of the int5s, viewed after them (int5_views.cpp).
void viewInt5sAfterPhis(llvm::Function& f);

// Arithmetic on such a view whose lanes are only read one at a time becomes scalar arithmetic on the lanes
// read (int5_views.cpp).
void scalarizeViewArithmetic(llvm::Function& f);

// PHIs and selects that merge llvm.roundeven of floats (and integral constants) merge the floats
// instead, rounded after them, so that the rounding stays next to the conversion it belongs to
// (rounding_merges.cpp).
void roundAfterMerges(llvm::Function& f);

// int5 PHIs of loop nests whose read lanes never change from their start value are that value
// (coordinate_ivs.cpp).
void forwardInvariantLanes(llvm::Function& f);

// Tensor arguments chosen at run time (a select or PHI of tensors, often LLVM's merge of two calls) become
// calls with constant tensors (tensor_choices.cpp).
void dispatchTensorChoices(llvm::Function& f, const KernelSignature& signature);

// Unroll-and-jam of loops around an accumulating innermost loop (unroll_and_jam.cpp); whether the
// function has such a loop nest at all (never with TPC_UNROLL_AND_JAM=0).
void unrollAndJam(llvm::Function& f, const KernelSignature& signature);
bool hasUnrollAndJamCandidate(llvm::Function& f, const KernelSignature& signature);

// Uses in innermost loops of hoisted scalars that are one cheap operation with a constant away from a
// shared operand (chains of them too, and their splats) compute them again next to the use, so that one
// register holds the operand instead of one per value: for when the scalar registers run out
// (invariant_recompute.cpp). Returns how many uses changed.
size_t recomputeInvariantsInLoops(llvm::Function& f);

// LLVM's bit-manipulation and saturating intrinsics (bitreverse, bswap, ctpop, ctlz, cttz, fshl, fshr,
// [us]add.sat, [us]sub.sat), which the optimizer forms from C operators, as plain integer IR
// (bit_intrinsics.cpp); run before the divisions' expansions (a funnel shift of an odd width takes a
// remainder).
void expandBitIntrinsics(llvm::Function& f);

// Integer division and remainder by a power of two (scalar, or vector by a splat) as shifts and masks
// (power_of_two_division.cpp); run before expandVectorDivision.
void expandPowerOfTwoDivision(llvm::Function& f);

// Integer division and remainder of vectors as long division in vector IR (vector_division.cpp).
void expandVectorDivision(llvm::Function& f);

// `coordinateIvs` false: coordinates are computed where they are used (the driver's last attempt when the
// index registers run out). `hoistSteps` false: constant coordinate steps stay in the preheaders where
// they are used rather than held through loop nests (hoistConstantCoordinates; the driver's first retry).
void optimizeModule(llvm::Module& module, const KernelSignature& signature, int optLevel, int unrollCount = 16,
                    bool coordinateIvs = true, bool hoistSteps = true);

// Metadata that keeps each instruction's source position, {i32 line, i32 column}, through optimizations
// that drop its debug location (LICM hoisting sets line 0), so that errors can still point at it.
inline constexpr const char* kSourcePositionMetadata = "tpc.srcpos";

// The call that marks a preheader of a hardware loop, with the loop's trip count (see formHardwareLoops).
inline constexpr const char* kHardwareLoopMarker = "__tpc_hwloop";

// The kernel entry: `main` (C), or the C++ function named main.
llvm::Function* findEntry(llvm::Module& module);

struct CodegenOptions {
  std::string arch = "gaudi2";
  bool debugInfo = false;     // line table in the object
  std::string sourceName;     // the file named by the line table
  bool printMir = false;      // dump machine IR to stderr
  bool allowSpill = true;     // spill to local memory rather than fail when registers run out
  // When modulo-scheduled loops run out of registers: compile them again without overlapping
  // iterations (true), or fail with CodegenError(outOfRegisters) so that the driver unrolls less.
  bool flatWhenOutOfRegisters = true;
  // Join blocks that control always runs straight through, so that bundles fill across them, and compute
  // branch conditions a block early (not at -O0, where each statement's code stays where a debugger's
  // step expects it).
  bool mergeStraightBlocks = true;
};

obj::KernelObject generateObject(llvm::Module& module, const KernelSignature& signature,
                                 const CodegenOptions& options);

}  // namespace tpc::cc
