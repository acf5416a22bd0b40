// tpc-objdump: prints a kernel object's metadata and code, one bundle per line with all four slots.
// Installed a second time as tpc-llvm-objdump, it accepts the vendor's disassembler command line:
//   --triple tpc -d -j .text --no-show-raw-insn --no-leading-addr --mcpu=ARCH FILE.o
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tpc/asm/assembler.h"
#include "tpc/isa/isa_doc.h"
#include "tpc/object/kernel_object.h"
#include "tpc/support/text.h"

int main(int argc, char** argv) {
  CLI::App app{"tpc-objdump: disassemble a TPC kernel object; the output reassembles with tpc-as"};
  std::string input;
  bool disassemble = false, source = false;
  bool isaTable = false, noRawInsn = false, noLeadingAddr = false;
  std::string triple, section, mcpu;
  auto* inputOpt = app.add_option("input", input, "kernel object (FILE.o)");
  app.add_flag("--isa-table", isaTable, "print the instruction table (Markdown) and exit");
  app.add_flag("-d,--disassemble", disassemble, "disassemble the code (the default)");
  app.add_flag("-S,--source", source, "interleave source lines (needs an object compiled with -g)");
  // The vendor's (llvm-objdump's) spelling of the same request.
  app.add_option("--triple", triple, "target triple: only tpc");
  app.add_option("-j,--section", section, "print only this section: only .text (the bundles, no directives)");
  app.add_flag("--no-show-raw-insn", noRawInsn, "accepted: raw instruction bytes are never shown");
  app.add_flag("--no-leading-addr", noLeadingAddr, "leave out each bundle's address");
  app.add_option("--mcpu", mcpu, "the object's architecture (gaudi, gaudi2, gaudi3): checked against the object");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // usage errors exit with status 1, as every tool of the SDK
  }
  if (isaTable) {
    std::fputs(tpc::isa::instructionTableMarkdown().c_str(), stdout);
    return 0;
  }
  if (!*inputOpt) {
    std::fprintf(stderr, "tpc-objdump: missing the kernel object to disassemble (see --help)\n");
    return 1;
  }
  (void)disassemble;  // -d is the only mode; the flag is accepted as with GNU objdump
  (void)noRawInsn;
  if (!triple.empty() && triple != "tpc") {
    std::fprintf(stderr, "tpc-objdump: --triple %s: expected tpc\n", tpc::quoteCString(triple).c_str());
    return 1;
  }
  if (!section.empty() && section != ".text") {
    std::fprintf(stderr, "tpc-objdump: -j %s: only .text can be disassembled\n", tpc::quoteCString(section).c_str());
    return 1;
  }
  try {
    tpc::obj::KernelObject o = tpc::obj::readObjectFile(input);
    if (!mcpu.empty() && mcpu != o.arch) {
      std::fprintf(stderr, "tpc-objdump: --mcpu=%s, but %s holds code for %s\n", tpc::quoteCString(mcpu).c_str(),
                   tpc::quoteCString(input).c_str(), o.arch.c_str());
      return 1;
    }
    tpc::assembler::DisassemblyOptions options;
    options.withSource = source;
    options.objectName = input;
    options.metadata = section.empty();
    options.addresses = !noLeadingAddr;
    std::string text = tpc::assembler::disassemble(o, options);
    std::fwrite(text.data(), 1, text.size(), stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
