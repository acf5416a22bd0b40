// tpc-sim as a user runs it: the command-line contract of DESIGN.md section 3 (outputs, --json, --stats,
// --trace, -t forms, -s, --cores, --threads, --index-space, --arch), exit status 1 with a message naming
// the argument for bad input, and exit status 2 without any output file for a kernel fault.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>

#include "tpc/object/kernel_object.h"

#include "tool_test_util.h"

namespace tooltest {
namespace {

using tpc::DType;
using nlohmann::json;

const std::string kSim = tool("tpc-sim");

// out = x * alpha over 2-D f32 tensors; alpha is the kernel's scalar parameter (in s0).
const std::string kScaleKernel = R"(.kernel scale
.arch gaudi2
.param tensor x
.param f32 alpha
.param tensor out
.scalar_local 0
.vector_local 0
scale:
  nop ; mov_irf_dim.i32 s20, i0 dim=0 ; nop ; nop
  nop ; mov_irf_dim.i32 s21, i1 dim=0 ; nop ; nop
  nop ; mov_irf_dim.i32 s22, i0 dim=1 ; nop ; nop
  nop ; mov_irf_dim.i32 s23, i1 dim=1 ; nop ; nop
  nop ; add.i32 s21, s20, s21 ; nop ; nop
  nop ; add.i32 s23, s22, s23 ; nop ; nop
  nop ; shl.i32 s20, s20, 6 ; nop ; nop
  nop ; shl.i32 s21, s21, 6 ; nop ; nop
  nop ; loop.i32 s10, s22, s23, 1 cmp=lt end=row_end ; nop ; nop
  nop ; i_mov.i32 i2, s10 dmask=0b00010 ; nop ; nop
  nop ; loop.i32 s11, s20, s21, 64 cmp=lt end=col_end ; nop ; nop
  nop ; i_mov.i32 i2, s11 dmask=0b00001 ; nop ; nop
  ld_tnsr.f32 v0, i2 tnsr=0 ; nop ; nop ; nop
  nop ; nop ; mul.f32 v1, v0, s0 ; nop
col_end:
  nop ; nop ; nop ; st_tnsr.f32 i2, v1 tnsr=1
row_end:
  nop ; nop ; nop ; nop
  nop ; halt ; nop ; nop
)";

// Faults (misaligned scalar local load at 0xc0) on the core whose index-space offset is 3.
const std::string kFaultKernel = R"(.kernel faulty
.arch gaudi2
.param tensor x
.param tensor out
faulty:
  nop ; mov_irf_dim.i32 s1, i0 dim=0 ; nop ; nop
  nop ; cmp_eq.i32 sp1, s1, 3 ; nop ; nop
  nop ; nop ; nop ; nop
  @sp1 ld_l.i32 s2, 2 ; nop ; nop ; nop
  ld_tnsr.f32 v0, i2 tnsr=0 ; nop ; nop ; nop
  nop ; nop ; nop ; st_tnsr.f32 i2, v0 tnsr=1
  nop ; nop ; nop ; st_tnsr.f32 i2, v0 tnsr=0
  nop ; halt ; nop ; nop
)";

// Exact cycles of one core of add_f32.s over c vector columns and r rows (see test_end_to_end.cpp).
uint64_t addCycles(int64_t c, int64_t r) { return static_cast<uint64_t>(14 + r * (3 + 12 * c)); }

