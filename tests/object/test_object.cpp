// Tests of libtpcobject: round trips, an independent check of the ELF bytes, binutils compatibility,
// and robustness of the reader against truncated, corrupted and hand-broken files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <sys/wait.h>

#include "tpc/object/kernel_object.h"

namespace fs = std::filesystem;
using namespace tpc::obj;
using tpc::DType;

namespace {

// ---------------------------------------------------------------------------------------------------
// Sample objects

std::vector<uint8_t> bundles(size_t n, uint8_t seed) {
  std::vector<uint8_t> t(n * 64);
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 6));
  return t;
}

KernelObject fullObject() {
  KernelObject o;
  o.kernelName = "softmax_fwd_f32";
  o.arch = "gaudi3";
  o.params = {{"ifm", ParamKind::Tensor},
              {"ofm", ParamKind::Tensor},
              {"alpha", ParamKind::Scalar, DType::F32},
              {"count", ParamKind::Scalar, DType::I32},
              {"mask", ParamKind::Scalar, DType::U8},
              {"scale", ParamKind::Scalar, DType::BF16}};
  o.scalarLocalBytes = 1024;
  o.vectorLocalBytes = 80 * 1024;
  o.text = bundles(10, 3);  // 640 bytes
  o.bitcode = {'B', 'C', 0xC0, 0xDE, 1, 2, 3, 4, 5, 6, 7};
  o.printfFormats = {"hello\n", "value %d\n", ""};
  o.debug.files = {"softmax.c", "include/tpc_helpers.h"};
  o.debug.lines = {{0, 0, 10, 3}, {64, 0, 11, 5}, {128, 1, 200, 1}, {576, 0, 42, 9}};
  o.debug.vars = {{"i", 0, 640, 2, 5, 0, "int"},
                  {"acc", 64, 512, 1, 12, 0, "float64"},
                  {"tmp", 128, 192, 7, 0, -16, "int5"}};
  return o;
}

KernelObject minimalObject() {
  KernelObject o;
  o.text = bundles(1, 9);
  return o;
}

// ---------------------------------------------------------------------------------------------------
// A separate, minimal ELF64 parser that reads fields at their offsets from the ELF specification
// (it does not use <elf.h> or the library), to check the writer independently.

uint64_t le(const std::vector<uint8_t>& b, size_t off, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{b.at(off + i)} << (8 * i);
  return v;
}
void putLe(std::vector<uint8_t>& b, size_t off, size_t n, uint64_t v) {
  for (size_t i = 0; i < n; ++i) b.at(off + i) = static_cast<uint8_t>(v >> (8 * i));
}

struct RawSect {
  std::string name;
  size_t hdrOff;  // file offset of the section header
  uint32_t nameOff, type, link, info;
  uint64_t flags, addr, offset, size, align, entsize;
};

struct RawElf {
  uint16_t type, machine, shnum, shstrndx, ehsize, shentsize, phnum;
  uint64_t shoff, entry, phoff;
  uint32_t flags;
  std::vector<RawSect> sects;
  const RawSect& get(const std::string& name) const {
    for (const auto& s : sects)
      if (s.name == name) return s;
    throw std::runtime_error("no section " + name);
  }
  bool has(const std::string& name) const {
    return std::any_of(sects.begin(), sects.end(), [&](const RawSect& s) { return s.name == name; });
  }
};

RawElf rawParse(const std::vector<uint8_t>& b) {
  RawElf e{};
  e.type = le(b, 16, 2);
  e.machine = le(b, 18, 2);
  e.entry = le(b, 24, 8);
  e.phoff = le(b, 32, 8);
  e.shoff = le(b, 40, 8);
  e.flags = le(b, 48, 4);
  e.ehsize = le(b, 52, 2);
  e.phnum = le(b, 56, 2);
  e.shentsize = le(b, 58, 2);
  e.shnum = le(b, 60, 2);
  e.shstrndx = le(b, 62, 2);
  for (size_t i = 0; i < e.shnum; ++i) {
    size_t h = e.shoff + i * 64;
    RawSect s{};
    s.hdrOff = h;
    s.nameOff = le(b, h + 0, 4);
    s.type = le(b, h + 4, 4);
    s.flags = le(b, h + 8, 8);
    s.addr = le(b, h + 16, 8);
    s.offset = le(b, h + 24, 8);
    s.size = le(b, h + 32, 8);
    s.link = le(b, h + 40, 4);
    s.info = le(b, h + 44, 4);
    s.align = le(b, h + 48, 8);
    s.entsize = le(b, h + 56, 8);
    e.sects.push_back(s);
  }
  const RawSect& names = e.sects.at(e.shstrndx);
  for (auto& s : e.sects) s.name = reinterpret_cast<const char*>(b.data() + names.offset + s.nameOff);
  return e;
}

std::vector<uint8_t> slice(const std::vector<uint8_t>& b, uint64_t off, uint64_t size) {
  return std::vector<uint8_t>(b.begin() + off, b.begin() + off + size);
}

// Runs a shell command, returning its exit status and combined output.
struct CmdResult {
  int status;
  std::string output;
};
CmdResult run(const std::string& cmd) {
  CmdResult r{-1, {}};
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}
bool haveTool(const std::string& tool) { return run("command -v " + tool + " >/dev/null").status == 0; }

