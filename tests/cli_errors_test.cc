// Bad targets, flags and corpus directories give a clear error and exit code 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;

CommandResult Pollen(std::vector<std::string> args) {
  args.insert(args.begin(), PollenBin());
  return RunCommand(args, 120);
}

TEST(CliErrorsTest, NoCommand) {
  CommandResult r = Pollen({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("Usage: pollen COMMAND"));
}

TEST(CliErrorsTest, UnknownCommand) {
  CommandResult r = Pollen({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("unknown command 'frobnicate'"));
}

TEST(CliErrorsTest, MissingTarget) {
  CommandResult r = Pollen({"fuzz", "/nonexistent/target"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("does not exist"));
}

TEST(CliErrorsTest, NotAPollenTarget) {
  CommandResult r = Pollen({"fuzz", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("is not a Pollen target"));
}

TEST(CliErrorsTest, UninstrumentedTarget) {
  std::string dir = MakeTempDir();
  CommandResult r = Pollen({"fuzz", TestTarget("uninstrumented"), "--workdir=" + dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("no coverage counters"));
}

TEST(CliErrorsTest, BadNumber) {
  CommandResult r = Pollen({"fuzz", Example("empty"), "--runs=abc"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("--runs expects a non-negative integer, got 'abc'"));
}

// A fuzz unit of no executions or no time would never fuzz.
TEST(CliErrorsTest, EmptyFuzzUnit) {
  for (const char* flag : {"--unit-runs", "--unit-ms"}) {
    CommandResult r = Pollen({"fuzz", Example("empty"), std::string(flag) + "=0", "--runs=10"});
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_THAT(r.output, HasSubstr(std::string(flag) + " must be at least 1"));
  }
}

TEST(CliErrorsTest, UnknownFlag) {
  CommandResult r = Pollen({"fuzz", Example("empty"), "--bogus=1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("unknown flag --bogus=1"));
}

TEST(CliErrorsTest, MissingCorpusDir) {
  CommandResult r = Pollen({"fuzz", Example("empty"), "/nonexistent/corpus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("corpus directory /nonexistent/corpus does not exist"));
}

TEST(CliErrorsTest, CorpusDirIsAFile) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/file", "x");
  CommandResult r = Pollen({"fuzz", Example("empty"), dir + "/file"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("is not a directory"));
}

TEST(CliErrorsTest, MalformedDictionaryNamesTheLine) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/bad.dict", "# fine\nkw=\"ok\"\nthis is not an entry\n");
  CommandResult r =
      Pollen({"fuzz", Example("empty"), "--dict=" + dir + "/bad.dict", "--workdir=" + dir});
  EXPECT_EQ(r.exit_code, 2);
  // The file and the line number together, as a compiler names them: "bad.dict:3:".
  EXPECT_THAT(r.output, HasSubstr("bad.dict:3: bad dictionary entry"));
}

TEST(CliErrorsTest, ReproMissingFile) {
  CommandResult r = Pollen({"repro", Example("empty"), "/nonexistent/input"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("cannot read /nonexistent/input"));
}

TEST(CliErrorsTest, ReproOfHarmlessInputExitsZero) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/in", "harmless");
  CommandResult r = Pollen({"repro", Example("shallow_crash"), dir + "/in"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no failure"));
}

// A directory of reproducers kept as regression tests: its files run, its .txt reports and
// hidden files do not; one input that still crashes makes the exit code 1.
TEST(CliErrorsTest, ReproOfADirectoryRunsItsFilesAndFailsIfAnyStillCrashes) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/a-harmless", "harmless");
  WriteFile(dir + "/b-crash", "HI!");
  WriteFile(dir + "/b-crash.txt", "HI!");  // a report: not an input
  WriteFile(dir + "/.hidden", "HI!");
  CommandResult r = Pollen({"repro", Example("shallow_crash"), dir});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("b-crash: FAILURE"));
  EXPECT_THAT(r.output, HasSubstr("a-harmless: no failure"));
  EXPECT_THAT(r.output, HasSubstr("1 of 2 inputs failed"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr(".hidden")));

  std::filesystem::remove(dir + "/b-crash");  // fixed: the regression test passes
  CommandResult fixed = Pollen({"repro", Example("shallow_crash"), dir});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
  CommandResult empty = Pollen({"repro", Example("shallow_crash"), MakeTempDir()});
  EXPECT_EQ(empty.exit_code, 0) << empty.output;
  EXPECT_THAT(empty.output, HasSubstr("nothing to run"));
}

// Every command and subcommand prints its usage, each flag once (a flag named twice was
// unreachable: repro's controller timeout, before it became --controller-timeout).
TEST(CliErrorsTest, HelpOnEveryCommand) {
  const std::vector<std::string> commands = {
      "fuzz",           "node",           "repro",       "minimize",      "libfuzzer",
      "corpus",         "corpus stats",   "corpus ls",   "corpus import", "corpus export",
      "corpus merge",   "corpus compact", "corpus pull", "corpus push",   "broker",
      "keygen",         "controller",     "coverage",    "config",        "list",
      "status",         "start",          "stop",        "crashes list",  "crashes pull",
      "crashes export", "nightly",        "report pull", "build push"};
  for (const std::string& name : commands) {
    std::vector<std::string> args;
    std::istringstream words(name);
    for (std::string w; words >> w;) args.push_back(w);
    const std::string first = args[0];
    args.push_back("--help");
    CommandResult r = Pollen(args);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("Usage: pollen " + first)) << name;
    std::set<std::string> seen;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("  --", 0) != 0) continue;
      const std::string flag = line.substr(2, line.find_first_of("= ", 2) - 2);
      EXPECT_TRUE(seen.insert(flag).second) << name << " lists " << flag << " twice";
    }
  }
  EXPECT_THAT(Pollen({"repro", "--help"}).output, HasSubstr("--controller-timeout=N"));
}

}  // namespace
}  // namespace pollen::testing
