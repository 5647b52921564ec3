// `pollen corpus stats` and `pollen corpus ls` on the stores that `pollen fuzz` leaves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "base/clock.h"
#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;

// The number captured by `pattern` in `output`, or -1.
// The lines of `output` that match `pattern` whole.
std::vector<std::string> MatchingLines(const std::string& output, const std::string& pattern) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  const std::regex re(pattern);
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, re)) lines.push_back(line);
  }
  return lines;
}

// True while process `pid` runs (exists and is not a zombie).
bool Running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

CommandResult Corpus(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {PollenBin(), "corpus"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, 120);
}

TEST(CorpusCommandTest, StatsAndLsAgreeWithTheFuzzSummary) {
  const std::string dir = MakeTempDir();
  const long long before_ms = pollen::base::UnixMs();
  CommandResult fuzz = RunCommand({PollenBin(), "fuzz", TestTarget("no_bug"), "--workers=1",
                                   "--seed=3", "--runs=20000", "--workdir=" + dir},
                                  300);
  ASSERT_EQ(fuzz.exit_code, 0) << fuzz.output;
  const long entries = NumberAfter(fuzz.output, R"(corpus:\s+(\d+) entries)");
  const long bytes = NumberAfter(fuzz.output, R"(corpus:\s+\d+ entries, (\d+) bytes)");
  ASSERT_GT(entries, 1) << fuzz.output;

  // The work directory and the store directory itself are both accepted.
  for (const std::string& path : {dir, dir + "/corpus"}) {
    CommandResult stats = Corpus({"stats", path});
    ASSERT_EQ(stats.exit_code, 0) << stats.output;
    EXPECT_EQ(NumberAfter(stats.output, R"(entries:\s+(\d+))"), entries) << stats.output;
    EXPECT_EQ(NumberAfter(stats.output, R"(raw bytes:\s+(\d+))"), bytes) << stats.output;
    EXPECT_EQ(NumberAfter(stats.output, R"(crashes:\s+(\d+))"), 0) << stats.output;
    EXPECT_GT(NumberAfter(stats.output, R"(bytes on disk:\s+(\d+))"), 0) << stats.output;
    EXPECT_THAT(stats.output, HasSubstr("target:        no_bug_fuzzer"));
    EXPECT_THAT(stats.output, ::testing::ContainsRegex(R"(build id:\s+[0-9a-f]+)"));
    EXPECT_THAT(stats.output, ::testing::ContainsRegex(R"(compression:\s+[0-9]+\.[0-9]+)"));
  }

  CommandResult ls = Corpus({"ls", dir});
  ASSERT_EQ(ls.exit_code, 0) << ls.output;
  const std::vector<std::string> lines = MatchingLines(ls.output, R"([0-9a-f]{40} \d+ \d+ \S+)");
  EXPECT_EQ(static_cast<long>(lines.size()), entries) << ls.output;
  EXPECT_EQ(MatchingLines(ls.output, ".+").size(), lines.size()) << "unexpected lines:\n"
                                                                 << ls.output;
  long listed_bytes = 0;
  for (const std::string& line : lines) listed_bytes += NumberAfter(line, R"(^\S+ (\d+))");
  EXPECT_EQ(listed_bytes, bytes);

  // --times adds when each entry came: during the fuzzing run above.
  CommandResult timed = Corpus({"ls", dir, "--times"});
  ASSERT_EQ(timed.exit_code, 0) << timed.output;
  const std::vector<std::string> timed_lines =
      MatchingLines(timed.output, R"([0-9a-f]{40} \d+ \d+ \S+ \d{13})");
  EXPECT_EQ(timed_lines.size(), lines.size()) << timed.output;
  for (const std::string& line : timed_lines) {
    EXPECT_GE(std::stoll(line.substr(line.rfind(' ') + 1)), before_ms) << line;
  }

  CommandResult crashes = Corpus({"ls", dir, "--crashes"});
  ASSERT_EQ(crashes.exit_code, 0) << crashes.output;
  EXPECT_EQ(crashes.output, "");
}