fs::path scratchDir(const std::string& name) {
  fs::path d = fs::path(TPC_BINARY_DIR) / "tests" / "object-scratch" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::vector<uint8_t> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Expects readObject to throw ObjectError whose message contains every fragment.
void expectError(const std::vector<uint8_t>& bytes, std::initializer_list<std::string> fragments) {
  try {
    readObject(bytes, "k.o");
    ADD_FAILURE() << "expected ObjectError containing '" << *fragments.begin() << "'";
  } catch (const ObjectError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("k.o: ", 0), 0u) << msg;
    for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
  }
}

// ---------------------------------------------------------------------------------------------------
// Round trips

TEST(ObjectRoundTrip, FullObject) {
  KernelObject o = fullObject();
  std::vector<uint8_t> bytes = writeObject(o);
  KernelObject back = readObject(bytes, "full.o");
  EXPECT_EQ(back, o);
  EXPECT_EQ(back.kernelName, "softmax_fwd_f32");
  ASSERT_EQ(back.params.size(), 6u);
  EXPECT_EQ(back.params[2].kind, ParamKind::Scalar);
  EXPECT_EQ(back.params[2].scalarType, DType::F32);
  EXPECT_EQ(back.params[5].scalarType, DType::BF16);
  EXPECT_EQ(back.debug.vars[2].localOffset, -16);
  // Writing is deterministic.
  EXPECT_EQ(writeObject(back), bytes);
}

TEST(ObjectRoundTrip, MinimalObjectOmitsOptionalSections) {
  KernelObject o = minimalObject();
  std::vector<uint8_t> bytes = writeObject(o);
  EXPECT_EQ(readObject(bytes, "min.o"), o);
  RawElf e = rawParse(bytes);
  EXPECT_FALSE(e.has(".tpc.bitcode"));
  EXPECT_FALSE(e.has(".tpc.debug_line"));
  EXPECT_FALSE(e.has(".tpc.debug_vars"));
  EXPECT_TRUE(o.debug.empty());
}

TEST(ObjectRoundTrip, EachArchAndEveryScalarType) {
  for (std::string_view arch : kArchNames) {
    KernelObject o = minimalObject();
    o.arch = std::string(arch);
    for (int t = 0; t < tpc::kNumDTypes; ++t) {
      Param p;
      p.name = std::string(tpc::dtypeName(static_cast<DType>(t)));
      p.kind = ParamKind::Scalar;
      p.scalarType = static_cast<DType>(t);
      o.params.push_back(p);
    }
    o.params.push_back({"", ParamKind::Tensor});  // an empty parameter name is representable
    EXPECT_EQ(readObject(writeObject(o), "a.o"), o) << arch;
  }
}

TEST(ObjectRoundTrip, OnlyLineInfoOrOnlyVars) {
  KernelObject a = minimalObject();
  a.debug.files = {"x.c"};
  a.debug.lines = {{0, 0, 1, 1}};
  std::vector<uint8_t> ab = writeObject(a);
  EXPECT_TRUE(rawParse(ab).has(".tpc.debug_line"));
  EXPECT_FALSE(rawParse(ab).has(".tpc.debug_vars"));
  EXPECT_EQ(readObject(ab, "a.o"), a);

  KernelObject b = minimalObject();
  b.debug.vars = {{"v", 0, 64, 0, 1, 0, "int"}};
  std::vector<uint8_t> bb = writeObject(b);
  EXPECT_FALSE(rawParse(bb).has(".tpc.debug_line"));
  EXPECT_TRUE(rawParse(bb).has(".tpc.debug_vars"));
  EXPECT_EQ(readObject(bb, "b.o"), b);
}

TEST(ObjectRoundTrip, EmptyText) {
  KernelObject o = minimalObject();
  o.text.clear();
  EXPECT_EQ(readObject(writeObject(o), "e.o"), o);
}

TEST(ObjectRoundTrip, Files) {
  fs::path dir = scratchDir("files");
  fs::path p = dir / "k.o";
  KernelObject o = fullObject();
  writeObjectFile(p.string(), o);
  EXPECT_EQ(readObjectFile(p.string()), o);
  // Overwrite in place.
  KernelObject m = minimalObject();
  writeObjectFile(p.string(), m);
  EXPECT_EQ(readObjectFile(p.string()), m);
  EXPECT_EQ(slurp(p), writeObject(m));
  // Only the object is left in the directory: no temporary files.
  size_t entries = std::distance(fs::directory_iterator(dir), fs::directory_iterator());
  EXPECT_EQ(entries, 1u);
}

