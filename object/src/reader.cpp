// Parses and validates a TPC kernel object. Every offset, size and count read from the file is
// checked before it is used; nothing is read outside the input span.
#include <elf.h>

#include <optional>

#include "byte_io.h"

namespace tpc::obj {

namespace {

using detail::ByteReader;

struct Section {
  std::string name;
  Elf64_Shdr hdr;
  std::span<const uint8_t> data;  // empty for SHT_NOBITS
};

class ElfReader {
 public:
  ElfReader(std::span<const uint8_t> bytes, const std::string& file) : bytes_(bytes), file_(file) {}

  [[noreturn]] void fail(const std::string& what) const { throw ObjectError(file_, what); }

  // True when [off, off+size) lies inside the file (overflow-safe).
  bool inFile(uint64_t off, uint64_t size) const {
    return off <= bytes_.size() && size <= bytes_.size() - off;
  }

  void parse() {
    if (bytes_.size() < SELFMAG || std::memcmp(bytes_.data(), ELFMAG, SELFMAG) != 0)
      fail("not an ELF file");
    if (bytes_.size() < sizeof(Elf64_Ehdr))
      fail(fmt::format("truncated: ELF header needs {} bytes, file size {}", sizeof(Elf64_Ehdr),
                       bytes_.size()));
    Elf64_Ehdr eh;
    std::memcpy(&eh, bytes_.data(), sizeof(eh));
    if (eh.e_ident[EI_CLASS] != ELFCLASS64)
      fail(fmt::format("not a 64-bit ELF file (EI_CLASS {})", eh.e_ident[EI_CLASS]));
    if (eh.e_ident[EI_DATA] != ELFDATA2LSB)
      fail(fmt::format("not a little-endian ELF file (EI_DATA {})", eh.e_ident[EI_DATA]));
    if (eh.e_ident[EI_VERSION] != EV_CURRENT || eh.e_version != EV_CURRENT)
      fail(fmt::format("unsupported ELF version {}", eh.e_version));
    if (eh.e_type != ET_REL)
      fail(fmt::format("not a relocatable object (e_type {}, expected {} = ET_REL)", eh.e_type, ET_REL));
    if (eh.e_machine != kElfMachine)
      fail(fmt::format("not a TPC object (e_machine {}, expected {})", eh.e_machine,
                       kElfMachine));
    if (eh.e_ehsize != sizeof(Elf64_Ehdr))
      fail(fmt::format("bad ELF header size {} (expected {})", eh.e_ehsize, sizeof(Elf64_Ehdr)));
    if (eh.e_shoff == 0 || eh.e_shnum == 0) fail("no section header table");
    if (eh.e_shentsize != sizeof(Elf64_Shdr))
      fail(fmt::format("bad section header entry size {} (expected {})", eh.e_shentsize,
                       sizeof(Elf64_Shdr)));
    const uint64_t tableSize = uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr);
    if (!inFile(eh.e_shoff, tableSize))
      fail(fmt::format("truncated: section header table extends past end of file (offset {}, size {}, "
                       "file size {})",
                       eh.e_shoff, tableSize, bytes_.size()));
    if (eh.e_shstrndx == SHN_UNDEF || eh.e_shstrndx >= eh.e_shnum)
      fail(fmt::format("bad section name table index {} ({} sections)", eh.e_shstrndx, eh.e_shnum));

    sections_.resize(eh.e_shnum);
    for (size_t i = 0; i < sections_.size(); ++i)
      std::memcpy(&sections_[i].hdr, bytes_.data() + eh.e_shoff + i * sizeof(Elf64_Shdr),
                  sizeof(Elf64_Shdr));

    // Section contents must lie inside the file. The name table is checked first so that later
    // messages can name sections.
    auto contents = [&](size_t i, const std::string& label) {
      const Elf64_Shdr& h = sections_[i].hdr;
      if (h.sh_type == SHT_NOBITS || h.sh_type == SHT_NULL) return std::span<const uint8_t>{};
      if (!inFile(h.sh_offset, h.sh_size))
        fail(fmt::format("truncated: section {} extends past end of file (offset {}, size {}, file size "
                         "{})",
                         label, h.sh_offset, h.sh_size, bytes_.size()));
      return bytes_.subspan(h.sh_offset, h.sh_size);
    };
    Section& names = sections_[eh.e_shstrndx];
    if (names.hdr.sh_type != SHT_STRTAB)
      fail(fmt::format("section name table (section {}) has type {}, expected SHT_STRTAB", eh.e_shstrndx,
                       names.hdr.sh_type));
    names.data = contents(eh.e_shstrndx, fmt::format("{} (section name table)", eh.e_shstrndx));
    checkStringTable(names.data, "section name table");

