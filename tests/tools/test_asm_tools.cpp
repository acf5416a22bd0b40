// tpc-as and tpc-objdump as a user runs them: disassembling and reassembling gives an identical .text
// (extracted with objcopy exactly as DESIGN.md writes it), tpc-as errors are FILE:LINE:COL: error: ...
// with exit status 1 and no output file, and --help exits 0.
#include "tool_test_util.h"
#include "tpc/object/kernel_object.h"

namespace tooltest {
namespace {

const std::string kAs = tool("tpc-as"), kObjdump = tool("tpc-objdump");

class AsmTools : public ToolTest {};

TEST_F(AsmTools, DisassembleThenReassembleGivesAnIdenticalText) {
  for (const char* sample : {"add_f32.s", "relu_bf16.s"}) {
    SCOPED_TRACE(sample);
    assembleSample(sample, "k.o");
    Result d = run(kObjdump + " -d k.o");
    ASSERT_EQ(d.status, 0) << d.err;
    // One line per bundle with its address and four slots.
    tpc::obj::KernelObject o = tpc::obj::readObjectFile(path("k.o").string());
    size_t bundles = o.text.size() / 64, bundleLines = 0;
    std::istringstream in(d.out);
    for (std::string l; std::getline(in, l);) {
      if (l.rfind("0x", 0) != 0) continue;
      char addr[16];
      std::snprintf(addr, sizeof addr, "0x%04zx:", bundleLines * 64);
      EXPECT_EQ(l.rfind(addr, 0), 0u) << l;
      EXPECT_EQ(std::count(l.begin(), l.end(), ';'), 3) << l;
      ++bundleLines;
    }
    EXPECT_EQ(bundleLines, bundles);
    writeText(path("k.s"), d.out);
    Result a = run(kAs + " k.s -o k2.o");
    ASSERT_EQ(a.status, 0) << a.err;
    Result c1 = run("objcopy -O binary --only-section=.text k.o k.bin");
    Result c2 = run("objcopy -O binary --only-section=.text k2.o k2.bin");
    ASSERT_EQ(c1.status, 0) << c1.err;
    ASSERT_EQ(c2.status, 0) << c2.err;
    std::vector<uint8_t> t1 = readBytes(path("k.bin")), t2 = readBytes(path("k2.bin"));
    EXPECT_EQ(t1.size(), bundles * 64);
    EXPECT_EQ(t1, o.text);
    EXPECT_EQ(t1, t2);
    // The metadata survives too, and disassembling the reassembled object prints the same bundles.
    tpc::obj::KernelObject o2 = tpc::obj::readObjectFile(path("k2.o").string());
    EXPECT_EQ(o2.kernelName, o.kernelName);
    EXPECT_EQ(o2.params, o.params);
    EXPECT_EQ(o2.arch, o.arch);
    Result d2 = run(kObjdump + " -d k2.o");
    ASSERT_EQ(d2.status, 0);
    auto body = [](const std::string& s) { return s.substr(s.find('\n')); };  // past the header comment
    EXPECT_EQ(body(d2.out), body(d.out));
    for (const char* f : {"k.o", "k2.o", "k.s", "k.bin", "k2.bin"}) fs::remove(path(f));
  }
}

TEST_F(AsmTools, ReadelfListsTheSections) {
  assembleSample("add_f32.s", "add.o");
  Result r = run("readelf -S add.o");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, ".text")) << r.out;
  EXPECT_TRUE(contains(r.out, ".symtab")) << r.out;
}

struct AsmError {
  std::string source;
  int line, col;
  std::string mentions;
};

TEST_F(AsmTools, AssemblerErrorsNameFileLineAndColumn) {
  const std::vector<AsmError> cases = {
      {".kernel k\nk:\n  nop ; bogus.i32 s1, s2 ; nop ; nop\n", 3, 3, "bogus"},
      {".kernel k\n.arch gaudi7\n", 2, 1, "gaudi7"},
      {".kernel k\n.frobnicate 3\n", 2, 1, ".frobnicate"},
      {".kernel k\nk:\n  nop ; nop ; nop ; nop\n\n    nop ; jmpr nowhere ; nop ; nop\n", 5, 5, "nowhere"},
      {".kernel k\nk:\nk:\n  nop ; halt ; nop ; nop\n", 3, 1, "twice"},
      {".kernel k\n  nop ; nop ; nop\n", 2, 3, "4 slots"},
      {".kernel k\n  nop ; add.i32 s1, s2, s99 ; nop ; nop\n", 2, 3, "s99"},
      {".kernel k\n  0x0000:  nop ; halt ; nop ; nop\n  0x0080:  nop ; halt ; nop ; nop\n", 3, 3, "0x0080"},
      {"// nothing but a comment\n", 1, 1, "no bundles"},
  };
  for (const AsmError& c : cases) {
    SCOPED_TRACE(c.source);
    writeText(path("bad.s"), c.source);
    auto names = entries();
    Result r = run(kAs + " bad.s -o bad.o");
    EXPECT_EQ(r.status, 1);
    std::string prefix = "bad.s:" + std::to_string(c.line) + ":" + std::to_string(c.col) + ": error: ";
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
    EXPECT_TRUE(contains(r.err, c.mentions)) << r.err;
    EXPECT_EQ(entries(), names);  // no bad.o, no temporary file
  }
  // A missing input names the file.
  Result r = run(kAs + " missing.s -o m.o");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "missing.s")) << r.err;
  EXPECT_FALSE(fs::exists(path("m.o")));
}

TEST_F(AsmTools, ObjdumpRejectsBadObjects) {
  assembleSample("relu_bf16.s", "r.o");
  std::vector<uint8_t> obj = readBytes(path("r.o"));
  writeBytes(path("cut.o"), std::vector<uint8_t>(obj.begin(), obj.begin() + 100));
  Result r = run(kObjdump + " -d cut.o");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "cut.o")) << r.err;
  r = run(kObjdump + " -d missing.o");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "missing.o")) << r.err;
}

TEST_F(AsmTools, HelpExitsZero) {
  for (const std::string& t : {kAs, kObjdump, tool("tpc-sim")}) {
    Result r = run(t + " --help");
    EXPECT_EQ(r.status, 0) << t << "\n" << r.err;
    EXPECT_TRUE(contains(r.out, "Usage") || contains(r.out, "usage")) << r.out;
  }
}

}  // namespace
}  // namespace tooltest