TEST(CorpusCommandTest, LsCrashesListsTheCrashFound) {
  const std::string dir = MakeTempDir();
  const std::string seeds = dir + "/seeds";
  RunCommand({"/bin/mkdir", "-p", seeds}, 10);
  WriteFile(seeds + "/crasher", "HI!");
  CommandResult fuzz =
      RunCommand({PollenBin(), "fuzz", Example("shallow_crash"), seeds, "--workers=1", "--seed=1",
                  "--runs=1000", "--workdir=" + dir + "/work"},
                 300);
  ASSERT_EQ(fuzz.exit_code, 1) << fuzz.output;

  CommandResult crashes = Corpus({"ls", dir + "/work", "--crashes"});
  ASSERT_EQ(crashes.exit_code, 0) << crashes.output;
  const std::vector<std::string> lines = MatchingLines(crashes.output, R"([0-9a-f]{16} SEGV 1 3)");
  EXPECT_EQ(lines.size(), 1u) << crashes.output;
  CommandResult stats = Corpus({"stats", dir + "/work"});
  ASSERT_EQ(stats.exit_code, 0) << stats.output;
  EXPECT_EQ(NumberAfter(stats.output, R"(crashes:\s+(\d+))"), 1) << stats.output;

  CommandResult json = Corpus({"stats", dir + "/work", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  nlohmann::json j = nlohmann::json::parse(json.output, nullptr, false);
  ASSERT_TRUE(j.is_object()) << json.output;
  EXPECT_EQ(j["crashes"], 1);
  EXPECT_EQ(j["target"], "shallow_crash_fuzzer");
  EXPECT_EQ(j["entries"].get<long>(), NumberAfter(stats.output, R"(entries:\s+(\d+))"));
}

TEST(CorpusCommandTest, NonStoreIsAClearUsageError) {
  const std::string dir = MakeTempDir();
  WriteFile(dir + "/notes.txt", "not a store");
  for (const std::string& sub : {"stats", "ls"}) {
    CommandResult r = Corpus({sub, dir});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("ERROR: " + dir));
    EXPECT_THAT(r.output, HasSubstr("not a pollen corpus store"));
  }
  CommandResult absent = Corpus({"stats", dir + "/absent"});
  EXPECT_EQ(absent.exit_code, 2) << absent.output;
  EXPECT_THAT(absent.output, HasSubstr("ERROR: no corpus store at " + dir + "/absent"));

  CommandResult unknown = Corpus({"shuffle", dir});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_THAT(unknown.output, HasSubstr("unknown corpus subcommand 'shuffle'"));
  CommandResult missing = Corpus({"stats"});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
}

TEST(CorpusCommandTest, StatsWorksWhileFuzzWritesTheStore) {
  const std::string dir = MakeTempDir();
  Background fuzz(
      {PollenBin(), "fuzz", TestTarget("no_bug"), "--workers=1", "--time=60", "--workdir=" + dir});
  ASSERT_TRUE(fuzz.WaitForOutput("INITED", 120)) << fuzz.output();
  CommandResult stats = Corpus({"stats", dir});
  EXPECT_EQ(stats.exit_code, 0) << stats.output;
  EXPECT_GE(NumberAfter(stats.output, R"(entries:\s+(\d+))"), 1) << stats.output;
  CommandResult ls = Corpus({"ls", dir});
  EXPECT_EQ(ls.exit_code, 0) << ls.output;
  EXPECT_FALSE(MatchingLines(ls.output, R"([0-9a-f]{40} \d+ \d+ \S+)").empty()) << ls.output;
  // The writer kept its lock and runs on: killed by ~Background.
  EXPECT_TRUE(Running(fuzz.pid())) << "pollen fuzz stopped while stats read its store:\n"
                                   << fuzz.output();
}

}  // namespace
}  // namespace pollen::testing