    for (size_t i = 0; i < sections_.size(); ++i) {
      Section& s = sections_[i];
      if (i == 0) continue;  // SHN_UNDEF has no name or contents
      if (s.hdr.sh_name >= names.data.size())
        fail(fmt::format("section {}: name offset {} is outside the section name table (size {})", i,
                         s.hdr.sh_name, names.data.size()));
      s.name = reinterpret_cast<const char*>(names.data.data() + s.hdr.sh_name);  // NUL-terminated
      s.data = contents(i, fmt::format("'{}'", s.name));
    }
  }

  // The last byte of a non-empty string table must be NUL, so every string in it terminates.
  void checkStringTable(std::span<const uint8_t> t, std::string_view what) const {
    if (t.empty()) fail(fmt::format("{} is empty", what));
    if (t.back() != 0) fail(fmt::format("{} is not NUL-terminated", what));
  }

  // The unique section with this name, or nullptr; checks its type.
  const Section* find(std::string_view name, uint32_t type) const {
    const Section* found = nullptr;
    size_t foundIndex = 0;
    for (size_t i = 1; i < sections_.size(); ++i) {
      if (sections_[i].name != name) continue;
      if (found) fail(fmt::format("duplicate section '{}' (sections {} and {})", name, foundIndex, i));
      found = &sections_[i];
      foundIndex = i;
    }
    if (found && found->hdr.sh_type != type)
      fail(fmt::format("section '{}' has type {}, expected {}", name, found->hdr.sh_type, type));
    return found;
  }
  size_t indexOf(const Section* s) const { return static_cast<size_t>(s - sections_.data()); }
  const std::vector<Section>& sections() const { return sections_; }
  const std::string& file() const { return file_; }

 private:
  std::span<const uint8_t> bytes_;
  const std::string& file_;
  std::vector<Section> sections_;
};

void readKernel(const Section& s, const std::string& file, KernelObject& obj) {
  ByteReader r(s.data, file, kSectKernel);
  r.sectionHeader(kKernelMagic, kKernelVersion);
  obj.kernelName = r.str("kernel name");
  obj.arch = r.str("architecture");
  obj.scalarLocalBytes = r.u32("scalar local size");
  obj.vectorLocalBytes = r.u32("vector local size");
  uint32_t n = r.count("parameter count", 8);
  obj.params.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    Param p;
    uint8_t kind = r.u8("parameter kind");
    uint8_t type = r.u8("parameter type");
    if (uint16_t reserved = r.u16("parameter reserved"); reserved != 0)
      r.fail(fmt::format("parameter {}: reserved field is {:#x}, expected 0", i, reserved));
    p.name = r.str("parameter name");
    if (kind > static_cast<uint8_t>(ParamKind::Scalar))
      r.fail(fmt::format("parameter {} ('{}'): kind {} is out of range (0 = tensor, 1 = scalar)", i,
                         p.name, kind));
    if (type >= kNumDTypes)
      r.fail(fmt::format("parameter {} ('{}'): scalar type {} is out of range (0..{})", i, p.name, type,
                         kNumDTypes - 1));
    p.kind = static_cast<ParamKind>(kind);
    p.scalarType = static_cast<DType>(type);
    obj.params.push_back(std::move(p));
  }
  r.expectEnd();
}

void readDebugLine(const Section& s, const std::string& file, DebugInfo& d) {
  ByteReader r(s.data, file, kSectDebugLine);
  r.sectionHeader(kDebugLineMagic, kDebugLineVersion);
  uint32_t nFiles = r.count("file count", 4);
  d.files.reserve(nFiles);
  for (uint32_t i = 0; i < nFiles; ++i) d.files.push_back(r.str("file name"));
  uint32_t nLines = r.count("line entry count", 16);
  d.lines.reserve(nLines);
  for (uint32_t i = 0; i < nLines; ++i) {
    LineEntry l;
    l.address = r.u32("line address");
    l.file = r.u32("line file");
    l.line = r.u32("line number");
    l.column = r.u32("line column");
    d.lines.push_back(l);
  }
  r.expectEnd();
}

