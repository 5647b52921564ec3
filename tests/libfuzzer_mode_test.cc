// A target linked with libpollen_fuzzer.a run as a libFuzzer binary, with the command lines
// that ClusterFuzz and FuzzBench use for libFuzzer (engine/runtime/main.cc hands them to
// `pollen libfuzzer`, cli/libfuzzer_command.cc). POLLEN names the pollen binary, since the
// test targets are not beside it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> PollenEnv() { return {"POLLEN=" + PollenBin()}; }

// Runs `argv` in directory `dir`, as a script that cds there first would.
CommandResult RunIn(const std::string& dir, std::vector<std::string> argv, int timeout_s) {
  argv.insert(argv.begin(), {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", dir});
  return RunCommand(argv, timeout_s, PollenEnv());
}

// ClusterFuzz's fuzzing task: a directory for new units first, then the corpus; it reads
// the "Test unit written to" line, the stat:: lines and the status lines. Then its
// reproduction: the target, -runs=100 and the testcase.
TEST(LibFuzzerModeTest, ClusterFuzzsCommandLinesFindReportAndReproduceTheCrash) {
  std::string dir = MakeTempDir();
  std::string fresh = dir + "/new", corpus = dir + "/corpus";
  ASSERT_EQ(RunCommand({"/bin/mkdir", fresh, corpus}, 10).exit_code, 0);
  WriteFile(corpus + "/seed", "zz");
  CommandResult r =
      RunCommand({Example("shallow_crash"), "-timeout=25", "-rss_limit_mb=2560", "-max_len=2048",
                  "-use_value_profile=1", "-artifact_prefix=" + dir + "/", "-max_total_time=120",
                  "-print_final_stats=1", fresh, corpus},
                 300, PollenEnv());
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_NE(r.exit_code, 0) << r.output;  // 77, or 1 in a build whose examples have ASan
  EXPECT_THAT(
      r.output,
      ContainsRegex("#[0-9]+\tINITED cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+b exec/s: [0-9]+ "
                    "rss: [0-9]+Mb"))
      << r.output;
  EXPECT_THAT(r.output, ContainsRegex("#[0-9]+\tNEW    cov: [0-9]+ ft: [0-9]+ corp: ")) << r.output;
  EXPECT_THAT(r.output, ContainsRegex("stat::number_of_executed_units: [1-9][0-9]*\n")) << r.output;
  std::vector<std::string> crashes = ListFiles(dir, "crash-");
  ASSERT_EQ(crashes.size(), 1u) << r.output;
  std::string artifact = crashes[0];
  EXPECT_THAT(r.output, HasSubstr("Test unit written to " + artifact + "\n")) << r.output;
  EXPECT_EQ(ReadFile(artifact).substr(0, 3), "HI!");
  // The inputs that led there ("H", "HI") are new units; the seed is not written back.
  std::vector<std::string> units = ListVisibleFiles(fresh);
  EXPECT_GE(units.size(), 1u) << r.output;
  for (const std::string& u : units) EXPECT_NE(ReadFile(u), "zz");

  CommandResult repro = RunCommand(
      {Example("shallow_crash"), "-rss_limit_mb=2560", "-timeout=60", "-runs=100", artifact}, 60,
      PollenEnv());
  EXPECT_NE(repro.exit_code, 0) << repro.output;
  EXPECT_THAT(repro.output, HasSubstr("Running: " + artifact)) << repro.output;
}

// FuzzBench's run_fuzzer() (fuzzers/libfuzzer/fuzzer.py): fork mode ignoring crashes,
// timeouts and OOMs, the output corpus then the input corpus, no artifact prefix (so the
// artifacts land in the working directory). FuzzBench ends the trial from outside; here
// -max_total_time does. The run goes on past the crash and exits 0, as check_call wants.
TEST(LibFuzzerModeTest, FuzzBenchsCommandLineGoesOnPastCrashesAndExitsZero) {
  std::string dir = MakeTempDir();
  std::string out = dir + "/output", in = dir + "/input";
  ASSERT_EQ(RunCommand({"/bin/mkdir", out, in}, 10).exit_code, 0);
  WriteFile(in + "/seed", "H");
  CommandResult r =
      RunIn(dir,
            {Example("shallow_crash"), "-print_final_stats=1", "-close_fd_mask=3", "-fork=1",
             "-ignore_ooms=1", "-ignore_timeouts=1", "-ignore_crashes=1", "-detect_leaks=0",
             "-keep_seed=1", "-cross_over_uniform_dist=1", "-max_total_time=4", out, in},
            120);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("WARNING: unrecognized flag"))) << r.output;
  EXPECT_EQ(ListFiles(dir, "crash-").size(), 1u) << r.output;
  EXPECT_GE(ListVisibleFiles(out).size(), 1u) << r.output;
  EXPECT_EQ(ListVisibleFiles(in).size(), 1u) << r.output;  // the input corpus is only read
  EXPECT_THAT(r.output, ContainsRegex("Done [0-9]+ runs in [0-9]+ second\\(s\\)")) << r.output;
  EXPECT_THAT(r.output, ContainsRegex("stat::new_units_added: +[1-9]")) << r.output;
}