class TpcSim : public ToolTest {
 protected:
  // a.npy, b.npy (f32, shape (3,100)) and add.o in the work directory.
  void setUpAdd() {
    assembleSample("add_f32.s", "add.o");
    a_.resize(300);
    b_.resize(300);
    for (int i = 0; i < 300; ++i) a_[i] = static_cast<float>(i) * 0.5f - 20.0f, b_[i] = 1000.0f - static_cast<float>(i);
    writeNpy("a.npy", makeTensor(DType::F32, {3, 100}, a_));
    writeNpy("b.npy", makeTensor(DType::F32, {3, 100}, b_));
  }
  void expectAddOutput(const std::string& name) {
    tpc::HostTensor out = readNpy(name);
    EXPECT_EQ(out.dtype, DType::F32);
    EXPECT_EQ(out.shape, (std::vector<int64_t>{3, 100}));
    std::vector<float> v = valuesOf<float>(out);
    ASSERT_EQ(v.size(), 300u);
    for (int i = 0; i < 300; ++i) ASSERT_EQ(v[i], a_[i] + b_[i]) << i;
  }
  json readJson(const std::string& name) {
    std::string text = readText(path(name));
    json j = json::parse(text, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << text;
    return j;
  }
  std::vector<float> a_, b_;
};

TEST_F(TpcSim, RunsTheAddSampleWritesTheOutputAndJson) {
  setUpAdd();
  auto aBefore = readBytes(path("a.npy")), bBefore = readBytes(path("b.npy"));
  struct stat st0;
  ASSERT_EQ(stat(path("a.npy").c_str(), &st0), 0);
  Result r = run(kSim + " add.o -t a.npy -t b.npy -t out.npy=f32[3,100] --json stats.json");
  ASSERT_EQ(r.status, 0) << r.err;
  expectAddOutput("out.npy");
  // Inputs that the kernel does not store to stay untouched on disk (same bytes, same file).
  EXPECT_EQ(readBytes(path("a.npy")), aBefore);
  EXPECT_EQ(readBytes(path("b.npy")), bBefore);
  struct stat st1;
  ASSERT_EQ(stat(path("a.npy").c_str(), &st1), 0);
  EXPECT_EQ(st0.st_ino, st1.st_ino);
  EXPECT_EQ(st0.st_mtim.tv_sec, st1.st_mtim.tv_sec);
  EXPECT_EQ(st0.st_mtim.tv_nsec, st1.st_mtim.tv_nsec);

  json j = readJson("stats.json");
  ASSERT_TRUE(j.is_object());
  ASSERT_TRUE(j.contains("cycles") && j["cycles"].is_number_integer()) << j.dump();
  ASSERT_TRUE(j.contains("total_bundles") && j["total_bundles"].is_number_integer());
  ASSERT_TRUE(j.contains("cores") && j["cores"].is_array());
  EXPECT_EQ(j["cores"].size(), 24u);  // gaudi2's core count by default
  uint64_t maxCycles = 0, bundles = 0;
  int active = 0;
  for (const json& c : j["cores"]) {
    for (const char* key : {"cycles", "bundles", "stalls"}) ASSERT_TRUE(c.contains(key) && c[key].is_number_integer()) << key;
    ASSERT_TRUE(c.contains("slot_utilization"));
    const json& u = c["slot_utilization"];
    for (const char* slot : {"load", "spu", "vpu", "store"}) {
      ASSERT_TRUE(u.contains(slot) && u[slot].is_number()) << slot;
      EXPECT_GE(u[slot].get<double>(), 0.0);
      EXPECT_LE(u[slot].get<double>(), 1.0);
    }
    maxCycles = std::max(maxCycles, c["cycles"].get<uint64_t>());
    bundles += c["bundles"].get<uint64_t>();
    EXPECT_EQ(c["stalls"].get<uint64_t>(), 0u);  // the sample is scheduled for the latencies
    if (c["bundles"].get<uint64_t>() > 0) {
      ++active;
      // One bundle per cycle: a vector column of one row is one loop pass of 12 bundles.
      EXPECT_EQ(c["cycles"].get<uint64_t>(), c["bundles"].get<uint64_t>());
      EXPECT_GT(u["vpu"].get<double>(), 0.0);
    }
  }
  EXPECT_EQ(active, 6);  // index space [2, 3]: six points
  EXPECT_EQ(j["cycles"].get<uint64_t>(), maxCycles);
  EXPECT_EQ(j["total_bundles"].get<uint64_t>(), bundles);
  EXPECT_EQ(maxCycles, addCycles(1, 1));
  EXPECT_EQ(bundles, 6 * addCycles(1, 1));
}

TEST_F(TpcSim, OneCoreCyclesAreExactAndStatsPrintsPerCoreLines) {
  setUpAdd();
  Result r = run(kSim + " add.o -t a.npy -t b.npy -t out.npy=f32[3,100] --cores 1 --json s.json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = readJson("s.json");
  EXPECT_EQ(j["cycles"].get<uint64_t>(), addCycles(2, 3));
  EXPECT_EQ(j["total_bundles"].get<uint64_t>(), addCycles(2, 3));
  ASSERT_EQ(j["cores"].size(), 1u);
  // Slot utilization of one core: 2 loads, 1 vpu op and 1 store per vector; the SPU runs the loop control.
  const json& u = j["cores"][0]["slot_utilization"];
  const double n = static_cast<double>(addCycles(2, 3));
  EXPECT_NEAR(u["load"].get<double>(), 12.0 / n, 1e-9);
  EXPECT_NEAR(u["vpu"].get<double>(), 6.0 / n, 1e-9);
  EXPECT_NEAR(u["store"].get<double>(), 6.0 / n, 1e-9);
  EXPECT_NEAR(u["spu"].get<double>(), (11.0 + 2 * 3 + 6) / n, 1e-9);

  r = run(kSim + " add.o -t a.npy -t b.npy -t out2.npy=f32[3,100] --cores 4 --stats --json s4.json");
  ASSERT_EQ(r.status, 0) << r.err;
  expectAddOutput("out2.npy");
  json j4 = readJson("s4.json");
  ASSERT_EQ(j4["cores"].size(), 4u);
  // --stats: one line per active core, "core cycles bundles stalls" then the slot percentages.
  std::regex line(R"(^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+%\s+[\d.]+%\s+[\d.]+%\s+[\d.]+%\s*$)");
  int active = 0;
  for (const json& c : j4["cores"]) active += c["bundles"].get<uint64_t>() > 0;
  EXPECT_EQ(active, 3);  // index space [2, 3] splits into three boxes of two points
  std::istringstream in(r.out);
  int rows = 0;
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    size_t core = std::stoul(m[1]);
    ASSERT_LT(core, 4u);
    const json& c = j4["cores"][core];
    EXPECT_EQ(std::stoull(m[2]), c["cycles"].get<uint64_t>()) << l;
    EXPECT_EQ(std::stoull(m[3]), c["bundles"].get<uint64_t>()) << l;
    EXPECT_EQ(std::stoull(m[4]), c["stalls"].get<uint64_t>()) << l;
    ++rows;
  }
  EXPECT_EQ(rows, active) << r.out;
  EXPECT_TRUE(contains(r.out, "cycles")) << r.out;
}

TEST_F(TpcSim, TraceHasOneLinePerExecutedBundle) {
  setUpAdd();
  Result r = run(kSim + " add.o -t a.npy -t b.npy -t out.npy=f32[3,100] --cores 3 --trace trace.txt --json s.json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = readJson("s.json");
  std::string trace = readText(path("trace.txt"));
  std::istringstream in(trace);
  std::regex shape(R"(^core (\d+) cycle (\d+) 0x([0-9a-f]+): .* ; .* ; .* ; .*$)");
  uint64_t count = 0;
  std::vector<uint64_t> perCore(3, 0);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l, m, shape)) << l;
    size_t core = std::stoul(m[1]);
    ASSERT_LT(core, 3u);
    ++perCore[core];
    ++count;
  }
  EXPECT_EQ(count, j["total_bundles"].get<uint64_t>());
  for (size_t c = 0; c < 3; ++c) EXPECT_EQ(perCore[c], j["cores"][c]["bundles"].get<uint64_t>());
  EXPECT_TRUE(contains(trace, "core 0 cycle 0 0x0000: nop ; mov_irf_dim.i32 s0, i0 ; nop ; nop")) << trace.substr(0, 300);
  EXPECT_TRUE(contains(trace, "ld_tnsr.f32 v0, i2 ; nop ; nop ; nop"));  // tnsr=0 is the default, not printed
  EXPECT_TRUE(contains(trace, "ld_tnsr.f32 v1, i2 tnsr=1 ; nop ; nop ; nop"));
  EXPECT_TRUE(contains(trace, "halt"));
}

