#include "tpc/cc/codegen.h"

#include <cstdio>

#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Utils/BreakCriticalEdges.h>
#include <llvm/Transforms/Utils/LowerSwitch.h>
#include <llvm/Transforms/Utils/Mem2Reg.h>

#include "tpc/cc/passes.h"

namespace tpc::cc {

llvm::Function* findEntry(llvm::Module& module) {
  if (llvm::Function* f = module.getFunction("main"); f && !f->isDeclaration()) return f;
  for (llvm::Function& f : module)
    if (!f.isDeclaration() && f.getName().starts_with("_Z4main")) return &f;
  return nullptr;
}

void optimizeModule(llvm::Module& module, int optLevel) {
  llvm::Function* entry = findEntry(module);
  // Helper functions exist only inlined into the kernel.
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || &f == entry) continue;
    f.removeFnAttr(llvm::Attribute::NoInline);
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  if (entry) {
    entry->removeFnAttr(llvm::Attribute::NoInline);
    entry->removeFnAttr(llvm::Attribute::OptimizeNone);
  }

  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = false;
  tuning.SLPVectorization = false;
  tuning.LoopUnrolling = true;  // honours #pragma unroll
  llvm::PassBuilder pb(nullptr, tuning);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);

  llvm::ModulePassManager mpm = optLevel == 0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                              : pb.buildPerModuleDefaultPipeline(optLevel == 1 ? llvm::OptimizationLevel::O1
                                                                                : optLevel == 3 ? llvm::OptimizationLevel::O3
                                                                                                : llvm::OptimizationLevel::O2);
  llvm::FunctionPassManager fpm;
  if (optLevel == 0) {
    fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
    fpm.addPass(llvm::PromotePass());
  }
  fpm.addPass(llvm::LowerSwitchPass());
  fpm.addPass(llvm::BreakCriticalEdgesPass());
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(module, mam);

  // What is left besides the entry was inlined everywhere.
  std::vector<llvm::Function*> dead;
  for (llvm::Function& f : module)
    if (&f != entry && !f.isDeclaration() && f.use_empty()) dead.push_back(&f);
  for (llvm::Function* f : dead) f->eraseFromParent();
}

obj::KernelObject generateObject(llvm::Module& module, const KernelSignature& signature,
                                 const CodegenOptions& options) {
  const isa::ArchInfo* arch = isa::findArch(options.arch);
  if (!arch) throw CodegenError(fmt::format("unknown architecture '{}'", options.arch));
  llvm::Function* entry = findEntry(module);
  if (!entry) throw CodegenError("no kernel entry: define 'void main(tensor ..., scalars ...)'");

  MFunction mf = selectInstructions(*entry, signature);
  legalizeImmediates(mf);
  if (options.printMir) std::fprintf(stderr, "%s", printMir(mf).c_str());
  allocateRegisters(mf);
  if (options.printMir) std::fprintf(stderr, "after allocation:\n%s", printMir(mf).c_str());
  std::vector<ScheduledBundle> bundles = scheduleFunction(mf, *arch);

  obj::KernelObject o;
  o.kernelName = signature.name;
  o.arch = options.arch;
  for (const KernelParam& p : signature.params)
    o.params.push_back(obj::Param{p.name, p.isTensor ? obj::ParamKind::Tensor : obj::ParamKind::Scalar,
                                  p.isTensor ? DType::I32 : p.scalarType});
  o.scalarLocalBytes = mf.scalarLocalBytes;
  o.vectorLocalBytes = mf.vectorLocalBytes;
  o.text.resize(bundles.size() * isa::kBundleBytes);
  for (size_t k = 0; k < bundles.size(); ++k) isa::encodeBundle(bundles[k].bundle, o.text.data() + k * isa::kBundleBytes);
  if (options.debugInfo) {
    o.debug.files.push_back(options.sourceName);
    uint32_t lastLine = 0, lastCol = 0;
    for (size_t k = 0; k < bundles.size(); ++k) {
      const SourceLoc& l = bundles[k].loc;
      if (!l.line || (l.line == lastLine && l.column == lastCol)) continue;
      o.debug.lines.push_back(obj::LineEntry{static_cast<uint32_t>(k * isa::kBundleBytes), 0, l.line, l.column});
      lastLine = l.line;
      lastCol = l.column;
    }
  }
  llvm::SmallVector<char, 0> bitcode;
  llvm::raw_svector_ostream os(bitcode);
  llvm::WriteBitcodeToFile(module, os);
  o.bitcode.assign(bitcode.begin(), bitcode.end());
  return o;
}

}  // namespace tpc::cc
