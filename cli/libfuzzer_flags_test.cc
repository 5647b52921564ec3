#include "cli/libfuzzer_flags.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "cli/libfuzzer_observer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pollen::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Mode = LibFuzzerRun::Mode;

class LibFuzzerFlagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/pollen-lf-flags-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    out_ = root_ + "/out";
    in_ = root_ + "/in";
    file_ = root_ + "/testcase";
    ASSERT_EQ(mkdir(out_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(in_.c_str(), 0755), 0);
    FILE* f = std::fopen(file_.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + root_).c_str()), 0); }

  LibFuzzerRun Parse(const std::vector<std::string>& args) {
    auto run = ParseLibFuzzerArgs("/bin/target", args);
    EXPECT_TRUE(run.ok()) << run.status().message();
    return run.ok() ? run.value() : LibFuzzerRun{};
  }

  std::string root_, out_, in_, file_;
};

// FuzzBench's fuzzers/libfuzzer/fuzzer.py, run_fuzzer(), as it is written there.
TEST_F(LibFuzzerFlagsTest, FuzzBenchsCommandLine) {
  LibFuzzerRun run =
      Parse({"-print_final_stats=1", "-close_fd_mask=3", "-fork=1", "-ignore_ooms=1",
             "-ignore_timeouts=1", "-ignore_crashes=1", "-detect_leaks=0", "-keep_seed=1",
             "-cross_over_uniform_dist=1", "-dict=" + root_ + "/x.dict", out_, in_});
  EXPECT_EQ(run.mode, Mode::kFuzz);
  EXPECT_THAT(run.warnings, IsEmpty());
  EXPECT_TRUE(run.print_final_stats);
  EXPECT_TRUE(run.options.keep_going);
  EXPECT_EQ(run.options.workers, 1u);
  EXPECT_EQ(run.options.dict, root_ + "/x.dict");
  EXPECT_EQ(run.output_corpus, out_);
  EXPECT_THAT(run.options.corpus_dirs, ElementsAre(out_, in_));
  EXPECT_EQ(run.options.target, "/bin/target");
  EXPECT_EQ(run.options.minimize_time, 0u);  // the artifact is the input that failed
}

// ClusterFuzz's fuzzing task for a libFuzzer target: a new-units directory first, then the
// corpus; its strategies add -use_value_profile=1 and -dict.
TEST_F(LibFuzzerFlagsTest, ClusterFuzzsFuzzingCommandLine) {
  LibFuzzerRun run = Parse({"-timeout=25", "-rss_limit_mb=2560", "-max_len=2048",
                            "-use_value_profile=1", "-artifact_prefix=" + root_ + "/",
                            "-max_total_time=2650", "-print_final_stats=1", out_, in_});
  EXPECT_EQ(run.mode, Mode::kFuzz);
  EXPECT_THAT(run.warnings, IsEmpty());
  EXPECT_EQ(run.options.timeout, 25u);
  EXPECT_EQ(run.options.rss_limit_mb, 2560u);
  EXPECT_EQ(run.options.max_len, 2048u);
  EXPECT_EQ(run.options.use_value_profile, node::Setting::kOn);
  EXPECT_EQ(run.options.time, 2650u);
  EXPECT_EQ(run.artifact_prefix, root_ + "/");
  EXPECT_FALSE(run.options.keep_going);
  EXPECT_EQ(run.output_corpus, out_);
}

// ClusterFuzz reproduces a testcase with -runs=100 and the file.
TEST_F(LibFuzzerFlagsTest, ClusterFuzzsReproductionRunsTheFile) {
  LibFuzzerRun run = Parse({"-rss_limit_mb=2560", "-timeout=60", "-runs=100", file_});
  EXPECT_EQ(run.mode, Mode::kRunInputs);
  EXPECT_THAT(run.inputs, ElementsAre(file_));
  EXPECT_EQ(run.runs, 100u);
}

TEST_F(LibFuzzerFlagsTest, NoPathFuzzesWithoutAnOutputCorpus) {
  LibFuzzerRun run = Parse({"-max_total_time=5"});
  EXPECT_EQ(run.mode, Mode::kFuzz);
  EXPECT_THAT(run.options.corpus_dirs, IsEmpty());
  EXPECT_EQ(run.output_corpus, "");
  EXPECT_EQ(run.options.time, 5u);
}

TEST_F(LibFuzzerFlagsTest, WorkersAreTheLargestOfJobsWorkersAndFork) {
  EXPECT_EQ(Parse({"-jobs=4", "-workers=2"}).options.workers, 4u);
  EXPECT_EQ(Parse({"-fork=3"}).options.workers, 3u);
  EXPECT_EQ(Parse({}).options.workers, 1u);
}

