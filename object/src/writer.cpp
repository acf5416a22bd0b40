// Serializes a KernelObject as an ELF64 relocatable file (layout: docs/object-format.md).
#include <elf.h>

#include "byte_io.h"

namespace tpc::obj {

namespace {

using detail::ByteWriter;

std::vector<uint8_t> encodeKernel(const KernelObject& obj) {
  ByteWriter w;
  w.raw(kKernelMagic, 4);
  w.u16(kKernelVersion);
  w.u16(0);  // flags, reserved
  w.str(obj.kernelName);
  w.str(obj.arch);
  w.u32(obj.scalarLocalBytes);
  w.u32(obj.vectorLocalBytes);
  w.u32(static_cast<uint32_t>(obj.params.size()));
  for (const Param& p : obj.params) {
    w.u8(static_cast<uint8_t>(p.kind));
    w.u8(static_cast<uint8_t>(p.scalarType));
    w.u16(0);  // reserved
    w.str(p.name);
  }
  return std::move(w.bytes());
}

std::vector<uint8_t> encodeDebugLine(const DebugInfo& d) {
  ByteWriter w;
  w.raw(kDebugLineMagic, 4);
  w.u16(kDebugLineVersion);
  w.u16(0);
  w.u32(static_cast<uint32_t>(d.files.size()));
  for (const std::string& f : d.files) w.str(f);
  w.u32(static_cast<uint32_t>(d.lines.size()));
  for (const LineEntry& l : d.lines) {
    w.u32(l.address);
    w.u32(l.file);
    w.u32(l.line);
    w.u32(l.column);
  }
  return std::move(w.bytes());
}

std::vector<uint8_t> encodePrintf(const std::vector<std::string>& formats) {
  ByteWriter w;
  w.raw(kPrintfMagic, 4);
  w.u16(kPrintfVersion);
  w.u16(0);
  w.u32(static_cast<uint32_t>(formats.size()));
  for (const std::string& f : formats) w.str(f);
  return std::move(w.bytes());
}

std::vector<uint8_t> encodeDebugVars(const DebugInfo& d) {
  ByteWriter w;
  w.raw(kDebugVarsMagic, 4);
  w.u16(kDebugVarsVersion);
  w.u16(0);
  w.u32(static_cast<uint32_t>(d.vars.size()));
  for (const VarLocation& v : d.vars) {
    w.u32(v.lowPc);
    w.u32(v.highPc);
    w.u8(v.regFile);
    w.u8(0);  // reserved
    w.u16(v.regIndex);
    w.i32(v.localOffset);
    w.str(v.name);
    w.str(v.typeName);
  }
  return std::move(w.bytes());
}

std::vector<uint8_t> encodeDebugIndex(const DebugInfo& d) {
  ByteWriter w;
  w.raw(kDebugIndexMagic, 4);
  w.u16(kDebugIndexVersion);
  w.u16(0);
  w.u32(static_cast<uint32_t>(d.indexVars.size()));
  for (const IndexSpaceVar& v : d.indexVars) {
    w.str(v.name);
    w.u32(v.scope);
    w.u8(v.dim);
    w.i32(v.scale);
  }
  return std::move(w.bytes());
}

std::vector<uint8_t> encodeDebugScopes(const DebugInfo& d) {
  ByteWriter w;
  w.raw(kDebugScopesMagic, 4);
  w.u16(kDebugScopesVersion);
  w.u16(0);
  w.u32(static_cast<uint32_t>(d.scopes.size()));
  for (const InlineScope& s : d.scopes) {
    w.str(s.function);
    w.u32(s.parent);
    w.u32(s.callFile);
    w.u32(s.callLine);
    w.u32(s.callColumn);
  }
  w.u32(static_cast<uint32_t>(d.scopeRanges.size()));
  for (const ScopeRange& r : d.scopeRanges) {
    w.u32(r.lowPc);
    w.u32(r.highPc);
    w.u32(r.scope);
  }
  w.u32(static_cast<uint32_t>(d.varScopes.size()));
  for (const VarScope& v : d.varScopes) {
    w.u32(v.scope);
    w.u8(v.isArgument ? 1 : 0);
  }
  return std::move(w.bytes());
}

struct OutSection {
  std::string_view name;
  uint32_t type = SHT_NULL;
  uint64_t flags = 0;
  uint64_t align = 1;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t entsize = 0;
  std::span<const uint8_t> data;
};

// "kernel '<name>'" with control bytes escaped, to prefix writer errors (there is no file yet).
std::string describeKernel(const std::string& name) {
  std::string out = "kernel '";
  for (char c : name.substr(0, 200)) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) out += fmt::format("\\x{:02x}", u);
    else out += c;
  }
  if (name.size() > 200) out += "...";
  return out + "'";
}

}  // namespace