TEST_F(TpcSim, Bf16ReinterpretationOfAU16File) {
  assembleSample("relu_bf16.s", "relu.o");
  // NumPy has no bfloat16: the input is saved as <u2 raw bits.
  std::vector<uint16_t> x(2 * 129);
  for (size_t i = 0; i < x.size(); ++i) {
    float f = (static_cast<float>(i) - 100.0f) * 0.25f;  // exactly representable in bf16
    x[i] = static_cast<uint16_t>(bitsOf(f) >> 16);
  }
  x[0] = 0x7fc1;  // NaN
  x[1] = 0x8000;  // -0
  x[2] = 0x0001;  // denormal
  writeNpy("x.npy", makeTensor(DType::U16, {2, 129}, x));
  auto before = readBytes(path("x.npy"));
  Result r = run(kSim + " relu.o -t x.npy:bf16 -t out.npy=bf16[2,129]");
  ASSERT_EQ(r.status, 0) << r.err;
  tpc::HostTensor out = readNpy("out.npy");
  EXPECT_EQ(out.dtype, DType::U16);  // bf16 written as <u2
  EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 129}));
  std::vector<uint16_t> v = valuesOf<uint16_t>(out);
  ASSERT_EQ(v.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    uint16_t want = (x[i] & 0x8000u) || (x[i] & 0x7f80u) == 0 ? 0 : x[i];
    if (i == 0) want = 0x7fc0;
    ASSERT_EQ(v[i], want) << i;
  }
  EXPECT_EQ(readBytes(path("x.npy")), before);
  // Reinterpreting as a type of another element size is bad input.
  auto names = entries();
  r = run(kSim + " relu.o -t x.npy:f32 -t out3.npy=bf16[2,129]");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "x.npy")) << r.err;
  EXPECT_EQ(entries(), names);
}

