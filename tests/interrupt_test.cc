// Ctrl-C (SIGINT) stops `pollen fuzz` cleanly: workers stopped, the corpus flushed (a later
// run restores it), exit code 130.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

TEST(InterruptTest, SigintStopsCleanlyAndKeepsTheCorpus) {
  std::string dir = MakeTempDir();
  Background fuzz({PollenBin(), "fuzz", TestTarget("no_bug"), "--workers=2", "--seed=4",
                   "--time=600", "--workdir=" + dir});
  // Bounded waits: the baseline is in the corpus, then a few more entries.
  ASSERT_TRUE(fuzz.WaitForOutput("INITED", 120)) << fuzz.output();
  ASSERT_TRUE(fuzz.WaitForOutput("NEW", 120)) << fuzz.output();
  ASSERT_EQ(ChildrenOf(fuzz.pid()).size(), 2u);
  std::vector<pid_t> workers = ChildrenOf(fuzz.pid());
  ASSERT_EQ(kill(fuzz.pid(), SIGINT), 0);
  CommandResult r = fuzz.Wait(120);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 130) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("pollen summary: interrupted"));
  for (pid_t w : workers) EXPECT_NE(kill(w, 0), 0) << "worker " << w << " still runs";

  long entries = NumberAfter(r.output, R"(corpus:\s+(\d+) entries)");
  ASSERT_GT(entries, 0);
  CommandResult again = RunCommand(
      {PollenBin(), "fuzz", TestTarget("no_bug"), "--workers=1", "--runs=1", "--workdir=" + dir},
      120);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_THAT(again.output,
              ::testing::HasSubstr(std::to_string(entries) + " corpus entries restored"));
}

}  // namespace
}  // namespace pollen::testing
