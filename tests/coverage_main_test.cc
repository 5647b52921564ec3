// The coverage main (engine/coverage_main/coverage_main.cc), on a target with process-wide
// state (tests/targets/sticky_state.cc): every input is measured as if it ran alone, and a
// crash, a hang or an exit() loses neither its own partial coverage nor anything after it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string StickyCov() { return std::string(TEST_TARGETS_DIR) + "/sticky_state_cov"; }

// Each function's execution count in the profile `profraw`, from llvm-cov's export.
std::map<std::string, uint64_t> CountsOf(const std::string& profraw, const std::string& dir) {
  std::map<std::string, uint64_t> counts;
  CommandResult merge = RunCommand(
      {"/usr/bin/llvm-profdata-14", "merge", "-sparse", profraw, "-o", dir + "/cov.profdata"}, 60);
  EXPECT_EQ(merge.exit_code, 0) << merge.output;
  const std::string json_path = dir + "/export.json";
  CommandResult exported =
      RunCommand({"/bin/sh", "-c",
                  "/usr/bin/llvm-cov-14 export -format=text -instr-profile=" + dir +
                      "/cov.profdata " + StickyCov() + " > " + json_path},
                 60);
  EXPECT_EQ(exported.exit_code, 0) << exported.output;
  nlohmann::json doc = nlohmann::json::parse(ReadFile(json_path), nullptr, false);
  if (doc.is_object()) {
    for (const auto& f : doc["data"][0]["functions"])
      counts[f["name"].get<std::string>()] = f["count"];
  }
  return counts;
}

// Runs the coverage build on `inputs` (file name -> content, run in name order) and returns
// each function's execution count, from llvm-cov's export of the merged profile.
std::map<std::string, uint64_t> FunctionCounts(const std::map<std::string, std::string>& inputs,
                                               CommandResult* run) {
  const std::string dir = MakeTempDir();
  fs::create_directories(dir + "/in");
  for (const auto& [name, content] : inputs) WriteFile(dir + "/in/" + name, content);
  *run = RunCommand({StickyCov(), "-timeout=1", dir + "/in"}, 60,
                    {"LLVM_PROFILE_FILE=" + dir + "/prof/cov-%p.profraw"});
  std::vector<std::string> profiles;
  for (const auto& e : fs::directory_iterator(dir + "/prof")) profiles.push_back(e.path());
  EXPECT_EQ(profiles.size(), 1u) << "one profile, from the parent";
  std::map<std::string, uint64_t> counts;
  if (profiles.size() == 1) counts = CountsOf(profiles[0], dir);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return counts;
}

TEST(CoverageMainTest, AnInputCoversWhatItCoversAloneWhateverRanBefore) {
  CommandResult run;
  // "a-poison" runs first: in one process, "b-deep" would return at once.
  auto counts =
      FunctionCounts({{"a-poison", "poison"}, {"b-deep", "deep"}, {"c-deep", "deep"}}, &run);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("3 inputs, 0 crashes, 0 timeouts"));
  EXPECT_EQ(counts["ReachedDeep"], 2u) << run.output;
  EXPECT_EQ(counts["LLVMFuzzerTestOneInput"], 3u);
}

TEST(CoverageMainTest, ACrashAHangAndAnExitKeepTheirCoverageAndLoseNothingAfter) {
  CommandResult run;
  auto counts = FunctionCounts(
      {{"a-crash", "crash"}, {"b-hang", "hang"}, {"c-exit", "exit"}, {"d-deep", "deep"}}, &run);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("crash (signal 6) on"));
  EXPECT_THAT(run.output, HasSubstr("timeout (exit code 70) on"));
  EXPECT_THAT(run.output, HasSubstr("exit (exit code 0) on"));
  EXPECT_THAT(run.output, HasSubstr("4 inputs, 1 crashes, 1 timeouts"));
  EXPECT_EQ(counts["ReachedCrash"], 1u) << run.output;
  EXPECT_EQ(counts["ReachedHang"], 1u);
  EXPECT_EQ(counts["ReachedExit"], 1u);
  EXPECT_EQ(counts["ReachedDeep"], 1u);
}

TEST(CoverageMainTest, SigtermStopsTheRunAndKeepsWhatWasMeasured) {
  const std::string dir = MakeTempDir();
  fs::create_directories(dir + "/in");
  WriteFile(dir + "/in/a-hang", "hang");
  WriteFile(dir + "/in/b-deep", "deep");
  Background run({StickyCov(), "-timeout=600", dir + "/in"},
                 {"LLVM_PROFILE_FILE=" + dir + "/prof/cov-%p.profraw"});
  // The profile is first written after LLVMFuzzerInitialize, with the signal handlers in
  // place, before any input runs (the profile runtime's own start-up file is empty).
  const std::string profile = dir + "/prof/cov-" + std::to_string(run.pid()) + ".profraw";
  auto written = [&] {
    std::error_code ec;
    return fs::file_size(profile, ec) > 0 && !ec;
  };
  for (int i = 0; i < 6000 && !written(); i++) usleep(10000);  // up to 60 s
  ASSERT_TRUE(written());
  kill(run.pid(), SIGTERM);
  CommandResult r = run.Wait(60);
  EXPECT_FALSE(r.timed_out) << "SIGTERM ends a run stuck in a 600-s hang";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("stopped by a signal"));
  auto counts = CountsOf(profile, dir);
  EXPECT_EQ(counts["ReachedDeep"], 0u) << "the input after the stop does not run";
  EXPECT_LE(counts["ReachedHang"], 1u);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(CoverageMainTest, AnUnreadableArgumentIsReportedAndTheRestMeasured) {
  CommandResult run;
  const std::string dir = MakeTempDir();
  WriteFile(dir + "/deep", "deep");
  run = RunCommand({StickyCov(), dir + "/missing", dir + "/deep"}, 60,
                   {"LLVM_PROFILE_FILE=" + dir + "/prof/cov-%p.profraw"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("missing: No such file or directory"));
  EXPECT_THAT(run.output, HasSubstr("1 inputs, 0 crashes"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir + "/prof"), fs::directory_iterator{}), 1);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace pollen::testing
