// Executions stopped at a time limit may take 5 % of the workers' time; past that share,
// mutants are stopped at the hang cutoff and saved as hangs, one per stack, instead of
// costing the whole --timeout each (node/hang_cutoff.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

struct HangRun {
  CommandResult result;
  std::vector<std::string> timeouts;  // artifacts' inputs
  std::vector<std::string> hangs;
  long stopped_at_cutoff = -1;
};

// Eight seconds of three_hangs from a seed that does not hang, with a 2-s timeout.
HangRun RunThreeHangs(const std::string& cutoff_ms) {
  std::string dir = MakeTempDir();
  std::filesystem::create_directories(dir + "/seeds");
  WriteFile(dir + "/seeds/G0", "G0");
  HangRun run;
  run.result = RunCommand({PollenBin(), "fuzz", TestTarget("three_hangs"), dir + "/seeds",
                           "--workers=1", "--seed=1", "--timeout=2", "--keep-going", "--time=8",
                           "--hang-cutoff-ms=" + cutoff_ms, "--workdir=" + dir + "/work"},
                          120);
  run.timeouts = ArtifactInputs(dir + "/work/crashes", "timeout");
  run.hangs = ArtifactInputs(dir + "/work/crashes", "hang");
  run.stopped_at_cutoff =
      NumberAfter(run.result.output, R"((\d+) executions stopped at the hang cutoff)");
  return run;
}

TEST(HangCutoffTest, AfterTheFirstTimeoutMutantsAreStoppedAtTheCutoff) {
  HangRun run = RunThreeHangs("200");
  const std::string& out = run.result.output;
  EXPECT_EQ(run.result.exit_code, 1) << out;  // the timeout is a failure
  // The first hang ran into the timeout; its 2 s are far more than 5 % of an 8-s run, so
  // every later one was stopped at 200 ms: the stack of that timeout again folds into it,
  // the two others are saved as hangs.
  EXPECT_EQ(run.timeouts.size(), 1u) << out;
  EXPECT_GE(run.hangs.size(), 1u) << out;
  EXPECT_LE(run.hangs.size(), 2u) << out;
  for (const std::string& h : run.hangs) EXPECT_EQ(ReadFile(h).substr(0, 1), "H") << h;
  EXPECT_GE(run.stopped_at_cutoff, static_cast<long>(run.hangs.size())) << out;
  EXPECT_NE(out.find("not reported as a failure"), std::string::npos) << out;
}

TEST(HangCutoffTest, ZeroGivesEveryExecutionTheTimeout) {
  HangRun run = RunThreeHangs("0");
  const std::string& out = run.result.output;
  EXPECT_EQ(run.result.exit_code, 1) << out;
  EXPECT_GE(run.timeouts.size(), 1u) << out;
  EXPECT_TRUE(run.hangs.empty()) << out;
  EXPECT_EQ(run.stopped_at_cutoff, 0) << out;
}

}  // namespace
}  // namespace pollen::testing
