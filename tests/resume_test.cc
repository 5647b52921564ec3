// A second run in the same work directory resumes the corpus of the first.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

// The number after `label` in the summary, or -1.
TEST(ResumeTest, SecondRunRestoresCorpusAndCoverage) {
  std::string dir = MakeTempDir();
  CommandResult first = RunCommand({PollenBin(), "fuzz", TestTarget("no_bug"), "--workers=1",
                                    "--seed=5", "--runs=20000", "--workdir=" + dir},
                                   300);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  long entries = NumberAfter(first.output, R"(corpus:\s+(\d+) entries)");
  long edges = NumberAfter(first.output, R"(coverage:\s+(\d+) edges)");
  ASSERT_GT(entries, 1) << first.output;

  CommandResult second = RunCommand({PollenBin(), "fuzz", TestTarget("no_bug"), "--workers=1",
                                     "--seed=6", "--runs=1", "--workdir=" + dir},
                                    300);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(NumberAfter(second.output, R"((\d+) corpus entries restored)"), entries)
      << second.output;
  EXPECT_GE(NumberAfter(second.output, R"(coverage:\s+(\d+) edges)"), edges) << second.output;
}

}  // namespace
}  // namespace pollen::testing