TEST(LibFuzzerModeTest, RunsLimitHelpAndMinimizeCrash) {
  std::string dir = MakeTempDir();
  CommandResult runs =
      RunCommand({TestTarget("no_bug"), "-runs=3000", "-print_final_stats=1", "-seed=5", dir}, 120,
                 PollenEnv());
  EXPECT_EQ(runs.exit_code, 0) << runs.output;
  EXPECT_GE(NumberAfter(runs.output, "stat::number_of_executed_units: ([0-9]+)"), 3000)
      << runs.output;

  CommandResult help = RunCommand({TestTarget("no_bug"), "-help=1"}, 30, PollenEnv());
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_THAT(help.output, HasSubstr(" max_total_time ")) << help.output;

  WriteFile(dir + "/crash", "HI!" + std::string(200, 'x'));
  CommandResult minimized =
      RunCommand({Example("shallow_crash"), "-minimize_crash=1", "-max_total_time=20",
                  "-exact_artifact_path=" + dir + "/min", dir + "/crash"},
                 120, PollenEnv());
  EXPECT_EQ(minimized.exit_code, 0) << minimized.output;
  EXPECT_EQ(ReadFile(dir + "/min").substr(0, 3), "HI!") << minimized.output;
  EXPECT_LT(ReadFile(dir + "/min").size(), 203u) << minimized.output;
}

// Three seeds that take the same path: with -keep_seed=0 the corpus keeps the first only;
// with -keep_seed=1, and by default (Pollen's default, not libFuzzer's), all three. (A merge
// ignores it: MergeCopiesWhatAddsCoverageAndSkipsCrashes runs with the default.)
TEST(LibFuzzerModeTest, KeepSeedKeepsSeedsThatAddNothing) {
  std::string dir = MakeTempDir();
  for (const char* name : {"a", "b", "c"}) WriteFile(dir + "/" + name, std::string("x") + name);
  // The third case repeats a flag already given, so that it passes no -keep_seed: the default.
  const std::pair<std::string, long> cases[] = {
      {"-keep_seed=0", 1}, {"-keep_seed=1", 3}, {"-use_value_profile=0", 3}};
  for (const auto& [flag, expected] : cases) {
    CommandResult r = RunCommand(
        {Example("shallow_crash"), "-runs=0", "-use_value_profile=0", flag, dir}, 120, PollenEnv());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(NumberAfter(r.output, "INITED cov: [0-9]+ ft: [0-9]+ corp: ([0-9]+)/"), expected)
        << flag << "\n"
        << r.output;
  }
}

// A seed longer than -max_len runs cut to it and is kept so; the cut copy is the seed, not a
// new unit, and is not written into the output corpus.
TEST(LibFuzzerModeTest, ASeedCutToMaxLenIsNotWrittenBack) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/long", std::string(100, 'x'));
  CommandResult r =
      RunCommand({Example("shallow_crash"), "-runs=0", "-max_len=10", dir}, 120, PollenEnv());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("corp: 1/10b")) << r.output;
  EXPECT_EQ(ListVisibleFiles(dir).size(), 1u) << r.output;
}

