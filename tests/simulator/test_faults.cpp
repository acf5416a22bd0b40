// Kernel faults (each names the core and the bundle address) and the programs Program::load rejects.
#include "sim_test_util.h"

namespace simtest {
namespace {

struct FaultCase {
  const char* name;
  std::string text;
  uint32_t address;       // byte address of the faulting bundle
  const char* mentions;   // a part of the message
};

void expectFault(SimRun& run, int core, uint32_t address, const std::string& mentions) {
  ASSERT_TRUE(run.result.fault.has_value()) << "no fault";
  const tpc::sim::Fault& f = *run.result.fault;
  EXPECT_EQ(f.core, core);
  EXPECT_EQ(f.address, address);
  EXPECT_TRUE(contains(f.message, mentions)) << f.message;
  std::string text = f.describe();
  EXPECT_TRUE(contains(text, "core " + std::to_string(core))) << text;
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%x", address);
  EXPECT_TRUE(contains(text, hex)) << text;
}

TEST(Faults, MemoryAndExecutionFaultsNameCoreAndBundle) {
  const std::string nop = "nop ; nop ; nop ; nop\n";
  const std::string halt = "nop ; halt ; nop ; nop\n";
  const std::vector<FaultCase> cases = {
      {"scalar local out of range", nop + "nop ; nop ; nop ; st_l.i32 0x400, s0\n" + halt, 0x40, "out of range"},
      {"scalar local word at a halfword address", nop + nop + "ld_l.i32 s1, 0x3fe ; nop ; nop ; nop\n" + halt, 0x80,
       "misaligned"},
      {"scalar local misaligned", "ld_l.i32 s1, 2 ; nop ; nop ; nop\n" + halt, 0x0, "misaligned"},
      {"scalar local u16 misaligned", nop + "nop ; nop ; nop ; st_l.u16 0x11, s0\n" + halt, 0x40, "misaligned"},
      {"vector local out of range", nop + "ld_l_v.f32 v1, 0x14000 ; nop ; nop ; nop\n" + halt, 0x40, "out of range"},
      {"vector local misaligned", nop + nop + nop + "nop ; nop ; nop ; st_l_v.f32 0x80, v0\n" + halt, 0xc0,
       "misaligned"},
      {"global through a null address", "ld_g.f32 s1, ad0 ; nop ; nop ; nop\n" + halt, 0x0, "outside"},
      {"global far outside the tensor",
       "nop ; i_mov.i32 i3, 1000000 dmask=0b00001 ; nop ; nop\n"
       "gen_addr ad1, i3 tnsr=0 ; nop ; nop ; nop\n" +
           nop + "nop ; nop ; nop ; st_g.f32 ad1, s0\n" + halt,
       0xc0, "outside"},
      {"global vector past the end",
       "nop ; i_mov.i32 i3, 1 dmask=0b00001 ; nop ; nop\n"
       "gen_addr ad1, i3 tnsr=0 ; nop ; nop ; nop\n"
       "ld_g_v.f32 v1, ad1 ; nop ; nop ; nop\n" + halt,
       0x80, "outside"},
      {"negative coordinate before the arena",
       "nop ; i_mov.i32 i3, -1000 dmask=0b00001 ; nop ; nop\n"
       "gen_addr ad1, i3 tnsr=0 ; nop ; nop ; nop\n"
       "ld_g.f32 s2, ad1 ; nop ; nop ; nop\n" + halt,
       0x80, "outside"},
      {"no halt", nop + nop, 0x80, "past the end"},
      {"unbound tensor", nop + "ld_tnsr.f32 v0, i2 tnsr=3 ; nop ; nop ; nop\n" + halt, 0x40, "tensor 3 is not bound"},
      {"unbound tensor in a store", nop + "nop ; nop ; nop ; st_tnsr.f32 i2, v0 tnsr=15\n" + halt, 0x40,
       "tensor 15 is not bound"},
      {"unbound tensor in gen_addr", "gen_addr ad0, i2 tnsr=1 ; nop ; nop ; nop\n" + halt, 0x0, "not bound"},

  };
  for (const FaultCase& c : cases) {
    SCOPED_TRACE(c.name);
    SimRun run(c.text);
    run.addTensor(DType::F32, sizes5({64}), std::vector<float>(64, 1.0f));
    run.run({7});
    expectFault(run, 0, c.address, c.mentions);
    EXPECT_FALSE(run.core().halted());
  }
}

TEST(Faults, CycleLimit) {
  LaunchOptions opt;
  opt.maxCycles = 100;
  SimRun run(lines({"top:", "nop ; add.i32 s1, s1, 1 ; nop ; nop", "nop ; jmpr top ; nop ; nop",
                    "nop ; halt ; nop ; nop"}),
             opt);
  run.run();
  ASSERT_TRUE(run.result.fault);
  EXPECT_TRUE(contains(run.result.fault->message, "cycle limit")) << run.result.fault->message;
  EXPECT_TRUE(contains(run.result.fault->message, "100")) << run.result.fault->message;
  EXPECT_EQ(run.result.fault->core, 0);
  EXPECT_LT(run.result.fault->address, 0x80u);
  EXPECT_GE(run.core().cycle(), 100u);
  EXPECT_LE(run.stats().cycles, 100u + 3u);
  // The limit is exact: a straight-line kernel of 5 bundles (cycles 0..4) passes with limit 5, not with 4.
  LaunchOptions exact;
  exact.maxCycles = 5;
  SimRun ok(lines({"nop ; nop ; nop ; nop", "nop ; nop ; nop ; nop", "nop ; nop ; nop ; nop",
                   "nop ; nop ; nop ; nop", "nop ; halt ; nop ; nop"}),
            exact);
  ok.run();
  EXPECT_NO_FAULT(ok);
  exact.maxCycles = 4;
  SimRun tooFew(lines({"nop ; nop ; nop ; nop", "nop ; nop ; nop ; nop", "nop ; nop ; nop ; nop",
                       "nop ; nop ; nop ; nop", "nop ; halt ; nop ; nop"}),
                exact);
  tooFew.run();
  expectFault(tooFew, 0, 0x100, "cycle limit");
}

const std::string kFaultOnCore = lines({
    "nop ; mov_irf_dim.i32 s0, i0 dim=0 ; nop ; nop",
    "nop ; cmp_geq.i32 sp1, s0, 2 ; nop ; nop",
    "nop ; nop ; nop ; nop",
    "@sp1 ld_l.i32 s1, 3 ; nop ; nop ; nop",  // 0xc0: misaligned on cores whose offset is >= 2
    "nop ; halt ; nop ; nop",
});

TEST(Faults, ReportsTheFaultingCoreOfAMultiCoreLaunch) {
  for (int threads : {1, 3}) {
    LaunchOptions opt;
    opt.cores = 5;
    opt.threads = threads;
    SimRun run(kFaultOnCore, opt);
    run.run({}, {5, 1, 1, 1, 1});
    expectFault(run, 2, 0xc0, "misaligned");  // the lowest-numbered faulting core
    EXPECT_TRUE(run.core(0).halted());
    EXPECT_TRUE(run.core(1).halted());
    EXPECT_FALSE(run.core(2).halted());
    ASSERT_TRUE(run.core(3).fault());
    EXPECT_EQ(run.core(3).fault()->core, 3);
    EXPECT_EQ(run.core(3).fault()->address, 0xc0u);
    EXPECT_EQ(run.stats(0).bundles, 5u);
    EXPECT_EQ(run.stats(2).bundles, 3u);
  }
}

// ---------------------------------------------------------------------------------------------------
// Program::load.

std::vector<uint8_t> code(const std::string& text) { return assembleText(text); }

TEST(ProgramLoad, AcceptsTheSamples) {
  for (const char* f : {"samples/asm/add_f32.s", "samples/asm/relu_bf16.s"})
    EXPECT_EQ(loadError(code(readSourceFile(f))), "") << f;
}

TEST(ProgramLoad, RejectsTextNotAMultipleOf64) {
  std::vector<uint8_t> c = code("nop ; halt ; nop ; nop\n");
  for (size_t cut : {1u, 10u, 63u}) {
    std::vector<uint8_t> bad(c.begin(), c.end() - static_cast<long>(cut));
    std::string why = loadError(bad);
    EXPECT_TRUE(contains(why, "multiple")) << why;
  }
  std::vector<uint8_t> longer = c;
  longer.push_back(0);
  EXPECT_TRUE(contains(loadError(longer), "multiple"));
  EXPECT_EQ(loadError({}), "");  // empty code loads (and faults when run)
}

TEST(ProgramLoad, RejectsIllegalOpcodeBytes) {
  std::vector<uint8_t> c = code(lines({"nop ; nop ; nop ; nop", "nop ; halt ; nop ; nop"}));
  for (int slot = 0; slot < 4; ++slot) {
    std::vector<uint8_t> bad = c;
    bad[64 + 16 * slot] = 0xff;  // opcode byte of the slot in the second bundle
    std::string why = loadError(bad);
    EXPECT_TRUE(contains(why, "0x40")) << why;
    EXPECT_TRUE(contains(why, "illegal")) << why;
    EXPECT_TRUE(contains(why, "opcode")) << why;
  }
  std::vector<uint8_t> reserved = c;
  reserved[7] |= 0x80;  // reserved bit 63 of the load slot's first word
  EXPECT_TRUE(contains(loadError(reserved), "reserved")) << loadError(reserved);
  std::vector<uint8_t> badSwitch = c;
  badSwitch[64 + 16 + 15] = 0x80;  // switch bits on the SPU slot's halt
  EXPECT_TRUE(contains(loadError(badSwitch), "0x40")) << loadError(badSwitch);
  std::vector<uint8_t> garbage(128);
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<uint8_t>(i * 37 + 11);
  EXPECT_NE(loadError(garbage), "");
}

TEST(ProgramLoad, RejectsJumpTargetOutsideTheCode) {
  std::string why = loadError(code(lines({"nop ; nop ; nop ; nop", "nop ; jmpr 0x1000 ; nop ; nop",
                                          "nop ; halt ; nop ; nop"})));
  EXPECT_TRUE(contains(why, "0x40")) << why;
  EXPECT_TRUE(contains(why, "0x1000")) << why;
  EXPECT_TRUE(contains(why, "outside")) << why;
  // The last bundle is a valid target; one past it is not.
  EXPECT_EQ(loadError(code(lines({"nop ; jmpr 0x40 ; nop ; nop", "nop ; halt ; nop ; nop"}))), "");
  EXPECT_NE(loadError(code(lines({"nop ; jmpr 0x80 ; nop ; nop", "nop ; halt ; nop ; nop"}))), "");
}

TEST(ProgramLoad, RejectsLoopEndBeforeTheLoopOrOutsideTheCode) {
  std::string why = loadError(code(lines({"nop ; nop ; nop ; nop", "nop ; loop.i32 s1, s2, s3, 1 cmp=lt end=0x0 ; nop ; nop",
                                          "nop ; halt ; nop ; nop"})));
  EXPECT_TRUE(contains(why, "0x40")) << why;
  EXPECT_TRUE(contains(why, "loop end")) << why;
  why = loadError(code(lines({"nop ; loop.i32 s1, s2, s3, 1 cmp=lt end=0x0 ; nop ; nop", "nop ; halt ; nop ; nop"})));
  EXPECT_TRUE(contains(why, "loop end")) << why;  // a loop cannot end at itself
  why = loadError(code(lines({"nop ; loop.i32 s1, s2, s3, 1 cmp=lt end=0x1000 ; nop ; nop", "nop ; halt ; nop ; nop"})));
  EXPECT_TRUE(contains(why, "loop end")) << why;
}

TEST(ProgramLoad, RejectsTwoSlotsWritingTheSameRegister) {
  struct Case {
    const char* bundle;
    const char* reg;
  };
  for (Case c : {Case{"ld_l.i32 s1, 0 ; add.i32 s1, s2, s3 ; nop ; nop", "s1"},
                 Case{"ld_tnsr.f32 v3, i2 tnsr=0 ; nop ; add.f32 v3, v1, v2 ; nop", "v3"},
                 Case{"mov.f32 v0, 1.0 ; nop ; mov.f32 v0, 2.0 ; nop", "v0"},
                 Case{"ld_l.i32 s7, 0 ; mov_irf_dim.i32 s7, i1 dim=0 ; nop ; nop", "s7"}}) {
    std::string why = loadError(code(lines({"nop ; nop ; nop ; nop", c.bundle, "nop ; halt ; nop ; nop"})));
    EXPECT_TRUE(contains(why, "0x40")) << why;
    EXPECT_TRUE(contains(why, std::string("two slots write ") + c.reg)) << why;
  }
  // Different registers are fine.
  EXPECT_EQ(loadError(code(lines({"ld_l.i32 s1, 0 ; add.i32 s2, s2, s3 ; nop ; nop", "nop ; halt ; nop ; nop"}))), "");
}

}  // namespace
}  // namespace simtest
