// tpc-as: assembles the text tpc-objdump -d prints (and tpc-clang -S writes) into a kernel object.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "tpc/asm/assembler.h"
#include "tpc/object/kernel_object.h"
#include "tpc/support/atomic_file.h"
#include "tpc/support/error.h"

int main(int argc, char** argv) {
  CLI::App app{"tpc-as: assemble TPC assembly (the syntax tpc-objdump -d prints) into a kernel object"};
  std::string input, output;
  app.add_option("input", input, "assembly file (FILE.s)")->required();
  app.add_option("-o", output, "output object file (FILE.o)")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // usage errors exit with status 1, as every tool of the SDK
  }
  try {
    auto bytes = tpc::readFileBytes(input);
    std::string text(bytes.begin(), bytes.end());
    tpc::obj::KernelObject o = tpc::assembler::assemble(text, input);
    tpc::obj::writeObjectFile(output, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
