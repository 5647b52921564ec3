// Puzzles of bench/puzzles/ that Pollen must solve within a bounded number of executions,
// with a fixed seed: each stands for one class of input that coverage and plain
// input-to-state do not get through (docs/engine.md, "Gates, lengths and transformed
// operands"); docs/benchmarks.md, "Puzzles", has how libFuzzer and AFL++ fare on them.
// Before gates and transformed input-to-state, Pollen solved crc32, ipsum and linear in
// none of its 50 M-execution runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

struct Puzzle {
  const char* name;
  uint64_t max_runs;
  // One more flag for pollen fuzz. The value profile is off unless a puzzle needs it: with the
  // default (auto) it comes on after 5 s of wall time without a new edge, and a fixed seed no
  // longer gives one path when the machine is busy (ipsum once missed its bound under ctest -j2).
  const char* flag = "--use-value-profile=false";
  int seed = 7;
};

void PrintTo(const Puzzle& p, std::ostream* os) { *os << p.name; }

class PuzzleTest : public ::testing::TestWithParam<Puzzle> {};

TEST_P(PuzzleTest, SolvedWithinBound) {
  const Puzzle& p = GetParam();
  std::string dir = MakeTempDir();
  std::vector<std::string> argv{PollenBin(),
                                "fuzz",
                                TestTarget(p.name),
                                "--workers=1",
                                "--seed=" + std::to_string(p.seed),
                                "--runs=" + std::to_string(p.max_runs),
                                "--workdir=" + dir,
                                "--minimize-time=5"};
  argv.push_back(p.flag);
  // The scheduler's speed weights follow measured run times, and the comparison hooks'
  // `auto` finds per second: off, the seed alone gives the path.
  argv.push_back("--speed-weight=false");
  argv.push_back("--mutant-cmp-hooks=true");
  CommandResult fuzz = RunCommand(argv, 600);
  ASSERT_FALSE(fuzz.timed_out) << fuzz.output;
  EXPECT_EQ(fuzz.exit_code, 1) << fuzz.output;
  EXPECT_EQ(ArtifactInputs(dir + "/crashes", "crash").size(), 1u) << fuzz.output;
}

// The words that led to new coverage are printed at the end, as libFuzzer's recommended
// dictionary, and kept in the work directory for the next run.
TEST(LearnedDictionaryRunTest, PrintedAtTheEndAndKeptForTheNextRun) {
  std::string dir = MakeTempDir();
  std::vector<std::string> argv{PollenBin(),        "fuzz",
                                Example("keyword"), "--workers=1",
                                "--seed=7",         "--runs=20000000",
                                "--workdir=" + dir, "--minimize-time=5"};
  CommandResult first = RunCommand(argv, 600);
  ASSERT_FALSE(first.timed_out) << first.output;
  EXPECT_EQ(first.exit_code, 1) << first.output;
  // keyword's bug is behind memcmp(data, "pollinate ", 10): that word led to coverage.
  EXPECT_THAT(first.output, ::testing::HasSubstr("###### Recommended dictionary. ######\n"));
  EXPECT_THAT(first.output, ::testing::HasSubstr("\"pollinate \" # Uses: "));
  std::string saved = ReadFile(dir + "/learned.dict");
  EXPECT_THAT(saved, ::testing::HasSubstr("\n\"pollinate \"\n"));
  // A second run in the same work directory starts with them: the file is read (a broken
  // one would be reported) and written again with the word still in it.
  CommandResult second = RunCommand({PollenBin(), "fuzz", Example("keyword"), "--workers=1",
                                     "--seed=8", "--runs=100000", "--workdir=" + dir},
                                    600);
  EXPECT_THAT(second.output,
              ::testing::Not(::testing::HasSubstr("ignoring the learned dictionary")));
  EXPECT_THAT(ReadFile(dir + "/learned.dict"), ::testing::HasSubstr("\"pollinate \""));
}

// --use-value-profile adds features of their own: the levels of its ladders that comparisons
// reached. The same bounded run with the same seed keeps more features with it than without,
// on a target with no bug to end it.
uint64_t FeaturesOf(const std::string& output) {
  // "  coverage:     12 edges, 34 features"
  size_t at = output.find("  coverage:");
  if (at == std::string::npos) return 0;
  size_t comma = output.find("edges, ", at);
  if (comma == std::string::npos) return 0;
  return std::stoull(output.substr(comma + 7));
}