TEST_F(TpcSim, CoresThreadsIndexSpaceAndArch) {
  setUpAdd();
  Result r1 = run(kSim + " add.o -t a.npy -t b.npy -t o1.npy=f32[3,100] --cores 5 --threads 1 --json j1.json");
  Result r4 = run(kSim + " add.o -t a.npy -t b.npy -t o4.npy=f32[3,100] --cores 5 --threads 4 --json j4.json");
  ASSERT_EQ(r1.status, 0) << r1.err;
  ASSERT_EQ(r4.status, 0) << r4.err;
  expectAddOutput("o1.npy");
  EXPECT_EQ(readBytes(path("o1.npy")), readBytes(path("o4.npy")));
  EXPECT_EQ(readJson("j1.json"), readJson("j4.json"));
  EXPECT_EQ(readJson("j1.json")["cores"].size(), 5u);

  // --index-space 1,3: only the first vector column of each row is computed.
  Result ri = run(kSim + " add.o -t a.npy -t b.npy -t oi.npy=f32[3,100] --index-space 1,3 --json ji.json");
  ASSERT_EQ(ri.status, 0) << ri.err;
  std::vector<float> v = valuesOf<float>(readNpy("oi.npy"));
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 100; ++col) {
      int i = row * 100 + col;
      ASSERT_EQ(v[i], col < 64 ? a_[i] + b_[i] : 0.0f) << row << "," << col;
    }
  json ji = readJson("ji.json");
  uint64_t total = ji["total_bundles"].get<uint64_t>();
  EXPECT_EQ(total, 3 * addCycles(1, 1));

  // --arch picks the default core count.
  for (auto [arch, cores] : {std::pair<const char*, size_t>{"gaudi", 8}, {"gaudi2", 24}, {"gaudi3", 64}}) {
    Result ra = run(kSim + " add.o -t a.npy -t b.npy -t oa.npy=f32[3,100] --arch " + arch + " --json ja.json");
    ASSERT_EQ(ra.status, 0) << ra.err;
    EXPECT_EQ(readJson("ja.json")["cores"].size(), cores) << arch;
    expectAddOutput("oa.npy");
  }
}