TEST(ObjectFiles, Errors) {
  fs::path dir = scratchDir("file-errors");
  // Missing file.
  std::string missing = (dir / "nope.o").string();
  try {
    readObjectFile(missing);
    ADD_FAILURE();
  } catch (const ObjectError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(missing + ": cannot open", 0), 0u) << e.what();
  }
  // Directory that does not exist.
  std::string bad = (dir / "no-such-dir" / "k.o").string();
  try {
    writeObjectFile(bad, minimalObject());
    ADD_FAILURE();
  } catch (const ObjectError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad + ": ", 0), 0u) << e.what();
  }
  // An invalid object is reported with the path and leaves nothing behind.
  KernelObject o = minimalObject();
  o.text.resize(100);
  std::string p = (dir / "k.o").string();
  try {
    writeObjectFile(p, o);
    ADD_FAILURE();
  } catch (const ObjectError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(p + ": ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("multiple of"), std::string::npos);
  }
  // Renaming over a directory fails after the temporary file was written: it must be removed.
  fs::create_directories(dir / "adir.o" / "x");
  EXPECT_THROW(writeObjectFile((dir / "adir.o").string(), minimalObject()), ObjectError);
  // Reading a directory is an error, not a crash.
  EXPECT_THROW(readObjectFile(dir.string()), ObjectError);
  // A non-object file.
  std::ofstream(dir / "text.o") << "hello\n";
  try {
    readObjectFile((dir / "text.o").string());
    ADD_FAILURE();
  } catch (const ObjectError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "text.o").string() + ": not an ELF file");
  }
  size_t entries = std::distance(fs::directory_iterator(dir), fs::directory_iterator());
  EXPECT_EQ(entries, 2u);  // adir.o and text.o
}

// ---------------------------------------------------------------------------------------------------
// Independent check of the ELF bytes

TEST(ObjectElf, HeaderAndSections) {
  KernelObject o = fullObject();
  std::vector<uint8_t> b = writeObject(o);
  ASSERT_GE(b.size(), 64u);
  const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 2 /*64-bit*/, 1 /*LE*/, 1 /*EV_CURRENT*/, 0, 0};
  EXPECT_EQ(std::memcmp(b.data(), ident, 16), 0);

  RawElf e = rawParse(b);
  EXPECT_EQ(e.type, 1);     // ET_REL
  EXPECT_EQ(e.machine, 62);  // EM_X86_64 carrier value, docs/object-format.md
  EXPECT_EQ(e.flags, 0u);
  EXPECT_EQ(e.entry, 0u);
  EXPECT_EQ(e.phoff, 0u);
  EXPECT_EQ(e.phnum, 0);
  EXPECT_EQ(e.ehsize, 64);
  EXPECT_EQ(e.shentsize, 64);
  EXPECT_EQ(e.shoff % 8, 0u);
  EXPECT_EQ(e.shoff + 64ull * e.shnum, b.size());  // the header table ends the file

  // null, .text, .tpc.kernel, .tpc.bitcode, .tpc.debug_line, .tpc.debug_vars, .tpc.printf, .symtab, .strtab,
  // .shstrtab
  ASSERT_EQ(e.shnum, 10);
  std::vector<std::string> names;
  for (const auto& s : e.sects) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"", ".text", ".tpc.kernel", ".tpc.bitcode", ".tpc.debug_line",
                                              ".tpc.debug_vars", ".tpc.printf", ".symtab", ".strtab", ".shstrtab"}));
  EXPECT_EQ(e.sects[0].type, 0u);
  EXPECT_EQ(e.sects[0].size, 0u);
  EXPECT_EQ(e.shstrndx, 9);
  EXPECT_EQ(e.sects[9].type, 3u);  // SHT_STRTAB

  const RawSect& text = e.get(".text");
  EXPECT_EQ(text.type, 1u);         // SHT_PROGBITS
  EXPECT_EQ(text.flags, 0x2u | 0x4u);  // SHF_ALLOC | SHF_EXECINSTR
  EXPECT_EQ(text.addr, 0u);
  EXPECT_EQ(text.align, 64u);
  EXPECT_EQ(text.offset % 64, 0u);
  EXPECT_EQ(text.size, o.text.size());
  EXPECT_EQ(slice(b, text.offset, text.size), o.text);

  const RawSect& bc = e.get(".tpc.bitcode");
  EXPECT_EQ(bc.flags, 0u);
  EXPECT_EQ(slice(b, bc.offset, bc.size), o.bitcode);
  EXPECT_EQ(e.get(".tpc.kernel").flags, 0u);

  // Sections do not overlap each other, the ELF header or the section header table.
  std::vector<std::pair<uint64_t, uint64_t>> ranges{{0, 64}, {e.shoff, e.shoff + 64ull * e.shnum}};
  for (const auto& s : e.sects)
    if (s.size) ranges.push_back({s.offset, s.offset + s.size});
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) EXPECT_LE(ranges[i - 1].second, ranges[i].first);

  // .symtab: null, section symbol, then the global entry function.
  const RawSect& symtab = e.get(".symtab");
  EXPECT_EQ(symtab.type, 2u);  // SHT_SYMTAB
  EXPECT_EQ(symtab.entsize, 24u);
  EXPECT_EQ(symtab.size, 3 * 24u);
  EXPECT_EQ(symtab.info, 2u);  // index of the first global symbol
  ASSERT_LT(symtab.link, e.sects.size());
  const RawSect& strtab = e.sects[symtab.link];
  EXPECT_EQ(strtab.name, ".strtab");
  size_t sym = symtab.offset + 2 * 24;
  std::string symName(reinterpret_cast<const char*>(b.data() + strtab.offset + le(b, sym, 4)));
  EXPECT_EQ(symName, o.kernelName);
  EXPECT_EQ(b[sym + 4], (1 << 4) | 2);  // STB_GLOBAL, STT_FUNC
  EXPECT_EQ(le(b, sym + 6, 2), 1u);     // st_shndx = .text
  EXPECT_EQ(le(b, sym + 8, 8), 0u);     // st_value
  EXPECT_EQ(le(b, sym + 16, 8), o.text.size());
  size_t secSym = symtab.offset + 24;
  EXPECT_EQ(b[secSym + 4], 3);  // STB_LOCAL, STT_SECTION
  EXPECT_EQ(le(b, secSym + 6, 2), 1u);
}

