#include <fstream>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "tpc/asm/assembler.h"
#include "tpc/isa/asm_text.h"
#include "tpc/support/text.h"

namespace tpc::assembler {

namespace {

// Source lines of the files named by the debug info, read on demand; a missing file shows no text.
class SourceCache {
 public:
  std::string line(const std::string& file, uint32_t number) {
    auto it = files_.find(file);
    if (it == files_.end()) {
      std::vector<std::string> lines;
      std::ifstream in(file);
      for (std::string l; std::getline(in, l);) lines.push_back(l);
      it = files_.emplace(file, std::move(lines)).first;
    }
    if (number == 0 || number > it->second.size()) return {};
    return it->second[number - 1];
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

}  // namespace

std::string disassemble(const obj::KernelObject& o, const DisassemblyOptions& options) {
  std::string out;
  if (options.metadata) {
    out += fmt::format("// {}: TPC kernel object, {} bundles\n",
                       options.objectName.empty() ? "<memory>" : options.objectName, o.text.size() / isa::kBundleBytes);
    out += fmt::format(".kernel {}\n.arch {}\n", o.kernelName, o.arch);
    for (const obj::Param& p : o.params)
      out += fmt::format(".param {} {}\n", p.kind == obj::ParamKind::Tensor ? "tensor" : dtypeName(p.scalarType), p.name);
    out += fmt::format(".scalar_local {}\n.vector_local {}\n", o.scalarLocalBytes, o.vectorLocalBytes);
    for (const std::string& f : o.printfFormats) out += ".printf_format " + quoteCString(f) + "\n";
    if (options.withSource)
      for (const obj::VarLocation& v : o.debug.vars) {
        // Local memory (a spill slot or a __local__ variable) or a register.
        std::string where = v.regFile == obj::kLocNone          ? std::string("none")
                            : v.regFile == obj::kLocScalarLocal ? fmt::format("slm[0x{:x}]", v.localOffset)
                            : v.regFile == obj::kLocVectorLocal ? fmt::format("vlm[0x{:x}]", v.localOffset)
                                                                : fmt::format("{}{}", isa::regFilePrefix(static_cast<isa::RegFile>(v.regFile)), v.regIndex);
        out += fmt::format("// variable {} ({}): {} in [0x{:x}, 0x{:x})\n", v.name, v.typeName.empty() ? "?" : v.typeName,
                           where, v.lowPc, v.highPc);
      }
    if (options.withSource)
      for (const obj::IndexSpaceVar& v : o.debug.indexVars)
        out += fmt::format("// index-space dimension {}: {} / {}{}\n", v.dim, v.name, v.scale,
                           v.scope ? fmt::format(" (scope {})", v.scope) : "");
    out += fmt::format("{}:\n", o.kernelName);
  }

  std::map<uint32_t, const obj::LineEntry*> lineAt;
  if (options.withSource)
    for (const obj::LineEntry& e : o.debug.lines) lineAt[e.address] = &e;
  SourceCache sources;
  const obj::LineEntry* last = nullptr;

  for (size_t off = 0; off + isa::kBundleBytes <= o.text.size(); off += isa::kBundleBytes) {
    auto it = lineAt.find(static_cast<uint32_t>(off));
    if (it != lineAt.end()) {
      const obj::LineEntry* e = it->second;
      if (!last || last->file != e->file || last->line != e->line) {
        std::string file = e->file < o.debug.files.size() ? o.debug.files[e->file] : "?";
        out += fmt::format("// {}:{}: {}\n", file, e->line, sources.line(file, e->line));
      }
      last = e;
    }
    isa::Bundle b;
    std::string why;
    if (isa::decodeBundle(o.text.data() + off, &b, &why))
      out += options.addresses ? fmt::format("0x{:04x}:  {}\n", off, isa::formatBundle(b))
                               : fmt::format("{}\n", isa::formatBundle(b));
    else
      out += fmt::format("// 0x{:04x}: undecodable bundle: {}\n", off, why);
  }
  return out;
}

}  // namespace tpc::assembler
