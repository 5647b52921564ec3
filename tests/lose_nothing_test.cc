// Inputs that kill a worker are never lost, whatever the worker was doing: running a seed
// as it is, or minimizing a new input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;

TEST(LoseNothingTest, CrashingSeedIsSavedExactly) {
  std::string dir = MakeTempDir();
  std::string seeds = dir + "/seeds";
  RunCommand({"/bin/mkdir", "-p", seeds}, 10);
  WriteFile(seeds + "/crasher", "HI!");
  CommandResult r = RunCommand({PollenBin(), "fuzz", Example("shallow_crash"), seeds, "--workers=1",
                                "--seed=1", "--runs=1000", "--workdir=" + dir + "/work"},
                               300);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("while running an input as it is"));
  auto found = ArtifactInputs(dir + "/work/crashes", "crash");
  ASSERT_EQ(found.size(), 1u) << r.output;
  EXPECT_EQ(ReadFile(found[0]), "HI!");
}

TEST(LoseNothingTest, DeathDuringMinimizationKeepsTheCandidate) {
  std::string dir = MakeTempDir();
  std::string seeds = dir + "/seeds";
  RunCommand({"/bin/mkdir", "-p", seeds}, 10);
  WriteFile(seeds + "/seed", "PREFXXXXXXXX");
  // Seed 2: with seed 1, since the mutators became 18 (NestGroup), a 5-byte entry joins the
  // corpus and the one-byte change to "PREFB" crashes while fuzzing, before any minimization
  // (seeds 2 to 8 all die in the minimization, 2026-11-27).
  CommandResult r =
      RunCommand({PollenBin(), "fuzz", TestTarget("minimize_crash"), seeds, "--workers=1",
                  "--seed=2", "--runs=2000000", "--workdir=" + dir + "/work"},
                 300);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  auto found = ArtifactInputs(dir + "/work/crashes", "crash");
  ASSERT_EQ(found.size(), 1u) << r.output;
  EXPECT_EQ(ReadFile(found[0]), "PREFB");
  EXPECT_THAT(r.output, HasSubstr("while minimizing a new input"));
}

}  // namespace
}  // namespace pollen::testing
