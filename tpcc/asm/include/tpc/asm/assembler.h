// The assembly file format: directives for the kernel's metadata, labels, and one bundle per line in the
// syntax of tpc/isa/asm_text.h. tpc-objdump -d prints exactly what assemble() reads back.
//
//     .kernel main
//     .arch gaudi2
//     .param tensor x
//     .param f32 alpha
//     .scalar_local 0
//     .vector_local 0
//     main:
//     0x0000:  ld_tnsr.f32 v0, i2 tnsr=0 ; nop ; nop ; nop
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "tpc/object/kernel_object.h"

namespace tpc::assembler {

// An error in the source: what() is "FILE:LINE:COL: error: MESSAGE".
class AsmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

obj::KernelObject assemble(std::string_view text, const std::string& fileName);

struct DisassemblyOptions {
  bool withSource = false;  // interleave source lines from the debug line table (-S)
  std::string objectName;   // shown in the header comment
  bool metadata = true;     // the header comment and the directives before the code (off: .text only)
  bool addresses = true;    // each bundle's address before it
};
std::string disassemble(const obj::KernelObject& object, const DisassemblyOptions& options);

}  // namespace tpc::assembler
