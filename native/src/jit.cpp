#include "jit.h"

#include <mutex>
#include <stdexcept>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "module_rewrite.h"
#include "runtime.h"

namespace tpc::native {

namespace {

[[noreturn]] void fail(const std::string& what, llvm::Error e) {
  throw std::runtime_error(what + ": " + llvm::toString(std::move(e)));
}

template <class T> T check(llvm::Expected<T> v, const std::string& what) {
  if (!v) fail(what, v.takeError());
  return std::move(*v);
}

}  // namespace

struct Jit::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::string triple;
  llvm::DataLayout layout{""};
  int dylibs = 0;
};

Jit::Jit() : impl_(std::make_unique<Impl>()) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  // The host's CPU and features (detectHost), so the kernel's vector code uses the host's vector ISA.
  auto jtmb = check(llvm::orc::JITTargetMachineBuilder::detectHost(), "native JIT: host target");
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
  impl_->jit = check(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create(), "native JIT");
  impl_->triple = impl_->jit->getTargetTriple().str();
  impl_->layout = impl_->jit->getDataLayout();
}

Jit::~Jit() = default;

const std::string& Jit::hostTriple() const { return impl_->triple; }
const llvm::DataLayout& Jit::hostLayout() const { return impl_->layout; }

std::vector<KernelFunctions> Jit::addCopies(std::unique_ptr<llvm::LLVMContext> context,
                                            std::unique_ptr<llvm::Module> module, int copies) {
  std::vector<std::unique_ptr<llvm::Module>> modules;
  for (int k = 1; k < copies; ++k) modules.push_back(llvm::CloneModule(*module));
  modules.insert(modules.begin(), std::move(module));
  llvm::orc::ThreadSafeContext tsc(std::move(context));

  llvm::orc::LLJIT& jit = *impl_->jit;
  std::vector<KernelFunctions> out;
  for (auto& m : modules) {
    std::string name = "tpc_kernel_" + std::to_string(impl_->dylibs++);
    auto created = jit.createJITDylib(name);
    if (!created) fail("native JIT: dylib", created.takeError());
    llvm::orc::JITDylib& jd = *created;
    // memcpy/memset and the like that code generation may call.
    jd.addGenerator(check(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                              jit.getDataLayout().getGlobalPrefix()),
                          "native JIT: process symbols"));
    llvm::orc::SymbolMap libcalls;
    for (const Libcall& c : runtimeLibcalls())
      libcalls[jit.mangleAndIntern(c.name)] = {llvm::orc::ExecutorAddr::fromPtr(c.address),
                                                llvm::JITSymbolFlags::Exported};
    if (llvm::Error e = jd.define(llvm::orc::absoluteSymbols(std::move(libcalls))))
      fail("native JIT: runtime functions", std::move(e));
    if (llvm::Error e = jit.addIRModule(jd, llvm::orc::ThreadSafeModule(std::move(m), tsc)))
      fail("native JIT: adding the kernel", std::move(e));
    KernelFunctions f;
    f.entry = check(jit.lookup(jd, kEntryName), "native JIT: compiling the kernel").toPtr<void*>();
    f.resetLocals = check(jit.lookup(jd, kResetLocalsName), "native JIT: compiling the kernel").toPtr<void (*)()>();
    out.push_back(f);
  }
  return out;
}

}  // namespace tpc::native
