// `pollen corpus merge` killed with SIGKILL in the middle, then run again, resumes: it
// reuses what the first run executed and ends with exactly the store an uninterrupted merge
// gives.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <random>
#include <regex>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

TEST(MergeResumeTest, KilledMergeResumesToTheSameStore) {
  std::string dir = MakeTempDir();
  std::string inputs = dir + "/inputs";
  RunCommand({"/bin/mkdir", "-p", inputs}, 10);
  std::mt19937 rng(11);
  for (int i = 0; i < 1200; i++) {  // 2 ms each: well past the first progress line (1 s)
    std::string data(1 + rng() % 40, '\0');
    for (char& c : data) c = static_cast<char>(rng());
    WriteFile(inputs + "/in" + std::to_string(i), data);
  }
  std::string target = TestTarget("slow_parse");

  CommandResult reference = RunCommand(
      {PollenBin(), "corpus", "merge", dir + "/reference", inputs, "--target=" + target}, 300);
  ASSERT_EQ(reference.exit_code, 0) << reference.output;

  {
    Background merge(
        {PollenBin(), "corpus", "merge", dir + "/resumed", inputs, "--target=" + target});
    // The progress line shows up after a second of executing: then kill it, hard.
    ASSERT_TRUE(merge.WaitForOutput("merge: execute", 120)) << merge.output();
    ASSERT_EQ(kill(-merge.pid(), SIGKILL), 0);
    CommandResult killed = merge.Wait(60);
    EXPECT_NE(killed.exit_code, 0) << killed.output;
  }
  CommandResult resumed = RunCommand(
      {PollenBin(), "corpus", "merge", dir + "/resumed", inputs, "--target=" + target}, 300);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  long reused = NumberAfter(resumed.output, R"(\((\d+) results reused)");
  long run = NumberAfter(resumed.output, R"(duplicates\), (\d+) run)");
  EXPECT_GT(reused, 0) << resumed.output;
  EXPECT_EQ(reused + run, NumberAfter(reference.output, R"(duplicates\), (\d+) run)"))
      << resumed.output;

  CommandResult ls_reference = RunCommand({PollenBin(), "corpus", "ls", dir + "/reference"}, 60);
  CommandResult ls_resumed = RunCommand({PollenBin(), "corpus", "ls", dir + "/resumed"}, 60);
  ASSERT_EQ(ls_reference.exit_code, 0);
  ASSERT_FALSE(ls_reference.output.empty());
  EXPECT_EQ(ls_resumed.output, ls_reference.output);
}

}  // namespace
}  // namespace pollen::testing