TEST_F(TpcSim, ScalarArgumentsParsedByTheParameterType) {
  assembleText(kScaleKernel, "scale.o");
  std::vector<float> x(2 * 70);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 33.0f;
  writeNpy("x.npy", makeTensor(DType::F32, {2, 70}, x));
  Result r = run(kSim + " scale.o -t x.npy -s 2.5 -t out.npy=f32[2,70]");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<float> v = valuesOf<float>(readNpy("out.npy"));
  ASSERT_EQ(v.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(v[i], x[i] * 2.5f) << i;

  auto names = entries();
  struct Bad {
    std::string args, mentions;
  };
  for (const Bad& b : {Bad{"-s abc", "abc"}, Bad{"-s 1.5x", "1.5x"}, Bad{"-s 1e60", "1e60"}, Bad{"-s 1 -s 2", "scalar"},
                       Bad{"", "scalar"}}) {
    SCOPED_TRACE(b.args);
    Result rb = run(kSim + " scale.o -t x.npy -t new.npy=f32[2,70] " + b.args);
    EXPECT_EQ(rb.status, 1);
    EXPECT_TRUE(contains(rb.err, b.mentions)) << rb.err;
    EXPECT_EQ(entries(), names);
  }
  Result rb = run(kSim + " scale.o -t x.npy -t new.npy=f32[2,70] -s abc");
  EXPECT_TRUE(contains(rb.err, "f32")) << rb.err;  // what was expected
}

// Each bad invocation: exit status 1, a message naming the argument or file, and no file created.
TEST_F(TpcSim, BadInputExitsOneWithAMessageAndNoOutput) {
  setUpAdd();
  std::vector<uint8_t> badNpy = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 10, 0};
  std::string header = "{'descr': ";
  badNpy.insert(badNpy.end(), header.begin(), header.end());
  writeBytes(path("bad.npy"), badNpy);
  writeBytes(path("notnpy.npy"), {'h', 'e', 'l', 'l', 'o'});
  struct Bad {
    std::string args, mentions;
  };
  const std::string ok = " -t a.npy -t b.npy -t out.npy=f32[3,100]";
  const std::vector<Bad> cases = {
      {"add.o -t missing.npy -t b.npy -t out.npy=f32[3,100]", "missing.npy"},
      {"missing.o" + ok, "missing.o"},
      {"add.o -t bad.npy -t b.npy -t out.npy=f32[3,100]", "bad.npy"},
      {"add.o -t notnpy.npy -t b.npy -t out.npy=f32[3,100]", "notnpy.npy"},
      {"add.o" + ok + " --bogus", "--bogus"},
      {"add.o -t a.npy -t b.npy", "3 tensor"},
      {"add.o -t a.npy -t b.npy -t out.npy=f32[3,100] -t c.npy=f32[4]", "3 tensor"},
      {"add.o" + ok + " -s 5", "scalar"},
      {"add.o" + ok + " -s x", "-s"},
      {"add.o -t a.npy -t b.npy -t out.npy=f33[4]", "f33"},
      {"add.o -t a.npy -t b.npy -t out.npy=f32[0]", "out.npy=f32[0]"},
      {"add.o -t a.npy -t b.npy -t out.npy=f32[3,", "out.npy=f32[3,"},
      {"add.o -t a.npy -t b.npy -t out.npy=f32[]", "out.npy=f32[]"},
      {"add.o -t a.npy:q7 -t b.npy -t out.npy=f32[3,100]", "q7"},
      {"add.o" + ok + " --index-space 1,x", "--index-space"},
      {"add.o" + ok + " --index-space 0", "--index-space"},
      {"add.o" + ok + " --index-space 1,2,3,4,5,6", "--index-space"},
      {"add.o" + ok + " --index-space -1", "--index-space"},
      {"add.o" + ok + " --index-space ''", "--index-space"},
      {"add.o" + ok + " --cores 0", "--cores"},
      {"add.o" + ok + " --cores many", "--cores"},
      {"add.o" + ok + " --threads x", "--threads"},
      {"add.o" + ok + " --arch gaudi9", "gaudi9"},
      {"add.o" + ok + " --max-cycles -5", "--max-cycles"},
      {"add.o" + ok + " --json", "--json"},
      {"" + ok, "kernel"},
      {"", "kernel"},
  };
  auto names = entries();
  for (const Bad& b : cases) {
    SCOPED_TRACE(b.args);
    Result r = run(kSim + " " + b.args);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_TRUE(contains(r.err, b.mentions)) << "stderr: " << r.err;
    EXPECT_FALSE(r.err.empty());
    std::set<std::string> now = entries();
    EXPECT_EQ(now, names);
    for (const std::string& n : now) EXPECT_EQ(n.find(".tmp"), std::string::npos) << n;
  }
}