TEST(ValueProfileTest, AddsFeaturesForHowCloseComparisonsCame) {
  std::vector<std::string> argv{PollenBin(),   "fuzz",     TestTarget("no_bug"),
                                "--workers=1", "--seed=3", "--runs=300000"};
  auto run = [&](const char* profile_flag) {
    auto a = argv;
    a.push_back("--workdir=" + MakeTempDir());
    a.push_back(profile_flag);
    return RunCommand(a, 600);
  };
  CommandResult plain = run("--use-value-profile=false");
  CommandResult profiled = run("--use-value-profile");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  ASSERT_EQ(profiled.exit_code, 0) << profiled.output;
  uint64_t without = FeaturesOf(plain.output), with = FeaturesOf(profiled.output);
  ASSERT_GT(without, 0u) << plain.output;
  EXPECT_GT(with, without) << profiled.output;
}

// By default (--use-value-profile=auto) the profile is off until no new edge has come for
// 5 s (node/value_profile_switch.h). no_bug's few edges are all found in the first second,
// so in an 8-second run the switch must turn the profile on.
TEST(ValueProfileTest, AutoTurnsOnWhenEdgesStop) {
  CommandResult fuzz = RunCommand({PollenBin(), "fuzz", TestTarget("no_bug"), "--workers=1",
                                   "--seed=7", "--time=8", "--workdir=" + MakeTempDir()},
                                  600);
  ASSERT_FALSE(fuzz.timed_out) << fuzz.output;
  EXPECT_EQ(fuzz.exit_code, 0) << fuzz.output;
  EXPECT_THAT(fuzz.output, ::testing::ContainsRegex(
                               "value profile on for [0-9]+ s \\([1-9][0-9]* times turned on\\)"))
      << fuzz.output;
}

// On auto, puzzle_total's running total is solved: usually the plain edges stop at its gate
// and the profile's distance ladder leads to the bug, but the order of the mutants depends on
// wall time (the switch, the minimizer's budget), and on a CI machine seed 7 once got there in
// 0.6 s before the profile was ever on (2026-11-27). So this asserts the find, and the test
// above asserts the switch. The bound is one of time, not of runs: at 7.6 M exec/s, 40 M runs
// were over before the profile had been on for a second.
TEST(ValueProfileTest, AutoSolvesARunningTotal) {
  std::string dir = MakeTempDir();
  CommandResult fuzz =
      RunCommand({PollenBin(), "fuzz", TestTarget("puzzle_total"), "--workers=1", "--seed=7",
                  "--time=120", "--workdir=" + dir, "--minimize-time=5"},
                 600);
  ASSERT_FALSE(fuzz.timed_out) << fuzz.output;
  EXPECT_EQ(fuzz.exit_code, 1) << fuzz.output;
  EXPECT_EQ(ArtifactInputs(dir + "/crashes", "crash").size(), 1u) << fuzz.output;
}

// ipsum's executions to the bug vary widely with the seed: 0.7, 1.2, 3.7, 4.0, 6.2, 13.2 and
// 33.4 M for seeds 8, 6, 4, 5, 1, 2 and 3, and more than 40 M for 7 (2026-11-27, with
// NestGroup): seed 5, the median, rather than 7.
INSTANTIATE_TEST_SUITE_P(
    Puzzles, PuzzleTest,
    ::testing::Values(Puzzle{"puzzle_crc32", 20000000},
                      Puzzle{"puzzle_ipsum", 40000000, "--use-value-profile=false", 5},
                      Puzzle{"puzzle_tlv", 20000000}, Puzzle{"puzzle_linear", 20000000},
                      // Built with the compiler pass (ROUTINE_LOG): its keywords are
                      // compared byte by byte by the target's own function.
                      Puzzle{"puzzle_keywords_routines", 20000000},
                      // A running total: with the value profile's distance ladder
                      // (without it, most seeds never get there).
                      Puzzle{"puzzle_total", 5000000, "--use-value-profile"}),
    [](const ::testing::TestParamInfo<Puzzle>& info) {
      return std::string(info.param.name) +
             (std::string(info.param.flag) == "--use-value-profile" ? "_value_profile" : "");
    });

}  // namespace
}  // namespace pollen::testing
