// Minimizing new inputs never takes more time than the fuzz units (plus 2 s to start with),
// and a request that reaches its deadline ends (node/coordinator_work.cc): on a target whose
// finds run slowly, minimization no longer crowds fuzzing out.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

TEST(MinimizeTimeTest, SlowFindsKeepMinimizationToItsShare) {
  std::string dir = MakeTempDir();
  // One 64-byte seed: its mutants that change the first byte's low bits are new, and each
  // candidate of their minimization runs 20 ms.
  std::filesystem::create_directories(dir + "/seeds");
  WriteFile(dir + "/seeds/seed", std::string(64, '\0'));
  CommandResult r = RunCommand(
      {PollenBin(), "fuzz", TestTarget("slow_finds"), dir + "/seeds", "--workers=1", "--seed=3",
       "--time=6", "--use-value-profile=false", "--workdir=" + dir + "/work"},
      120);
  ASSERT_FALSE(r.timed_out) << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  long fuzz_ms = NumberAfter(r.output, R"(fuzz units: \d+ runs in (\d+) ms)");
  long minimize_ms = NumberAfter(
      r.output,
      R"(minimizing \d+ new inputs \(\d+ with the value profile\): \d+ runs in (\d+) ms)");
  long cuts = NumberAfter(r.output, R"((\d+) minimizations cut by time)");
  ASSERT_GE(fuzz_ms, 0) << r.output;  // -1: the line is missing
  ASSERT_GE(minimize_ms, 0) << r.output;
  ASSERT_GE(cuts, 0) << r.output;
  // Something was found and minimized (the test would say nothing otherwise) ...
  EXPECT_GT(NumberAfter(r.output, R"(minimizing (\d+) new inputs)"), 0) << r.output;
  // ... and the clock cut it: each minimization here takes seconds without a deadline.
  EXPECT_GE(cuts, 1) << r.output;
  // The budget: 2 s and the fuzz units' time. Each request's deadline is at most what the
  // budget has left, so only the last one overshoots it: by the run under way and the
  // result's own run (20 ms each), and the round trip; 400 ms leaves room for a loaded
  // machine. (With deadlines of 1 s and no ceiling, minimizing took 4.5 s here against
  // 1.5 s of fuzzing.)
  EXPECT_LE(minimize_ms, 2000 + fuzz_ms + 400) << r.output;
}

}  // namespace
}  // namespace pollen::testing