TEST_F(LibFuzzerFlagsTest, RunsZeroRunsTheSeedsOnlyAndMinusOneHasNoLimit) {
  LibFuzzerRun zero = Parse({"-runs=0", in_});
  EXPECT_TRUE(zero.seeds_only);
  LibFuzzerRun unlimited = Parse({"-runs=-1", in_});
  EXPECT_FALSE(unlimited.seeds_only);
  EXPECT_EQ(unlimited.options.runs, 0u);
  EXPECT_EQ(Parse({"-runs=500", in_}).options.runs, 500u);
}

TEST_F(LibFuzzerFlagsTest, TimeoutZeroIsADay) {
  EXPECT_EQ(Parse({"-timeout=0"}).options.timeout, 86400u);
  EXPECT_EQ(Parse({"-use_value_profile=0"}).options.use_value_profile, node::Setting::kOff);
  EXPECT_EQ(Parse({}).options.use_value_profile, node::Setting::kAuto);
}

TEST_F(LibFuzzerFlagsTest, UnknownFlagsAndDoubleDashesAreWarnings) {
  LibFuzzerRun run = Parse({"-no_such_flag=1", "--max_total_time=7", "-bare", in_});
  EXPECT_EQ(run.mode, Mode::kFuzz);
  EXPECT_EQ(run.options.time, 7u);
  ASSERT_EQ(run.warnings.size(), 3u);
  EXPECT_THAT(run.warnings[0], HasSubstr("unrecognized flag '-no_such_flag=1'; use -help=1"));
  EXPECT_THAT(run.warnings[1], HasSubstr("'--max_total_time=7' read as '-max_total_time=7'"));
  EXPECT_THAT(run.warnings[2], HasSubstr("unrecognized flag '-bare'"));
}

TEST_F(LibFuzzerFlagsTest, OnlyAsciiAndTheMallocLimit) {
  LibFuzzerRun run = Parse({"-only_ascii=1", "-malloc_limit_mb=100"});
  EXPECT_THAT(run.warnings, IsEmpty());
  EXPECT_TRUE(run.options.only_ascii);
  EXPECT_EQ(run.options.malloc_limit_mb, 100u);
  EXPECT_FALSE(Parse({}).options.only_ascii);
}

TEST_F(LibFuzzerFlagsTest, BadValuesAndMixedPathsAreErrors) {
  auto bad = ParseLibFuzzerArgs("/bin/target", {"-runs=many"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("-runs expects an integer, got 'many'"));
  auto empty = ParseLibFuzzerArgs("/bin/target", {"-dict="});
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("-dict expects a value"));
  auto huge = ParseLibFuzzerArgs("/bin/target", {"-seed=99999999999999999999999"});
  EXPECT_FALSE(huge.ok());
  auto above =
      ParseLibFuzzerArgs("/bin/target", {"-runs=9999999999999999999"});  // 19 digits > INT64_MAX
  ASSERT_FALSE(above.ok());
  EXPECT_THAT(above.status().message(), HasSubstr("-runs is out of range"));
  EXPECT_TRUE(ParseLibFuzzerArgs("/bin/target", {"-runs=-9223372036854775808"}).ok());
  auto dashes = ParseLibFuzzerArgs("/bin/target", {"--", "---"});
  ASSERT_TRUE(dashes.ok());
  EXPECT_EQ(dashes.value().warnings.size(), 2u);
  auto mixed = ParseLibFuzzerArgs("/bin/target", {in_, file_});
  ASSERT_FALSE(mixed.ok());
  EXPECT_THAT(mixed.status().message(), HasSubstr("not a directory"));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{root_ + "/corpus", in_}, {root_ + "/corpus"}}) {
    auto missing = ParseLibFuzzerArgs("/bin/target", args);
    ASSERT_FALSE(missing.ok());
    EXPECT_THAT(missing.status().message(),
                HasSubstr("'" + root_ + "/corpus' does not exist (a path that is no file is a"));
  }
}

// libFuzzer's -create_missing_dirs=1: the missing corpus directory is a directory to make,
// and so are the artifacts' (a prefix ending in '/' is one; otherwise its directory part).
TEST_F(LibFuzzerFlagsTest, CreateMissingDirsMakesTheCorpusAndArtifactDirectories) {
  const std::string corpus = root_ + "/new/corpus";
  LibFuzzerRun run = Parse({"-create_missing_dirs=1", "-artifact_prefix=" + root_ + "/arts/",
                            "-exact_artifact_path=" + root_ + "/exact/crash", corpus, in_});
  EXPECT_EQ(run.mode, Mode::kFuzz);
  EXPECT_THAT(run.options.corpus_dirs, ElementsAre(corpus, in_));
  EXPECT_THAT(run.dirs_to_make, ElementsAre(root_ + "/arts/", root_ + "/exact/", corpus));
  ASSERT_TRUE(MakeMissingDirs(run).ok());
  for (const std::string& dir : run.dirs_to_make) {
    struct stat st;
    EXPECT_TRUE(stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) << dir;
  }
  // Only what is missing: the existing input directory and a bare prefix make nothing.
  EXPECT_THAT(Parse({"-create_missing_dirs=1", "-artifact_prefix=crash-", in_}).dirs_to_make,
              IsEmpty());
  // A file in the way is an error that names the directory.
  LibFuzzerRun blocked;
  blocked.dirs_to_make = {file_ + "/sub"};
  Status made = MakeMissingDirs(blocked);
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.message(), HasSubstr("cannot make directory '" + file_ + "/sub'"));
}