// ClusterFuzz's corpus pruning merges the corpus into a new directory with -merge=1 (and a
// control file, which Pollen does without). What adds coverage to the first directory is
// copied into it; a duplicate and a crashing input are not, and the run exits 0.
TEST(LibFuzzerModeTest, MergeCopiesWhatAddsCoverageAndSkipsCrashes) {
  std::string dir = MakeTempDir();
  std::string into = dir + "/into", from = dir + "/from";
  ASSERT_EQ(RunCommand({"/bin/mkdir", into, from}, 10).exit_code, 0);
  WriteFile(into + "/seed", "Hxx");
  WriteFile(from + "/a", "Hxx");  // the same input under another name
  WriteFile(from + "/b", "HIx");  // one branch further
  WriteFile(from + "/c", "HI!");  // crashes
  CommandResult r =
      RunIn(dir,
            {Example("shallow_crash"), "-merge=1", "-merge_control_file=" + dir + "/mcf",
             "-rss_limit_mb=2560", "-timeout=60", into, from},
            120);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("WARNING: unrecognized flag"))) << r.output;
  std::vector<std::string> contents;
  for (const std::string& f : ListVisibleFiles(into)) contents.push_back(ReadFile(f));
  EXPECT_THAT(contents, ::testing::UnorderedElementsAre("Hxx", "HIx")) << r.output;
  EXPECT_EQ(ListVisibleFiles(from).size(), 3u);
  EXPECT_TRUE(ListFiles(dir, "crash-").empty())
      << r.output;  // the crashing input is skipped, not reported
  EXPECT_THAT(r.output, HasSubstr("MERGE-OUTER: 1 new files with ")) << r.output;
}

// With -max_len, a merge runs each input cut to it, as libFuzzer's does, and writes what adds
// coverage cut: the first directory's long input, cut, is not a new file, and the second's is
// merged, not dropped for not matching a file.
TEST(LibFuzzerModeTest, MergeCutsInputsToMaxLen) {
  std::string dir = MakeTempDir();
  std::string into = dir + "/into", from = dir + "/from";
  ASSERT_EQ(RunCommand({"/bin/mkdir", into, from}, 10).exit_code, 0);
  WriteFile(into + "/seed", "Hxxxxx");
  WriteFile(from + "/b", "HIxxxx");  // cut to "HIx": one branch further
  CommandResult r = RunIn(dir,
                          {Example("shallow_crash"), "-merge=1", "-max_len=3", "-timeout=60",
                           "-use_value_profile=0", into, from},
                          120);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> contents;
  for (const std::string& f : ListVisibleFiles(into)) contents.push_back(ReadFile(f));
  EXPECT_THAT(contents, ::testing::UnorderedElementsAre("Hxxxxx", "HIx")) << r.output;
  EXPECT_THAT(r.output, HasSubstr("MERGE-OUTER: 1 new files with ")) << r.output;
}

// An uncaught exception is libFuzzer's "deadly signal" (abort), whatever the build's
// sanitizer: -error_exitcode, 77 unless given.
TEST(LibFuzzerModeTest, ACrashExitsWithTheErrorExitCode) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/seed", "THROW");
  CommandResult r = RunIn(
      dir, {Example("exception"), "-max_total_time=60", "-artifact_prefix=" + dir + "/", dir}, 120);
  EXPECT_EQ(r.exit_code, 77) << r.output;
  CommandResult own = RunIn(
      dir, {Example("exception"), "-error_exitcode=9", "-artifact_prefix=" + dir + "/", dir}, 120);
  EXPECT_EQ(own.exit_code, 9) << own.output;
}

TEST(LibFuzzerModeTest, AMissingPollenIsAClearError) {
  std::string dir = MakeTempDir();
  CommandResult r = RunCommand({TestTarget("no_bug"), "-max_total_time=1", dir}, 30,
                               {"POLLEN=" + dir + "/nothing"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot run $POLLEN (" + dir + "/nothing)")) << r.output;
}

}  // namespace
}  // namespace pollen::testing