// Decodes .tpc.kernel byte by byte as docs/object-format.md describes it.
TEST(ObjectElf, KernelMetadataLayout) {
  KernelObject o = minimalObject();
  o.kernelName = "k";
  o.arch = "gaudi";
  o.scalarLocalBytes = 0x11223344;
  o.vectorLocalBytes = 0x00A0B0C0;
  o.params = {{"in", ParamKind::Tensor}, {"n", ParamKind::Scalar, DType::U16}};
  std::vector<uint8_t> b = writeObject(o);
  RawElf e = rawParse(b);
  const RawSect& k = e.get(".tpc.kernel");
  std::vector<uint8_t> m = slice(b, k.offset, k.size);
  const std::vector<uint8_t> expected = {
      'T', 'P', 'C', 'K', 1, 0, 0, 0,                      // magic, version 1, flags 0
      1, 0, 0, 0, 'k',                                       // kernel name
      5, 0, 0, 0, 'g', 'a', 'u', 'd', 'i',                   // arch
      0x44, 0x33, 0x22, 0x11, 0xC0, 0xB0, 0xA0, 0x00,        // local sizes
      2, 0, 0, 0,                                            // parameter count
      0, 3, 0, 0, 2, 0, 0, 0, 'i', 'n',                      // tensor "in" (type byte: i32 = 3)
      1, 6, 0, 0, 1, 0, 0, 0, 'n'};                          // scalar u16 "n"
  EXPECT_EQ(m, expected);
}

TEST(ObjectElf, DebugSectionLayout) {
  KernelObject o = minimalObject();
  o.debug.files = {"a.c"};
  o.debug.lines = {{0, 0, 7, 2}};
  o.debug.vars = {{"x", 0, 64, 5, 0x0102, -4, "int"}};
  std::vector<uint8_t> b = writeObject(o);
  RawElf e = rawParse(b);
  const RawSect& l = e.get(".tpc.debug_line");
  EXPECT_EQ(slice(b, l.offset, l.size),
            (std::vector<uint8_t>{'T', 'P', 'C', 'L', 1, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 'a', '.', 'c', 1, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 2, 0, 0, 0}));
  const RawSect& v = e.get(".tpc.debug_vars");
  EXPECT_EQ(slice(b, v.offset, v.size),
            (std::vector<uint8_t>{'T', 'P', 'C', 'V', 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 5, 0,
                                  0x02, 0x01, 0xFC, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 'x', 3, 0, 0, 0, 'i', 'n', 't'}));
}

// ---------------------------------------------------------------------------------------------------
// System binutils