TEST_F(TpcSim, UnwritableStatsFileIsBadInput) {
  setUpAdd();
  Result r = run(kSim + " add.o -t a.npy -t b.npy -t out.npy=f32[3,100] --json nodir/s.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "nodir/s.json")) << r.err;
  r = run(kSim + " add.o -t a.npy -t b.npy -t nodir/out.npy=f32[3,100]");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "nodir/out.npy")) << r.err;
}

TEST_F(TpcSim, TruncatedAndGarbledObjectsAreBadInput) {
  setUpAdd();
  std::vector<uint8_t> obj = readBytes(path("add.o"));
  ASSERT_GT(obj.size(), 200u);
  auto names = entries();
  for (size_t len : {size_t{0}, size_t{1}, size_t{16}, size_t{63}, size_t{64}, size_t{100}, obj.size() / 2,
                     obj.size() - 64, obj.size() - 1}) {
    SCOPED_TRACE("truncated to " + std::to_string(len));
    writeBytes(path("cut.o"), std::vector<uint8_t>(obj.begin(), obj.begin() + static_cast<long>(len)));
    Result r = run(kSim + " cut.o -t a.npy -t b.npy -t out.npy=f32[3,100]");
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "cut.o")) << r.err;
    fs::remove(path("cut.o"));
    EXPECT_EQ(entries(), names);
  }
  // An illegal opcode inside .text, found by locating the code (as the object library reads it) in the file.
  std::vector<uint8_t> text = tpc::obj::readObject(obj, "add.o").text;
  ASSERT_GE(text.size(), 128u);
  auto at = std::search(obj.begin(), obj.end(), text.begin(), text.end());
  ASSERT_NE(at, obj.end());
  const size_t textOffset = static_cast<size_t>(at - obj.begin());
  std::vector<uint8_t> garbled = obj;
  garbled[textOffset + 64 + 2 * 16] = 0xee;  // opcode byte of the second bundle's VPU slot
  writeBytes(path("garbled.o"), garbled);
  Result r = run(kSim + " garbled.o -t a.npy -t b.npy -t out.npy=f32[3,100]");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "garbled.o")) << r.err;
  EXPECT_TRUE(contains(r.err, "0x40")) << r.err;  // the bundle address
  EXPECT_TRUE(contains(r.err, "opcode")) << r.err;
  EXPECT_FALSE(fs::exists(path("out.npy")));
  // Not an ELF at all, and bytes flipped all over the file: never a crash, never an output after an error.
  std::vector<uint8_t> notElf = obj;
  notElf[0] = 'X';
  writeBytes(path("notelf.o"), notElf);
  r = run(kSim + " notelf.o -t a.npy -t b.npy -t out.npy=f32[3,100]");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "notelf.o")) << r.err;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::vector<uint8_t> g = obj;
    uint32_t x = seed * 2654435761u;
    for (int k = 0; k < 8; ++k) {
      x = x * 1664525u + 1013904223u;
      g[x % g.size()] ^= static_cast<uint8_t>(1u << (x >> 29));
    }
    writeBytes(path("g.o"), g);
    r = run(kSim + " g.o -t a.npy -t b.npy -t gout.npy=f32[3,100] --max-cycles 100000");
    EXPECT_TRUE(r.status == 0 || r.status == 1 || r.status == 2) << r.status << " " << r.err;
    if (r.status != 0) {
      EXPECT_FALSE(fs::exists(path("gout.npy"))) << r.err;
      EXPECT_FALSE(r.err.empty());
    }
    fs::remove(path("gout.npy"));
  }
}

// An f32 load from a tensor of 2-byte elements (as the hardware allows) reads bytes: the coordinate counts
// the tensor's elements, the lanes are f32, and a lane is inside when all its bytes are inside dimension 0.
TEST_F(TpcSim, ElementSizeMismatchIsAddressedInBytes) {
  setUpAdd();
  std::vector<float> f(150);  // row r holds the floats f[50r .. 50r+49] as 100 i16 halves
  for (int k = 0; k < 150; ++k) f[k] = 0.25f * static_cast<float>(k) - 7.0f;
  std::vector<int16_t> a16(300);
  std::memcpy(a16.data(), f.data(), 600);
  writeNpy("a16.npy", makeTensor(DType::I16, {3, 100}, a16));
  Result r = run(kSim + " add.o -t a16.npy -t b.npy -t out.npy=f32[3,100]");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<float> out = valuesOf<float>(readNpy("out.npy"));
  for (int row = 0; row < 3; ++row)
    for (int x = 0; x < 100; ++x) {
      // Vector at element 0: lanes 0..49 are the row's floats, 50..63 outside; at element 64 (byte 128):
      // lanes 0..17 are floats 32..49, the rest outside (padding 0).
      float a = x < 50 ? f[50 * row + x] : (x >= 64 && x < 82) ? f[50 * row + 32 + (x - 64)] : 0.0f;
      ASSERT_EQ(out[100 * row + x], a + b_[100 * row + x]) << row << "," << x;
    }
}

