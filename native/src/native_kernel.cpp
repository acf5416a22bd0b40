#include "tpc/native/native_kernel.h"

#include <ffi.h>

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MemoryBuffer.h>

#include "jit.h"
#include "module_rewrite.h"
#include "runtime.h"
#include "tpc/support/error.h"

namespace tpc::native {

namespace {

ffi_type* ffiType(ParamAbi a) {
  switch (a) {
    case ParamAbi::I8: return &ffi_type_sint8;
    case ParamAbi::U8: return &ffi_type_uint8;
    case ParamAbi::I16: return &ffi_type_sint16;
    case ParamAbi::U16: return &ffi_type_uint16;
    case ParamAbi::Bits16: return &ffi_type_uint16;
    case ParamAbi::I32: return &ffi_type_sint32;
    case ParamAbi::U32: return &ffi_type_uint32;
    case ParamAbi::F32: return &ffi_type_float;
  }
  return &ffi_type_void;
}

}  // namespace

struct NativeKernel::Impl {
  Jit jit;
  PreparedModule prepared;  // owns the call plans the code points at
  std::vector<KernelFunctions> copies;
  std::vector<ffi_type*> argTypes;
  ffi_cif cif{};
  std::vector<bool> isTensor;
  std::vector<uint32_t> scalars;
};

NativeKernel::NativeKernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NativeKernel::~NativeKernel() = default;

std::unique_ptr<NativeKernel> NativeKernel::compile(const obj::KernelObject& object, const sim::Program& program,
                                                    int hostThreads, const std::string& objectName) {
  if (object.bitcode.empty())
    throw UserError(fmt::format("{}: the object carries no LLVM bitcode (section '.tpc.bitcode'), which --native "
                                "needs: compile the kernel with tpc-clang", objectName));
  auto impl = std::make_unique<Impl>();
  auto context = std::make_unique<llvm::LLVMContext>();
  llvm::StringRef bytes(reinterpret_cast<const char*>(object.bitcode.data()), object.bitcode.size());
  auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bytes, objectName), *context);
  if (!parsed)
    throw UserError(fmt::format("{}: the LLVM bitcode in section '.tpc.bitcode' cannot be read: {}", objectName,
                                llvm::toString(parsed.takeError())));
  std::unique_ptr<llvm::Module> module = std::move(*parsed);
  try {
    impl->prepared = prepareModule(*module, object, program, impl->jit.hostTriple(), impl->jit.hostLayout());
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: {}", objectName, e.what()));
  }
  if (std::getenv("TPC_NATIVE_PRINT_IR")) module->print(llvm::errs(), nullptr);  // for debugging the path
  std::string broken;
  llvm::raw_string_ostream os(broken);
  if (llvm::verifyModule(*module, &os))
    throw std::logic_error(fmt::format("{}: the prepared native module is invalid: {}", objectName, broken));

  for (const obj::Param& p : object.params) impl->isTensor.push_back(p.kind == obj::ParamKind::Tensor);
  for (ParamAbi a : impl->prepared.params) impl->argTypes.push_back(ffiType(a));
  if (ffi_prep_cif(&impl->cif, FFI_DEFAULT_ABI, static_cast<unsigned>(impl->argTypes.size()), &ffi_type_void,
                   impl->argTypes.data()) != FFI_OK)
    throw std::runtime_error("libffi: cannot describe the kernel's parameter list");
  impl->copies = impl->jit.addCopies(std::move(context), std::move(module), std::max(hostThreads, 1));
  return std::unique_ptr<NativeKernel>(new NativeKernel(std::move(impl)));
}

void NativeKernel::setScalars(std::vector<uint32_t> scalars) { impl_->scalars = std::move(scalars); }

void NativeKernel::runCore(sim::Core& core, int hostThread) {
  const KernelFunctions& f = impl_->copies.at(static_cast<size_t>(hostThread));
  // The arguments: tensors as their numbers (parameter order), scalars as their values. Each value sits
  // in the low bytes of its 64-bit cell (little-endian), as libffi reads it by the parameter's type.
  size_t n = impl_->isTensor.size();
  std::vector<uint64_t> cells(n, 0);
  std::vector<void*> args(n);
  uint32_t tensor = 0;
  size_t scalar = 0;
  for (size_t k = 0; k < n; ++k) {
    uint32_t v = impl_->isTensor[k] ? tensor++ : (scalar < impl_->scalars.size() ? impl_->scalars[scalar++] : 0u);
    std::memcpy(&cells[k], &v, sizeof v);
    args[k] = &cells[k];
  }
  ffi_cif* cif = &impl_->cif;
  void** argv = args.data();
  f.resetLocals();
  runProtected(core, [cif, &f, argv] { ffi_call(cif, FFI_FN(f.entry), nullptr, argv); });
}

}  // namespace tpc::native