TEST(ObjectBinutils, ReadelfListsSectionsAndSymbolWithoutWarnings) {
  if (!haveTool("readelf")) GTEST_SKIP() << "readelf not installed";
  fs::path p = scratchDir("readelf") / "k.o";
  KernelObject o = fullObject();
  writeObjectFile(p.string(), o);
  CmdResult r = run("readelf -W -h -S -s '" + p.string() + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("Warning"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Error"), std::string::npos) << r.output;
  for (const char* s : {"REL (Relocatable file)", ".text", ".tpc.kernel", ".tpc.bitcode", ".tpc.debug_line",
                        ".tpc.debug_vars", ".symtab", ".strtab", ".shstrtab"})
    EXPECT_NE(r.output.find(s), std::string::npos) << s << " missing in:\n" << r.output;
  // The symbol line: "2: 0000000000000000   640 FUNC    GLOBAL DEFAULT    1 softmax_fwd_f32"
  bool found = false;
  for (size_t pos = 0; pos < r.output.size();) {
    size_t end = r.output.find('\n', pos);
    if (end == std::string::npos) end = r.output.size();
    std::string line = r.output.substr(pos, end - pos);
    if (line.find(o.kernelName) != std::string::npos && line.find("FUNC") != std::string::npos) {
      found = true;
      EXPECT_NE(line.find("GLOBAL"), std::string::npos) << line;
      EXPECT_NE(line.find("0000000000000000   640"), std::string::npos) << line;
      EXPECT_NE(line.find(" 1 " + o.kernelName), std::string::npos) << line;
    }
    pos = end + 1;
  }
  EXPECT_TRUE(found) << r.output;

  // Everything else readelf knows how to show is warning-free too.
  CmdResult all = run("readelf -W -a '" + p.string() + "'");
  EXPECT_EQ(all.status, 0) << all.output;
  EXPECT_EQ(all.output.find("Warning"), std::string::npos) << all.output;
  EXPECT_EQ(all.output.find("Error"), std::string::npos) << all.output;
}

// The contract's command extracts exactly the code; naming the input target explicitly works as well.
void checkObjcopy(const std::string& objcopy, const std::string& extraArgs) {
  fs::path dir = scratchDir("objcopy");
  for (const KernelObject& o : {fullObject(), minimalObject()}) {
    fs::path p = dir / "k.o", bin = dir / "k.bin";
    fs::remove(bin);
    writeObjectFile(p.string(), o);
    CmdResult r = run(objcopy + " " + extraArgs + " -O binary --only-section=.text '" + p.string() + "' '" +
                      bin.string() + "'");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output, "");
    EXPECT_EQ(slurp(bin), o.text);
  }
}

TEST(ObjectBinutils, ObjcopyExtractsExactlyTheText) {
  if (!haveTool("objcopy")) GTEST_SKIP() << "objcopy not installed";
  checkObjcopy("objcopy", "-I elf64-little");
}

// The plain command, without naming the input target.
TEST(ObjectBinutils, ObjcopyDefaultInputTarget) {
  if (!haveTool("objcopy")) GTEST_SKIP() << "objcopy not installed";
  fs::path dir = scratchDir("objcopy-default");
  KernelObject o = fullObject();
  writeObjectFile((dir / "k.o").string(), o);
  CmdResult r = run("objcopy -O binary --only-section=.text '" + (dir / "k.o").string() + "' '" +
                    (dir / "k.bin").string() + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(slurp(dir / "k.bin"), o.text);
}

std::string findLlvmTool(const std::string& name) {
  for (const std::string& t : {name, name + "-19", name + "-18", name + "-17", name + "-14"})
    if (haveTool(t)) return t;
  return "";
}

TEST(ObjectBinutils, LlvmObjcopyExtractsExactlyTheText) {
  std::string tool = findLlvmTool("llvm-objcopy");
  if (tool.empty()) GTEST_SKIP() << "llvm-objcopy not installed";
  checkObjcopy(tool, "");
}

TEST(ObjectBinutils, LlvmReadelfWithoutWarnings) {
  std::string tool = findLlvmTool("llvm-readelf");
  if (tool.empty()) GTEST_SKIP() << "llvm-readelf not installed";
  fs::path p = scratchDir("llvm-readelf") / "k.o";
  KernelObject o = fullObject();
  writeObjectFile(p.string(), o);
  CmdResult r = run(tool + " -W -h -S -s '" + p.string() + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("error"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(".tpc.kernel"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FUNC    GLOBAL DEFAULT     1 " + o.kernelName), std::string::npos) << r.output;
}

// ---------------------------------------------------------------------------------------------------
// Robustness

TEST(ObjectRobustness, EveryTruncationIsAnError) {
  for (const KernelObject& o : {fullObject(), minimalObject()}) {
    std::vector<uint8_t> b = writeObject(o);
    for (size_t len = 0; len < b.size(); ++len) {
      // Copy into an exactly-sized buffer so that ASan catches any read past the prefix.
      std::vector<uint8_t> prefix(b.begin(), b.begin() + len);
      EXPECT_THROW(readObject(prefix, "t.o"), ObjectError) << "prefix length " << len;
    }
  }
}

TEST(ObjectRobustness, RandomCorruptionNeverCrashes) {
  const std::vector<uint8_t> valid = writeObject(fullObject());
  const RawElf e = rawParse(valid);
  std::mt19937 rng(20240611);
  int ok = 0, errors = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> b = valid;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      size_t pos;
      switch (rng() % 3) {
        case 0: pos = rng() % b.size(); break;                      // anywhere
        case 1: pos = rng() % 64; break;                            // ELF header
        default: pos = e.shoff + rng() % (64ull * e.shnum); break;  // section headers
      }
      uint8_t x = static_cast<uint8_t>(1 + rng() % 255);
      if (rng() % 4 == 0) b[pos] = (rng() % 2) ? 0xFF : 0x00;  // extreme values
      else b[pos] ^= x;
    }
    try {
      KernelObject back = readObject(b, "c.o");
      ++ok;
      // Whatever the reader accepts is a valid object: it can be written and read back.
      EXPECT_EQ(readObject(writeObject(back), "c2.o"), back);
    } catch (const ObjectError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(ok, 0);  // flips in padding/text/bitcode leave a valid object
}

TEST(ObjectRobustness, RandomCorruptionOfMetadataSections) {
  const std::vector<uint8_t> valid = writeObject(fullObject());
  const RawElf e = rawParse(valid);
  std::mt19937 rng(7);
  for (const char* name : {".tpc.kernel", ".tpc.debug_line", ".tpc.debug_vars", ".symtab", ".strtab", ".shstrtab"}) {
    const RawSect& s = e.get(name);
    for (int iter = 0; iter < 3000; ++iter) {
      std::vector<uint8_t> b = valid;
      int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) b[s.offset + rng() % s.size] ^= static_cast<uint8_t>(1 + rng() % 255);
      try {
        KernelObject back = readObject(b, "c.o");
        EXPECT_EQ(readObject(writeObject(back), "c2.o"), back);
      } catch (const ObjectError&) {
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Specific malformed files

class Malformed : public ::testing::Test {
 protected:
  void SetUp() override {
    obj = fullObject();
    b = writeObject(obj);
    e = rawParse(b);
  }
  const RawSect& sect(const std::string& n) { return e.get(n); }
  // Offsets inside .tpc.kernel, following the documented layout.
  size_t kernelOff() { return sect(".tpc.kernel").offset; }
  size_t archStringOff() { return kernelOff() + 8 + 4 + obj.kernelName.size() + 4; }
  size_t paramCountOff() { return archStringOff() + obj.arch.size() + 8; }
  KernelObject obj;
  std::vector<uint8_t> b;
  RawElf e;
};

TEST_F(Malformed, NotElf) {
  expectError({}, {"k.o: not an ELF file"});
  std::string s = "hello, world, this is not an object file at all.....................";
  expectError(std::vector<uint8_t>(s.begin(), s.end()), {"k.o: not an ELF file"});
  expectError({0x7f, 'E', 'L'}, {"not an ELF file"});
  expectError({0x7f, 'E', 'L', 'F', 2, 1}, {"truncated: ELF header"});
}

TEST_F(Malformed, HeaderFields) {
  auto with = [&](size_t off, size_t n, uint64_t v) {
    auto c = b;
    putLe(c, off, n, v);
    return c;
  };
  expectError(with(4, 1, 1), {"not a 64-bit ELF file"});
  expectError(with(5, 1, 2), {"not a little-endian ELF file"});
  expectError(with(16, 2, 2), {"not a relocatable object", "e_type 2"});
  expectError(with(18, 2, 0), {"not a TPC object", "e_machine 0"});
  expectError(with(58, 2, 40), {"section header entry size 40"});
  expectError(with(60, 2, 0), {"no section header table"});
  expectError(with(62, 2, 200), {"section name table index 200"});
  expectError(with(62, 2, 1), {"section name table", "expected SHT_STRTAB"});
  expectError(with(40, 8, b.size() - 100),
              {"truncated: section header table extends past end of file", "file size " + std::to_string(b.size())});
  expectError(with(40, 8, ~0ull), {"truncated: section header table extends past end of file"});
}

TEST_F(Malformed, SectionPastEndOfFile) {
  const RawSect& t = sect(".text");
  auto c = b;
  uint64_t off = b.size() - 100;
  putLe(c, t.hdrOff + 24, 8, off);
  try {
    readObject(c, "k.o");
    ADD_FAILURE();
  } catch (const ObjectError& err) {
    EXPECT_EQ(std::string(err.what()), "k.o: truncated: section '.text' extends past end of file (offset " +
                                           std::to_string(off) + ", size 640, file size " +
                                           std::to_string(b.size()) + ")");
    EXPECT_EQ(err.file(), "k.o");
  }
  // Offset + size overflowing 64 bits.
  putLe(c, t.hdrOff + 24, 8, ~0ull - 10);
  expectError(c, {"section '.text' extends past end of file"});
  auto d = b;
  putLe(d, sect(".tpc.kernel").hdrOff + 32, 8, ~0ull);
  expectError(d, {"section '.tpc.kernel' extends past end of file"});
}

TEST_F(Malformed, MissingSections) {
  // Rename a section by changing one character of its name in .shstrtab.
  auto rename = [&](const std::string& n) {
    auto c = b;
    c[sect(".shstrtab").offset + sect(n).nameOff + 1] = 'X';
    return c;
  };
  expectError(rename(".text"), {"missing section '.text'"});
  expectError(rename(".tpc.kernel"), {"missing section '.tpc.kernel'"});
  // Optional sections may be absent.
  KernelObject back = readObject(rename(".tpc.bitcode"), "k.o");
  EXPECT_TRUE(back.bitcode.empty());
  back = readObject(rename(".tpc.debug_vars"), "k.o");
  EXPECT_TRUE(back.debug.vars.empty());
  EXPECT_EQ(back.debug.lines, obj.debug.lines);
  // A missing symbol table is tolerated (e.g. after strip); a wrong one is not.
  EXPECT_EQ(readObject(rename(".symtab"), "k.o"), obj);
}

TEST_F(Malformed, DuplicateSection) {
  auto c = b;
  putLe(c, sect(".tpc.bitcode").hdrOff, 4, sect(".tpc.kernel").nameOff);
  expectError(c, {"duplicate section '.tpc.kernel'"});
}

TEST_F(Malformed, WrongSectionType) {
  auto c = b;
  putLe(c, sect(".text").hdrOff + 4, 4, 8);  // SHT_NOBITS
  expectError(c, {"section '.text' has type 8"});
}

TEST_F(Malformed, StringTables) {
  auto c = b;
  const RawSect& s = sect(".shstrtab");
  c[s.offset + s.size - 1] = 'x';
  expectError(c, {"section name table is not NUL-terminated"});
  auto d = b;
  putLe(d, sect(".text").hdrOff, 4, s.size + 5);
  expectError(d, {"name offset", "outside the section name table"});
  auto f = b;
  const RawSect& st = sect(".strtab");
  f[st.offset + st.size - 1] = 'x';
  expectError(f, {"'.strtab' is not NUL-terminated"});
}

TEST_F(Malformed, TextNotWholeBundles) {
  auto c = b;
  putLe(c, sect(".text").hdrOff + 32, 8, 100);
  expectError(c, {"section '.text' size 100 is not a multiple of the 64-byte bundle size"});
}

TEST_F(Malformed, MetadataVersionAndMagic) {
  auto c = b;
  putLe(c, kernelOff() + 4, 2, 2);
  expectError(c, {"section '.tpc.kernel'", "unsupported metadata version 2"});
  auto d = b;
  d[kernelOff()] = 'X';
  expectError(d, {"section '.tpc.kernel'", "bad magic"});
  auto f = b;
  putLe(f, kernelOff() + 6, 2, 1);
  expectError(f, {"reserved flags"});
}

TEST_F(Malformed, UnknownArch) {
  auto c = b;
  ASSERT_EQ(std::string(c.begin() + archStringOff(), c.begin() + archStringOff() + 6), "gaudi3");
  c[archStringOff() + 5] = '7';
  expectError(c, {"unknown architecture 'gaudi7'"});
}

TEST_F(Malformed, ParamScalarTypeOutOfRange) {
  auto c = b;
  size_t p0 = paramCountOff() + 4;
  // params[0] = "ifm" (8 + 3 bytes), params[1] = "ofm", params[2] = scalar "alpha".
  size_t p2 = p0 + 2 * (8 + 3);
  ASSERT_EQ(c[p2], 1);  // scalar
  c[p2 + 1] = 9;
  expectError(c, {"parameter 2 ('alpha')", "scalar type 9 is out of range"});
  auto d = b;
  d[p0] = 5;
  expectError(d, {"parameter 0 ('ifm')", "kind 5"});
}

TEST_F(Malformed, HugeCounts) {
  auto c = b;
  putLe(c, paramCountOff(), 4, 0xFFFFFFFF);
  expectError(c, {"parameter count 4294967295", "larger than"});
  auto d = b;
  putLe(d, kernelOff() + 8, 4, 0xFFFFFFF0);  // kernel name length
  expectError(d, {"kernel name of length 4294967280", "extends past the section end"});
  auto f = b;
  putLe(f, sect(".tpc.debug_vars").offset + 8, 4, 0x7FFFFFFF);
  expectError(f, {"section '.tpc.debug_vars'", "variable count"});
  auto g = b;
  putLe(g, sect(".tpc.debug_line").offset + 8, 4, 0x10000000);
  expectError(g, {"section '.tpc.debug_line'", "file count"});
}

TEST_F(Malformed, TrailingBytes) {
  auto c = b;
  putLe(c, sect(".tpc.kernel").hdrOff + 32, 8, sect(".tpc.kernel").size + 1);
  expectError(c, {"section '.tpc.kernel'", "unexpected trailing bytes"});
  auto d = b;
  putLe(d, sect(".tpc.kernel").hdrOff + 32, 8, sect(".tpc.kernel").size - 1);
  expectError(d, {"section '.tpc.kernel'", "truncated"});
}

TEST_F(Malformed, EntrySymbol) {
  auto c = b;
  c[sect(".strtab").offset + 1] = 'X';  // first character of the kernel symbol's name
  expectError(c, {"entry symbol 'softmax_fwd_f32' not found in '.symtab'"});
  size_t sym = sect(".symtab").offset + 2 * 24;
  auto d = b;
  putLe(d, sym + 16, 8, 64);
  expectError(d, {"entry symbol 'softmax_fwd_f32' covers [0, +64)", "+640"});
  auto f = b;
  f[sym + 4] = (1 << 4) | 1;  // STT_OBJECT
  expectError(f, {"entry symbol", "expected STT_FUNC"});
  auto g = b;
  putLe(g, sym + 6, 2, 2);
  expectError(g, {"entry symbol", "section 2"});
  auto h = b;
  putLe(h, sect(".symtab").hdrOff + 40, 4, 1);  // sh_link -> .text
  expectError(h, {"'.symtab' links to section 1"});
  auto i = b;
  putLe(i, sym, 4, 1000);
  expectError(i, {"symbol 2: name offset 1000"});
}

TEST_F(Malformed, DebugInfoOutsideText) {
  auto c = b;
  // First line entry's address.
  size_t lines = sect(".tpc.debug_line").offset + 8 + 4;
  for (const auto& f : obj.debug.files) lines += 4 + f.size();
  lines += 4;
  putLe(c, lines, 4, 640);
  expectError(c, {"line entry 0: address 640"});
  auto d = b;
  putLe(d, lines + 4, 4, 2);
  expectError(d, {"line entry 0: file index 2 is out of range"});
  auto f = b;
  size_t var0 = sect(".tpc.debug_vars").offset + 12;
  putLe(f, var0 + 4, 4, 704);  // highPc past .text
  expectError(f, {"variable 0 ('i')", "[0, 704)"});
}

// ---------------------------------------------------------------------------------------------------
// Writer validation

TEST(ObjectWriter, RejectsInvalidObjects) {
  auto expectWriteError = [](const KernelObject& o, const std::string& fragment) {
    try {
      writeObject(o);
      ADD_FAILURE() << "expected error: " << fragment;
    } catch (const ObjectError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  KernelObject o = minimalObject();
  o.text.resize(65);
  expectWriteError(o, "size 65 is not a multiple of the 64-byte bundle size");
  o = minimalObject();
  o.arch = "gaudi4";
  expectWriteError(o, "unknown architecture 'gaudi4'");
  o = minimalObject();
  o.kernelName = "";
  expectWriteError(o, "empty kernel name");
  o = minimalObject();
  o.kernelName = std::string("a\0b", 3);
  expectWriteError(o, "kernel name contains a NUL byte");
  try {
    writeObject(o);
  } catch (const ObjectError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("kernel 'a\\x00b': ", 0), 0u) << e.what();
  }
  o = minimalObject();
  o.params = {{"x", ParamKind::Scalar, DType::Count}};
  expectWriteError(o, "scalar type 9 is out of range");
  o = minimalObject();
  o.params = {{"x", static_cast<ParamKind>(3)}};
  expectWriteError(o, "kind 3");
  o = minimalObject();
  o.debug.lines = {{0, 0, 1, 1}};
  expectWriteError(o, "file index 0 is out of range");
  o = minimalObject();
  o.debug.files = {"f"};
  o.debug.lines = {{32, 0, 1, 1}};
  expectWriteError(o, "address 32");
  o = minimalObject();
  o.debug.vars = {{"v", 64, 0, 0, 0, 0, "int"}};
  expectWriteError(o, "range [64, 0)");
  try {
    o = minimalObject();
    o.kernelName = "kk";
    o.arch = "x";
    writeObject(o);
    ADD_FAILURE();
  } catch (const ObjectError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("kernel 'kk': ", 0), 0u) << e.what();
  }
}

}  // namespace

// The printf table travels in .tpc.printf: layout checked byte for byte, and its absence when empty.
// Index-space loop variables travel in .tpc.debug_index: round trip, layout, absence when empty, and every
// invalid record rejected by the writer and the reader alike.
TEST(ObjectDebugIndex, RoundTripLayoutAndValidation) {
  KernelObject o = minimalObject();
  EXPECT_FALSE(rawParse(writeObject(o)).has(".tpc.debug_index"));
  o.debug.indexVars = {{"col", 0, 0, 128}, {"row", 0, 1, 1}};
  std::vector<uint8_t> bytes = writeObject(o);
  EXPECT_EQ(readObject(bytes, "k.o"), o);
  RawElf e = rawParse(bytes);
  ASSERT_TRUE(e.has(".tpc.debug_index"));
  const RawSect& rs = e.get(".tpc.debug_index");
  const std::vector<uint8_t> sect(bytes.begin() + static_cast<long>(rs.offset),
                                  bytes.begin() + static_cast<long>(rs.offset + rs.size));
  const std::vector<uint8_t> want = {'T', 'P', 'C', 'I', 1, 0, 0, 0, 2, 0, 0, 0,
                                     3, 0, 0, 0, 'c', 'o', 'l', 0, 0, 0, 0, 0, 128, 0, 0, 0,
                                     3, 0, 0, 0, 'r', 'o', 'w', 0, 0, 0, 0, 1, 1, 0, 0, 0};
  EXPECT_EQ(sect, want);
  auto rejected = [&](IndexSpaceVar v, const std::string& fragment) {
    KernelObject bad = minimalObject();
    bad.debug.indexVars = {v};
    try {
      writeObject(bad);
      ADD_FAILURE() << "expected the writer to reject: " << fragment;
    } catch (const ObjectError& ex) {
      EXPECT_NE(std::string(ex.what()).find(fragment), std::string::npos) << ex.what();
    }
  };
  rejected({"d", 0, 5, 64}, "dimension 5");
  rejected({"d", 0, 0, 0}, "scale 0");
  rejected({"d", 0, 0, -64}, "scale -64");
  rejected({"", 0, 0, 64}, "'' of scope 0");
  rejected({"d", 1, 0, 64}, "of scope 1");
  // The reader checks the same: a dimension patched to 7 in the file.
  std::vector<uint8_t> patched = bytes;
  const size_t at = rs.offset + 12 + 4 + 3 + 4;  // the first record's dimension byte
  ASSERT_EQ(patched[at], 0);
  patched[at] = 7;
  expectError(patched, {"index-space variable 0", "dimension 7"});
}

TEST(ObjectPrintf, TableLayoutAndRoundTrip) {
  KernelObject o = minimalObject();
  o.printfFormats = {"a%d\n", "bc"};
  std::vector<uint8_t> bytes = writeObject(o);
  KernelObject back = readObject(bytes, "p.o");
  EXPECT_EQ(back.printfFormats, o.printfFormats);
  const std::vector<uint8_t> want = {'T', 'P', 'C', 'P', 1, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 'a', '%', 'd', '\n',
                                     2, 0, 0, 0, 'b', 'c'};
  auto it = std::search(bytes.begin(), bytes.end(), want.begin(), want.end());
  EXPECT_NE(it, bytes.end()) << "the .tpc.printf section does not hold the documented bytes";
  KernelObject none = minimalObject();
  std::vector<uint8_t> plain = writeObject(none);
  const std::string name = ".tpc.printf";
  EXPECT_EQ(std::search(plain.begin(), plain.end(), name.begin(), name.end()), plain.end());
}
