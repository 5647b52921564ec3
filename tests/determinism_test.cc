// The same --seed with one worker gives the same run: the same entries found at the same
// executions, and the same corpus.
// (The three defaults that follow the clock are off: the scheduler's speed weights, which
// follow measured run times, the value profile's `auto` switch, which turns it on after 5 s
// without a new edge, and the comparison hooks' `auto`, which shares fuzz requests by finds
// per second. A fuzz unit ends after 8192 runs or --unit-ms, whichever comes first: with
// --unit-ms=100 on this fast target the run count (the default's 5 ms would be the clock's),
// unless the worker is kept off its CPU, which a loaded
// machine (ctest -j2 under TSan) can do; the coordinator counts such units, and a run with
// one is run again rather than compared (three in a row is a failure). With several workers the
// order in which they report is up to the operating system.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <string>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

// The run's fingerprint: the execution count at which each new entry joined the corpus,
// then the corpus size.
std::string Fingerprint(const std::string& output) {
  std::string f;
  std::regex new_line(R"(#(\d+)\tNEW)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), new_line);
       it != std::sregex_iterator(); ++it) {
    f += (*it)[1].str() + ",";
  }
  std::smatch m;
  if (std::regex_search(output, m, std::regex(R"(corpus:\s+\d+ entries, \d+ bytes)")))
    f += m[0].str();
  return f;
}

// Units that ended on their time limit, worker restarts for drift (node/drift_check.h,
// which watches the clock too) and minimizations the clock cut short or ruled out
// (node/coordinator_work.cc), in the run's last info line.
uint64_t ClockDependentEvents(const std::string& output) {
  uint64_t n = 0;
  for (const char* pattern :
       {R"((\d+) ended on their time limit)", R"((\d+) worker restarts for drift)",
        R"((\d+) minimizations cut by time)"}) {
    n += std::max(NumberAfter(output, pattern), 0L);
  }
  return n;
}

// One run of no_bug with `seed` in which the clock decided nothing, tried up to three
// times: its fingerprint, or nullopt when every try had a unit cut by its time limit.
std::optional<std::string> DeterministicRun(int seed) {
  for (int attempt = 0; attempt < 3; attempt++) {
    std::string dir = MakeTempDir();
    CommandResult r = RunCommand(
        {PollenBin(), "fuzz", TestTarget("no_bug"), "--workers=1", "--seed=" + std::to_string(seed),
         "--runs=60000", "--speed-weight=false", "--use-value-profile=false",
         "--mutant-cmp-hooks=false", "--unit-ms=100", "--workdir=" + dir},
        300);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, ::testing::HasSubstr("ended on their time limit")) << r.output;
    EXPECT_THAT(r.output, ::testing::HasSubstr("minimizations cut by time")) << r.output;
    if (r.exit_code != 0) return "";
    std::string fingerprint = Fingerprint(r.output);
    EXPECT_FALSE(fingerprint.empty()) << r.output;
    if (ClockDependentEvents(r.output) == 0) return fingerprint;
  }
  return std::nullopt;
}

TEST(DeterminismTest, SameSeedSameCorpus) {
  const std::optional<std::string> first = DeterministicRun(9);
  const std::optional<std::string> second = DeterministicRun(9);
  // Three runs in a row with a unit cut by the clock: the machine never gave the worker 100 ms
  // in a row, or the worker's run count no longer ends units. Either way, a failure.
  ASSERT_TRUE(first.has_value() && second.has_value())
      << "no run of seed 9 in three ended every unit on its run count";
  ASSERT_FALSE(first->empty());
  EXPECT_EQ(*first, *second);
  // Another seed finds its entries at other moments: the comparison above can fail.
  const std::optional<std::string> other = DeterministicRun(10);
  ASSERT_TRUE(other.has_value()) << "no run of seed 10 in three ended every unit on its run count";
  EXPECT_NE(*other, *first);
}

}  // namespace
}  // namespace pollen::testing