void readPrintf(const Section& s, const std::string& file, std::vector<std::string>& formats) {
  ByteReader r(s.data, file, kSectPrintf);
  r.sectionHeader(kPrintfMagic, kPrintfVersion);
  uint32_t n = r.count("format count", 4);
  formats.reserve(n);
  for (uint32_t i = 0; i < n; ++i) formats.push_back(r.str("format string"));
  r.expectEnd();
}

void readDebugVars(const Section& s, const std::string& file, DebugInfo& d) {
  ByteReader r(s.data, file, kSectDebugVars);
  r.sectionHeader(kDebugVarsMagic, kDebugVarsVersion);
  uint32_t n = r.count("variable count", 24);
  d.vars.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    VarLocation v;
    v.lowPc = r.u32("variable low pc");
    v.highPc = r.u32("variable high pc");
    v.regFile = r.u8("variable register file");
    if (uint8_t reserved = r.u8("variable reserved"); reserved != 0)
      r.fail(fmt::format("variable {}: reserved byte is {:#x}, expected 0", i, reserved));
    v.regIndex = r.u16("variable register index");
    v.localOffset = r.i32("variable local offset");
    v.name = r.str("variable name");
    v.typeName = r.str("variable type name");
    d.vars.push_back(std::move(v));
  }
  r.expectEnd();
}

void readDebugScopes(const Section& s, const std::string& file, DebugInfo& d) {
  ByteReader r(s.data, file, kSectDebugScopes);
  r.sectionHeader(kDebugScopesMagic, kDebugScopesVersion);
  uint32_t nScopes = r.count("scope count", 20);
  d.scopes.reserve(nScopes);
  for (uint32_t i = 0; i < nScopes; ++i) {
    InlineScope sc;
    sc.function = r.str("scope function name");
    sc.parent = r.u32("scope parent");
    sc.callFile = r.u32("scope call file");
    sc.callLine = r.u32("scope call line");
    sc.callColumn = r.u32("scope call column");
    d.scopes.push_back(std::move(sc));
  }
  uint32_t nRanges = r.count("scope range count", 12);
  d.scopeRanges.reserve(nRanges);
  for (uint32_t i = 0; i < nRanges; ++i) {
    ScopeRange sr;
    sr.lowPc = r.u32("scope range low pc");
    sr.highPc = r.u32("scope range high pc");
    sr.scope = r.u32("scope range scope");
    d.scopeRanges.push_back(sr);
  }
  uint32_t nVars = r.count("variable scope count", 5);
  d.varScopes.reserve(nVars);
  for (uint32_t i = 0; i < nVars; ++i) {
    VarScope v;
    v.scope = r.u32("variable scope");
    uint8_t flags = r.u8("variable flags");
    if (flags > 1) r.fail(fmt::format("variable scope {}: flags {:#x}, expected 0 or 1", i, flags));
    v.isArgument = flags != 0;
    d.varScopes.push_back(v);
  }
  r.expectEnd();
}

void readDebugIndex(const Section& s, const std::string& file, DebugInfo& d) {
  ByteReader r(s.data, file, kSectDebugIndex);
  r.sectionHeader(kDebugIndexMagic, kDebugIndexVersion);
  uint32_t n = r.count("index-space variable count", 13);
  d.indexVars.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    IndexSpaceVar v;
    v.name = r.str("index-space variable name");
    v.scope = r.u32("index-space variable scope");
    v.dim = r.u8("index-space variable dimension");
    v.scale = r.i32("index-space variable scale");
    d.indexVars.push_back(std::move(v));
  }
  r.expectEnd();
}

