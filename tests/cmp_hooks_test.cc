// Pollen's comparison hooks record the operands of memcmp/strncmp/strcmp... for the
// input-to-state mutator. They must read no more than the comparison itself may: a hook that
// read past a short input was reported by ASan as a heap-buffer-overflow of the target's
// (found fuzzing jsoncpp's harness, whose Reader::skipBom compares 3 bytes of any input).
// The target (tests/targets/strncmp_tail.cc) is correct C: any failure is the fuzzer's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;

TEST(CmpHooksTest, ShortInputsComparedAgainstLongerConstantsAreNoFailure) {
  const std::string work = MakeTempDir();
  // Short inputs at the end of the input buffer: the case that made the hooks read past it.
  CommandResult r = RunCommand({PollenBin(), "fuzz", TestTarget("strncmp_tail"), "--workers=1",
                                "--seed=3", "--runs=300000", "--max-len=4", "--workdir=" + work},
                               600);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("failures:     0")) << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("AddressSanitizer"))) << r.output;
}

// The switch hook records the tag against the nearest case above it (a binary search over the
// sorted cases): a wrong search leaves the fuzzer with no way to the middle case.
TEST(CmpHooksTest, SwitchCasesLeadToTheCaseBehindTheLadder) {
  const std::string work = MakeTempDir();
  CommandResult r = RunCommand(
      {PollenBin(), "fuzz", TestTarget("switch_ladder"), "--workers=1", "--seed=5",
       "--runs=3000000", "--use-value-profile=false", "--workdir=" + work, "--minimize-time=5"},
      600);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(ArtifactInputs(work + "/crashes", "crash").size(), 1u) << r.output;
}

// How many fuzz units ran their mutants without comparison hooks (the run's summary line).
long UnitsWithoutHooks(const std::string& output) {
  return NumberAfter(output, "([0-9]+) of [0-9]+ fuzz units' mutants without comparison hooks");
}

// --mutant-cmp-hooks=false: the worker rewrites the hooks' call sites to NOPs for mutants
// (engine/runtime/hook_sites.h), and back for the entry's runs, whose comparisons still lead
// to the magic. The target keeps computing what it did: the planted bug is found, once.
TEST(CmpHooksTest, MutantsWithoutHooksStillReachTheMagic) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "hooks are switched off on x86-64 only";
#endif
  for (const char* setting : {"false", "true"}) {
    SCOPED_TRACE(setting);
    const std::string work = MakeTempDir();
    CommandResult r = RunCommand(
        {PollenBin(), "fuzz", Example("magic8"), "--workers=1", "--seed=7", "--runs=4000000",
         "--workdir=" + work, "--minimize-time=5", std::string("--mutant-cmp-hooks=") + setting},
        600);
    ASSERT_FALSE(r.timed_out) << r.output;
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(ArtifactInputs(work + "/crashes", "crash").size(), 1u) << r.output;
    if (std::string(setting) == "false") {
      EXPECT_GT(UnitsWithoutHooks(r.output), 0) << r.output;
    } else {
      EXPECT_EQ(UnitsWithoutHooks(r.output), 0) << r.output;
    }
  }
}

// A thread the target starts in a mutant run without hooks stops the worker from writing
// their calls back; the coordinator replaces the worker and the run goes on, no failure.
TEST(CmpHooksTest, AWorkerWhoseHooksCannotComeBackIsReplaced) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "hooks are switched off on x86-64 only";
#endif
  const std::string work = MakeTempDir();
  CommandResult r = RunCommand(
      {PollenBin(), "fuzz", TestTarget("late_thread"), "--workers=1", "--seed=1", "--runs=300000",
       "--workdir=" + work, "--mutant-cmp-hooks=false", "--use-value-profile=false",
       // No minimization: the thread starts in a mutant of a fuzz request, the path this
       // test is about (a minimization's candidates, without hooks too, could start it).
       "--minimize-share=0"},
      600);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("comparison hooks could not be turned back on; restarting it"))
      << r.output;
  EXPECT_THAT(r.output, HasSubstr("failures:     0")) << r.output;
}

}  // namespace
}  // namespace pollen::testing
