// tpc-clang: compiles a TPC-C kernel into a kernel object (-c), our assembly (-S) or LLVM IR
// (-emit-llvm -S). Errors print as FILE:LINE:COL: error: MESSAGE, exit with status 1 and leave no output.
#include <cstdio>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Support/raw_ostream.h>

#include "tpc/asm/assembler.h"
#include "tpc/cc/codegen.h"
#include "tpc/cc/frontend.h"
#include "tpc/isa/intrinsics.h"
#include "tpc/isa/legacy_aliases.h"
#include "tpc/object/kernel_object.h"
#include "tpc/support/atomic_file.h"

#include "batch.h"

namespace {

// Clang-style single-dash long options become CLI11's double-dash form. Warning options (-Wall, -Werror,
// -Wno-NAME, -Werror=NAME, -w) go to Clang unchanged, in order, and are taken out here.
std::vector<std::string> normalizeArguments(const std::vector<std::string>& arguments,
                                            std::vector<std::string>* warnings) {
  std::vector<std::string> out;
  for (std::string a : arguments) {
    if ((a.rfind("-W", 0) == 0 && a.size() > 2) || a == "-w") {
      warnings->push_back(a);
      continue;
    }
    for (const char* longOpt : {"-march=", "-emit-llvm", "-std=", "-list-intrinsics", "-print-mir", "-print-header"})
      if (a.rfind(longOpt, 0) == 0) a = "-" + a;
    out.push_back(a);
  }
  return out;
}

// `-o -` writes text (assembly, IR) to standard output, as clang does.
void writeText(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  tpc::writeFileAtomically(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

// One invocation's work: a compile, or a listing (--list-intrinsics, --print-header).
int runCompiler(const std::vector<std::string>& arguments) {
  CLI::App app{"tpc-clang: the TPC-C compiler (C99 by default, -x c++ for C++)"};
  std::string input, output, march = "gaudi2", language = "c", std, header;
  int optLevel = 2;
  bool compileOnly = false, assembly = false, emitLlvm = false, debug = false, listIntrinsics = false,
       printMir = false;
  std::vector<std::string> includes, defines, warnings;
  app.add_option("input", input, "TPC-C source file");
  app.add_option("-o", output, "output file");
  app.add_flag("-c", compileOnly, "compile to a kernel object (the default)");
  app.add_flag("-S", assembly, "write assembly (or LLVM IR with -emit-llvm) instead of an object");
  app.add_flag("--emit-llvm", emitLlvm, "with -S: write the LLVM IR that enters the backend");
  app.add_flag("-g", debug, "emit a line table for the debugger and tpc-objdump -S");
  app.add_option("-O", optLevel, "optimization level 0-3 (default 2)")->check(CLI::Range(0, 3));
  app.add_option("--march", march, "gaudi, gaudi2 (default) or gaudi3")->check(CLI::IsMember({"gaudi", "gaudi2", "gaudi3"}));
  // One value per -I and -D, so that `-I DIR FILE.c` leaves FILE.c as the input.
  app.add_option("-I", includes, "add an include directory")->allow_extra_args(false);
  app.add_option("-D", defines, "define a macro: NAME or NAME=VALUE")->allow_extra_args(false);
  app.add_option("-x", language, "source language: c (C99) or c++")->check(CLI::IsMember({"c", "c++"}));
  app.add_option("--std", std, "accepted for compatibility (rc99, c99, c++17, ...)");
  app.add_flag("--list-intrinsics", listIntrinsics, "print the supported intrinsics with their signatures");
  app.add_option("--print-header", header, "print an implicit header (tpc-defs.h, tpc-intrinsics.h, tpc-special.h, tpc-legacy-aliases.h)");
  app.add_flag("--print-mir", printMir, "print the backend's machine IR to stderr");
  std::string batchUsage;  // only for --help: main() takes --batch before this parser sees it
  app.add_option("--batch", batchUsage,
                 "compile every line of FILE (one compile per line, its arguments separated by tabs) in one "
                 "invocation; must be the only option");
  std::vector<std::string> args = normalizeArguments(arguments, &warnings);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }

  if (!batchUsage.empty()) {
    std::fprintf(stderr, "tpc-clang: error: --batch FILE must be the only arguments\n");
    return 1;
  }
  if (listIntrinsics) {
    for (const tpc::isa::IntrinsicInfo& in : tpc::isa::allIntrinsics()) {
      if (in.name.rfind("__", 0) == 0) continue;  // our own helpers for tpc-special.h, not the public set
      std::string params;
      for (const auto& p : in.params)
        params += fmt::format("{}{} {}{}", params.empty() ? "" : ", ", p.type, p.name,
                              p.defaultValue ? "=" + *p.defaultValue : "");
      std::printf("%s %s(%s);\n", in.returnType.c_str(), in.name.c_str(), params.c_str());
    }
    return 0;
  }
  if (!header.empty()) {
    std::string text = tpc::cc::implicitHeader(header, march);
    if (text.empty()) {
      std::fprintf(stderr, "tpc-clang: unknown implicit header '%s'\n", header.c_str());
      return 1;
    }
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  if (input.empty()) {
    std::fprintf(stderr, "tpc-clang: error: no input file\n");
    return 1;
  }
  if (!std::filesystem::exists(input)) {
    std::fprintf(stderr, "tpc-clang: error: no such file or directory: '%s'\n", input.c_str());
    return 1;
  }
  if (output.empty()) {
    std::filesystem::path p(input);
    output = p.stem().string() + (assembly ? (emitLlvm ? ".ll" : ".s") : ".o");
  }

  if (output == "-" && !assembly) {
    std::fprintf(stderr, "tpc-clang: error: -o -: an object cannot be written to standard output (use -S)\n");
    return 1;
  }

  llvm::LLVMContext context;
  tpc::cc::FrontendOptions fo;
  fo.input = input;
  fo.arch = march;
  fo.cplusplus = language == "c++";
  fo.debugInfo = debug;
  fo.includeDirs = includes;
  fo.defines = defines;
  fo.warnings = warnings;
  tpc::cc::FrontendResult fr = tpc::cc::compileSource(fo, context);
  if (!fr.module) return 1;

  try {
    // The front end's IR is kept: when unrolled code needs more registers than the core has, the
    // backend starts again with less unrolling.
    std::unique_ptr<llvm::Module> pristine = llvm::CloneModule(*fr.module);
    // Each attempt: the unroll count, and whether it may give up modulo scheduling to fit the registers.
    // Eight copies are worth it only overlapped: flat, four overlapped copies run faster.
    // Constant coordinate steps are first held in registers through loop nests, then (where that leaves
    // too few) made where they are used, before any unrolling is given up.
    struct Attempt {
      int unroll;
      bool flat;
      bool coordinateIvs;  // false: coordinates computed where used, no index register held through loops
      bool hoistSteps;
    };
    const Attempt attempts[] = {{16, true, true, true}, {16, true, true, false}, {8, false, true, false},
                                {4, true, true, false}, {1, true, true, false},  {1, true, false, false}};
    size_t attempt = 0;
    tpc::cc::optimizeModule(*fr.module, fr.signature, optLevel, attempts[attempt].unroll);
    if (assembly && emitLlvm) {
      std::string text;
      llvm::raw_string_ostream os(text);
      fr.module->print(os, nullptr);
      writeText(output, text);
      return 0;
    }
    tpc::cc::CodegenOptions co;
    co.arch = march;
    co.debugInfo = debug;
    co.sourceName = input;
    co.printMir = printMir;
    co.mergeStraightBlocks = optLevel > 0;
    tpc::obj::KernelObject object;
    for (;;) {
      try {
        // Less unrolling is better than spilling; spill only when no unrolling is left.
        co.allowSpill = optLevel == 0 || attempt + 1 == std::size(attempts);
        co.flatWhenOutOfRegisters = attempts[attempt].flat;
        object = tpc::cc::generateObject(*fr.module, fr.signature, co);
        break;
      } catch (const tpc::cc::CodegenError& e) {
        if (!e.outOfRegisters || optLevel == 0 || ++attempt == std::size(attempts)) throw;
        if (std::getenv("TPC_DEBUG_RETRY"))
          std::fprintf(stderr, "tpc-clang: %s; unrolling %d times%s%s instead\n", e.what(), attempts[attempt].unroll,
                       attempts[attempt].coordinateIvs ? "" : ", without coordinate induction variables",
                       attempts[attempt].hoistSteps ? "" : ", steps made where used");
        fr.module = llvm::CloneModule(*pristine);
        tpc::cc::optimizeModule(*fr.module, fr.signature, optLevel, attempts[attempt].unroll,
                                attempts[attempt].coordinateIvs, attempts[attempt].hoistSteps);
      }
    }
    if (assembly) {
      tpc::assembler::DisassemblyOptions d;
      d.objectName = input;
      writeText(output, tpc::assembler::disassemble(object, d));
    } else {
      tpc::obj::writeObjectFile(output, object);
    }
  } catch (const tpc::cc::CodegenError& e) {
    if (e.loc.line)
      std::fprintf(stderr, "%s:%u:%u: error: %s\n", input.c_str(), e.loc.line, e.loc.column, e.what());
    else
      std::fprintf(stderr, "%s:1:1: error: %s\n", input.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpc-clang: error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> arguments(argv + 1, argv + argc);
  if (!arguments.empty() && (arguments[0] == "--batch" || arguments[0] == "-batch")) {
    if (arguments.size() != 2) {
      std::fprintf(stderr, "tpc-clang: error: --batch FILE must be the only arguments\n");
      return 1;
    }
    // Built once here, shared by every compile of the batch: the ISA's tables and the expanded aliases with
    // their index by name (generating an empty selection builds both).
    tpc::isa::allIntrinsics();
    std::unordered_set<std::string> noNames;
    tpc::isa::generateLegacyAliasesHeader(&noNames);
    return tpc::cc::runBatch(arguments[1], runCompiler);
  }
  return runCompiler(arguments);
}