TEST_F(TpcSim, KernelFaultExitsTwoNamesCoreAndBundleAndWritesNothing) {
  assembleText(kFaultKernel, "faulty.o");
  std::vector<float> x(64, 1.0f);
  writeNpy("x.npy", makeTensor(DType::F32, {64}, x));
  auto before = readBytes(path("x.npy"));
  auto names = entries();
  Result r = run(kSim + " faulty.o -t x.npy -t out.npy=f32[64] --cores 4 --index-space 4 --json s.json --trace t.txt");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "core 3")) << r.err;
  EXPECT_TRUE(contains(r.err, "0xc0")) << r.err;
  EXPECT_TRUE(contains(r.err, "misaligned")) << r.err;
  EXPECT_EQ(entries(), names);  // no out.npy, no s.json, no t.txt
  EXPECT_EQ(readBytes(path("x.npy")), before);  // x is stored to by the kernel, but not after a fault
  // Without the faulting core the same kernel runs and writes x back and the output.
  r = run(kSim + " faulty.o -t x.npy -t out.npy=f32[64] --cores 3 --index-space 3 --json s.json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(path("out.npy")));
  EXPECT_TRUE(fs::exists(path("s.json")));
}

TEST_F(TpcSim, CycleLimitIsAKernelFault) {
  setUpAdd();
  auto names = entries();
  Result r = run(kSim + " add.o -t a.npy -t b.npy -t out.npy=f32[3,100] --cores 1 --max-cycles 50 --json s.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "core 0")) << r.err;
  EXPECT_TRUE(contains(r.err, "cycle limit")) << r.err;
  EXPECT_EQ(entries(), names);
  // Exactly enough cycles pass.
  r = run(kSim + " add.o -t a.npy -t b.npy -t out.npy=f32[3,100] --cores 1 --max-cycles " +
          std::to_string(addCycles(2, 3)));
  EXPECT_EQ(r.status, 0) << r.err;
  expectAddOutput("out.npy");
}

TEST_F(TpcSim, StrictHazardsRunsTheScheduledSampleAndHelpExitsZero) {
  setUpAdd();
  Result r = run(kSim + " add.o -t a.npy -t b.npy -t out.npy=f32[3,100] --strict-hazards");
  EXPECT_EQ(r.status, 0) << r.err;
  expectAddOutput("out.npy");
  // An unscheduled kernel faults under --strict-hazards and stalls without it.
  assembleText(".kernel k\n.param tensor out\nk:\n  nop ; add.i32 s1, s0, 1 ; nop ; nop\n"
               "  nop ; nop ; mov.i32 v0, s1 ; nop\n  nop ; nop ; nop ; st_tnsr.i32 i2, v0 tnsr=0\n"
               "  nop ; halt ; nop ; nop\n",
               "k.o");
  r = run(kSim + " k.o -t o.npy=i32[64] --strict-hazards");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "s1")) << r.err;
  EXPECT_TRUE(contains(r.err, "0x40")) << r.err;
  EXPECT_FALSE(fs::exists(path("o.npy")));
  r = run(kSim + " k.o -t o.npy=i32[64] --json k.json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(valuesOf<int32_t>(readNpy("o.npy")), std::vector<int32_t>(64, 1));
  EXPECT_EQ(readJson("k.json")["cores"][0]["stalls"].get<uint64_t>(), 3u + 3u);

  r = run(kSim + " --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(contains(r.out, "-t")) << r.out;
}

}  // namespace
}  // namespace tooltest
