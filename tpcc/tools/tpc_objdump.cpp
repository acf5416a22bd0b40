// tpc-objdump: prints a kernel object's metadata and code, one bundle per line with all four slots.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tpc/asm/assembler.h"
#include "tpc/isa/isa_doc.h"
#include "tpc/object/kernel_object.h"

int main(int argc, char** argv) {
  CLI::App app{"tpc-objdump: disassemble a TPC kernel object; the output reassembles with tpc-as"};
  std::string input;
  bool disassemble = false, source = false;
  bool isaTable = false;
  auto* inputOpt = app.add_option("input", input, "kernel object (FILE.o)");
  app.add_flag("--isa-table", isaTable, "print the instruction table (Markdown) and exit");
  app.add_flag("-d,--disassemble", disassemble, "disassemble the code (the default)");
  app.add_flag("-S,--source", source, "interleave source lines (needs an object compiled with -g)");
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
  try {
    tpc::obj::KernelObject o = tpc::obj::readObjectFile(input);
    tpc::assembler::DisassemblyOptions options;
    options.withSource = source;
    options.objectName = input;
    std::string text = tpc::assembler::disassemble(o, options);
    std::fwrite(text.data(), 1, text.size(), stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