std::vector<uint8_t> writeObject(const KernelObject& obj) {
  detail::validateObject(obj, describeKernel(obj.kernelName));

  const std::vector<uint8_t> kernel = encodeKernel(obj);
  const std::vector<uint8_t> debugLine =
      obj.debug.files.empty() && obj.debug.lines.empty() ? std::vector<uint8_t>{} : encodeDebugLine(obj.debug);
  const std::vector<uint8_t> debugVars =
      obj.debug.vars.empty() ? std::vector<uint8_t>{} : encodeDebugVars(obj.debug);

  // Section list; indices are fixed as sections are appended.
  std::vector<OutSection> sects;
  sects.push_back({});  // index 0: SHN_UNDEF
  const auto textIndex = static_cast<uint16_t>(sects.size());
  sects.push_back({kSectText, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, kBundleBytes, 0, 0, 0, obj.text});
  sects.push_back({kSectKernel, SHT_PROGBITS, 0, 4, 0, 0, 0, kernel});
  if (!obj.bitcode.empty()) sects.push_back({kSectBitcode, SHT_PROGBITS, 0, 4, 0, 0, 0, obj.bitcode});
  if (!debugLine.empty()) sects.push_back({kSectDebugLine, SHT_PROGBITS, 0, 4, 0, 0, 0, debugLine});
  if (!debugVars.empty()) sects.push_back({kSectDebugVars, SHT_PROGBITS, 0, 4, 0, 0, 0, debugVars});
  const std::vector<uint8_t> debugScopes =
      obj.debug.scopes.empty() ? std::vector<uint8_t>{} : encodeDebugScopes(obj.debug);
  if (!debugScopes.empty()) sects.push_back({kSectDebugScopes, SHT_PROGBITS, 0, 4, 0, 0, 0, debugScopes});
  const std::vector<uint8_t> debugIndex =
      obj.debug.indexVars.empty() ? std::vector<uint8_t>{} : encodeDebugIndex(obj.debug);
  if (!debugIndex.empty()) sects.push_back({kSectDebugIndex, SHT_PROGBITS, 0, 4, 0, 0, 0, debugIndex});
  const std::vector<uint8_t> printfTable = obj.printfFormats.empty() ? std::vector<uint8_t>{} : encodePrintf(obj.printfFormats);
  if (!printfTable.empty()) sects.push_back({kSectPrintf, SHT_PROGBITS, 0, 4, 0, 0, 0, printfTable});

  // .strtab: "\0<kernel>\0".
  std::vector<uint8_t> strtab(1, 0);
  strtab.insert(strtab.end(), obj.kernelName.begin(), obj.kernelName.end());
  strtab.push_back(0);

  // .symtab: null symbol, the .text section symbol (local), the entry symbol (global function).
  Elf64_Sym syms[3] = {};
  syms[1].st_info = ELF64_ST_INFO(STB_LOCAL, STT_SECTION);
  syms[1].st_shndx = textIndex;
  syms[2].st_name = 1;
  syms[2].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
  syms[2].st_other = STV_DEFAULT;
  syms[2].st_shndx = textIndex;
  syms[2].st_value = 0;
  syms[2].st_size = obj.text.size();
  std::span<const uint8_t> symBytes(reinterpret_cast<const uint8_t*>(syms), sizeof(syms));

  const auto strtabIndex = static_cast<uint32_t>(sects.size() + 1);
  sects.push_back({kSectSymtab, SHT_SYMTAB, 0, 8, strtabIndex, 2, sizeof(Elf64_Sym), symBytes});
  sects.push_back({kSectStrtab, SHT_STRTAB, 0, 1, 0, 0, 0, strtab});

  // .shstrtab comes last; its own name is in it.
  std::vector<uint8_t> shstrtab(1, 0);
  std::vector<uint32_t> nameOffsets(sects.size() + 1, 0);
  auto addName = [&](std::string_view n) {
    auto off = static_cast<uint32_t>(shstrtab.size());
    shstrtab.insert(shstrtab.end(), n.begin(), n.end());
    shstrtab.push_back(0);
    return off;
  };
  for (size_t i = 1; i < sects.size(); ++i) nameOffsets[i] = addName(sects[i].name);
  nameOffsets[sects.size()] = addName(kSectShstrtab);
  const auto shstrndx = static_cast<uint16_t>(sects.size());
  sects.push_back({kSectShstrtab, SHT_STRTAB, 0, 1, 0, 0, 0, shstrtab});

  // Lay out: ELF header, section contents in index order (each aligned), section header table.
  ByteWriter w;
  w.bytes().resize(sizeof(Elf64_Ehdr));
  std::vector<Elf64_Shdr> shdrs(sects.size());
  for (size_t i = 1; i < sects.size(); ++i) {
    const OutSection& s = sects[i];
    w.padTo(s.align);
    Elf64_Shdr& h = shdrs[i];
    h.sh_name = nameOffsets[i];
    h.sh_type = s.type;
    h.sh_flags = s.flags;
    h.sh_addr = 0;
    h.sh_offset = w.size();
    h.sh_size = s.data.size();
    h.sh_link = s.link;
    h.sh_info = s.info;
    h.sh_addralign = s.align;
    h.sh_entsize = s.entsize;
    w.raw(s.data);
  }
  w.padTo(8);
  const uint64_t shoff = w.size();
  w.raw(shdrs.data(), shdrs.size() * sizeof(Elf64_Shdr));

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
  eh.e_ident[EI_ABIVERSION] = 0;
  eh.e_type = ET_REL;
  eh.e_machine = kElfMachine;
  eh.e_version = EV_CURRENT;
  eh.e_entry = 0;
  eh.e_phoff = 0;
  eh.e_shoff = shoff;
  eh.e_flags = 0;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = 0;
  eh.e_phnum = 0;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<uint16_t>(shdrs.size());
  eh.e_shstrndx = shstrndx;
  std::memcpy(w.bytes().data(), &eh, sizeof(eh));
  return std::move(w.bytes());
}

}  // namespace tpc::obj