TEST_F(LibFuzzerFlagsTest, HelpMergeAndMinimizeCrashAreModes) {
  EXPECT_EQ(Parse({"-help=1"}).mode, Mode::kHelp);
  EXPECT_EQ(Parse({"-merge=1", out_, in_}).mode, Mode::kMerge);
  EXPECT_EQ(Parse({"-set_cover_merge=1", out_, in_}).mode, Mode::kMerge);
  LibFuzzerRun minimize =
      Parse({"-minimize_crash=1", "-exact_artifact_path=" + root_ + "/min", file_});
  EXPECT_EQ(minimize.mode, Mode::kMinimizeCrash);
  EXPECT_THAT(minimize.inputs, ElementsAre(file_));
  EXPECT_EQ(minimize.exact_artifact_path, root_ + "/min");
  EXPECT_FALSE(ParseLibFuzzerArgs("/bin/target", {"-merge=1", out_}).ok());
  EXPECT_FALSE(ParseLibFuzzerArgs("/bin/target", {"-minimize_crash=1", in_}).ok());
  std::string help = LibFuzzerHelp();
  for (const char* flag :
       {"max_total_time", "artifact_prefix", "exact_artifact_path", "jobs", "only_ascii"}) {
    EXPECT_THAT(help, HasSubstr(std::string(" ") + flag + " ")) << flag;
  }
}

TEST_F(LibFuzzerFlagsTest, ArgumentsAfterIgnoreRemainingArgsAreTheTargets) {
  LibFuzzerRun run =
      Parse({"-max_total_time=3", "-ignore_remaining_args=1", "-max_total_time=9", "-x"});
  EXPECT_EQ(run.options.time, 3u);
  EXPECT_THAT(run.warnings, IsEmpty());
}

TEST(LibFuzzerOutcomeTest, ExitCodesFollowLibFuzzers) {
  LibFuzzerRun run;
  LibFuzzerOutcome outcome;
  EXPECT_EQ(LibFuzzerExitCode(run, outcome, 0), 0);
  EXPECT_EQ(LibFuzzerExitCode(run, outcome, 130), 72);  // interrupted, as libFuzzer
  EXPECT_EQ(LibFuzzerExitCode(run, outcome, 2), 2);
  outcome.first_failure_kind = "SEGV";
  EXPECT_EQ(LibFuzzerExitCode(run, outcome, 1), 77);
  run.error_exitcode = 9;
  EXPECT_EQ(LibFuzzerExitCode(run, outcome, 1), 9);
  outcome.first_failure_from_sanitizer = true;
  outcome.first_failure_kind = "heap-buffer-overflow";
  EXPECT_EQ(LibFuzzerExitCode(run, outcome, 1), 1);
  outcome.first_failure_kind = "leak";  // found by LeakSanitizer, reported as libFuzzer's own
  EXPECT_EQ(LibFuzzerExitCode(run, outcome, 1), 9);
  outcome.first_failure_kind = "timeout";
  EXPECT_EQ(LibFuzzerExitCode(run, outcome, 1), 70);
  outcome.first_failure_kind = "oom";
  EXPECT_EQ(LibFuzzerExitCode(run, outcome, 1), 71);
  run.options.keep_going =
      true;  // -ignore_crashes=1: the failures are artifacts, the run a success
  EXPECT_EQ(LibFuzzerExitCode(run, outcome, 1), 0);
}

TEST(LibFuzzerOutcomeTest, FinalLinesHaveTheStatsOnlyWhenAsked) {
  LibFuzzerRun run;
  LibFuzzerOutcome outcome;
  outcome.start_ms = 1000;
  outcome.stop_ms = 3000;
  outcome.executions = 5000;
  outcome.new_units = 4;
  EXPECT_EQ(LibFuzzerFinalLines(run, outcome), "Done 5000 runs in 2 second(s)\n");
  run.print_final_stats = true;
  std::string lines = LibFuzzerFinalLines(run, outcome);
  EXPECT_THAT(lines, HasSubstr("stat::number_of_executed_units: 5000\n"));
  EXPECT_THAT(lines, HasSubstr("stat::average_exec_per_sec:     2500\n"));
  EXPECT_THAT(lines, HasSubstr("stat::new_units_added:          4\n"));
}

}  // namespace
}  // namespace pollen::cli
