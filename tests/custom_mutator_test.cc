// LLVMFuzzerCustomMutator, LLVMFuzzerCustomCrossOver and LLVMFuzzerMutate
// (engine/runtime/custom_mutator.h), with tests/targets/custom_mutator.cc: an encoded input
// that Pollen's byte mutators cannot get through and the target's own mutator can.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;

// The payload of an input of custom_mutator: each byte xor-ed with its position's key.
std::string Decode(std::string data) {
  for (size_t i = 0; i < data.size(); i++)
    data[i] = static_cast<char>(data[i] ^ static_cast<char>(0x5A + 31 * i));
  return data;
}

TEST(CustomMutatorTest, TheTargetsMutatorFindsTheBugAndItsCrashIsRebuiltExactly) {
  std::string dir = MakeTempDir();
  std::string log = dir + "/hooks.log";
  CommandResult r =
      RunCommand({PollenBin(), "fuzz", TestTarget("custom_mutator"), "--workers=1", "--seed=3",
                  "--runs=5000000", "--workdir=" + dir + "/work", "--minimize-time=0"},
                 600, {"POLLEN_TEST_HOOK_LOG=" + log});
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  std::vector<std::string> crashes = ArtifactInputs(dir + "/work/crashes", "crash");
  ASSERT_EQ(crashes.size(), 1u) << r.output;
  // The coordinator cannot replay the target's mutator: the worker published the mutant,
  // and what was saved is the input that crashed, byte for byte.
  EXPECT_EQ(Decode(ReadFile(crashes[0])).substr(0, 8), "POLLEN!!") << r.output;
  CommandResult repro =
      RunCommand({PollenBin(), "repro", TestTarget("custom_mutator"), crashes[0]}, 60);
  EXPECT_EQ(repro.exit_code, 1) << repro.output;
  std::string hooks = ReadFile(log);
  EXPECT_THAT(hooks, HasSubstr("custom mutator\n"));
  EXPECT_THAT(hooks, HasSubstr("LLVMFuzzerMutate\n"));
}

// The crossover runs once the corpus has partners (the bug disarmed, so the run goes on).
TEST(CustomMutatorTest, TheTargetsCrossOverRunsToo) {
  std::string dir = MakeTempDir();
  std::string log = dir + "/hooks.log";
  CommandResult r = RunCommand({PollenBin(), "fuzz", TestTarget("custom_mutator"), "--workers=1",
                                "--seed=4", "--runs=300000", "--workdir=" + dir + "/work"},
                               600, {"POLLEN_TEST_HOOK_LOG=" + log, "POLLEN_TEST_NO_BUG=1"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_THAT(ReadFile(log), HasSubstr("custom crossover\n")) << r.output;
}

// The same target without the hooks: the encoding hides the bug from Pollen's byte
// mutators, so the find above is the hooks'. (Without the value profile: on auto it turns on
// after 5 s without a new edge and climbs to the encoded bytes one at a time, at about 17 M
// executions on 2026-11-27.)
TEST(CustomMutatorTest, WithoutTheHooksTheBugStaysHidden) {
  std::string dir = MakeTempDir();
  CommandResult r =
      RunCommand({PollenBin(), "fuzz", TestTarget("custom_mutator_plain"), "--workers=1",
                  "--seed=3", "--runs=10000000", "--use-value-profile=false", "--workdir=" + dir},
                 600);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
}  // namespace pollen::testing