// The entry symbol must be a function covering all of .text.
void checkSymtab(const ElfReader& elf, const Section& symtab, size_t textIndex, const KernelObject& obj) {
  const auto& sects = elf.sections();
  const Elf64_Shdr& h = symtab.hdr;
  if (h.sh_entsize != sizeof(Elf64_Sym))
    elf.fail(fmt::format("section '.symtab' has entry size {}, expected {}", h.sh_entsize, sizeof(Elf64_Sym)));
  if (symtab.data.size() % sizeof(Elf64_Sym) != 0)
    elf.fail(fmt::format("section '.symtab' size {} is not a multiple of {}", symtab.data.size(),
                         sizeof(Elf64_Sym)));
  if (h.sh_link == 0 || h.sh_link >= sects.size() || sects[h.sh_link].hdr.sh_type != SHT_STRTAB)
    elf.fail(fmt::format("section '.symtab' links to section {}, which is not a string table", h.sh_link));
  std::span<const uint8_t> strtab = sects[h.sh_link].data;
  elf.checkStringTable(strtab, fmt::format("symbol string table '{}'", sects[h.sh_link].name));

  const size_t n = symtab.data.size() / sizeof(Elf64_Sym);
  for (size_t i = 0; i < n; ++i) {
    Elf64_Sym sym;
    std::memcpy(&sym, symtab.data.data() + i * sizeof(Elf64_Sym), sizeof(sym));
    if (sym.st_name >= strtab.size())
      elf.fail(fmt::format("symbol {}: name offset {} is outside the string table (size {})", i,
                           sym.st_name, strtab.size()));
    std::string_view name(reinterpret_cast<const char*>(strtab.data() + sym.st_name));
    if (i == 0 || name != obj.kernelName) continue;
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC)
      elf.fail(fmt::format("entry symbol '{}' has type {}, expected STT_FUNC", name,
                           ELF64_ST_TYPE(sym.st_info)));
    if (sym.st_shndx != textIndex)
      elf.fail(fmt::format("entry symbol '{}' is in section {}, expected .text (section {})", name,
                           sym.st_shndx, textIndex));
    if (sym.st_value != 0 || sym.st_size != obj.text.size())
      elf.fail(fmt::format("entry symbol '{}' covers [{}, +{}), expected [0, +{}) (all of .text)", name,
                           sym.st_value, sym.st_size, obj.text.size()));
    return;
  }
  elf.fail(fmt::format("entry symbol '{}' not found in '.symtab'", obj.kernelName));
}

}  // namespace

KernelObject readObject(std::span<const uint8_t> bytes, const std::string& nameForErrors) {
  const std::string& file = nameForErrors;
  ElfReader elf(bytes, file);
  elf.parse();

  const Section* text = elf.find(kSectText, SHT_PROGBITS);
  if (!text) elf.fail(fmt::format("missing section '{}'", kSectText));
  const Section* kernel = elf.find(kSectKernel, SHT_PROGBITS);
  if (!kernel) elf.fail(fmt::format("missing section '{}'", kSectKernel));
  const Section* bitcode = elf.find(kSectBitcode, SHT_PROGBITS);
  const Section* debugLine = elf.find(kSectDebugLine, SHT_PROGBITS);
  const Section* debugVars = elf.find(kSectDebugVars, SHT_PROGBITS);
  const Section* printfTable = elf.find(kSectPrintf, SHT_PROGBITS);
  const Section* debugScopes = elf.find(kSectDebugScopes, SHT_PROGBITS);
  const Section* debugIndex = elf.find(kSectDebugIndex, SHT_PROGBITS);
  const Section* symtab = elf.find(kSectSymtab, SHT_SYMTAB);

  if (text->data.size() % kBundleBytes != 0)
    elf.fail(fmt::format("section '.text' size {} is not a multiple of the {}-byte bundle size",
                         text->data.size(), kBundleBytes));

  KernelObject obj;
  obj.text.assign(text->data.begin(), text->data.end());
  readKernel(*kernel, file, obj);
  if (bitcode) obj.bitcode.assign(bitcode->data.begin(), bitcode->data.end());
  if (debugLine) readDebugLine(*debugLine, file, obj.debug);
  if (debugVars) readDebugVars(*debugVars, file, obj.debug);
  if (printfTable) readPrintf(*printfTable, file, obj.printfFormats);
  if (debugScopes) readDebugScopes(*debugScopes, file, obj.debug);
  if (debugIndex) readDebugIndex(*debugIndex, file, obj.debug);

  // Semantic checks shared with the writer (name, arch, types, debug ranges against .text).
  detail::validateObject(obj, file);
  if (symtab) checkSymtab(elf, *symtab, elf.indexOf(text), obj);
  return obj;
}

}  // namespace tpc::obj
