// Typed fuzz tests (fuzztest/fuzz_test.h) on examples/key_value_fuzz_test.cc, as a developer
// uses them: the seeds pass under plain GoogleTest; --fuzz finds the planted bug and writes
// the failing input as a corpus file; from then on the plain run fails on it.
// POLLEN_FUZZ_TESTDATA keeps that file out of the source tree.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The example program (not a _fuzzer: it is a GoogleTest program).
std::string Program() {
  std::string any = Example("shallow_crash");
  return any.substr(0, any.rfind('/')) + "/key_value_fuzz_test";
}

TEST(FuzzTestTest, SeedsPassFuzzingFindsTheBugAndItBecomesARegressionCase) {
  std::string dir = MakeTempDir();
  std::vector<std::string> env{"POLLEN=" + PollenBin(), "POLLEN_FUZZ_TESTDATA=" + dir + "/testdata",
                               "POLLEN_FUZZ_WORKDIR=" + dir + "/work"};
  const std::string program = Program();

  CommandResult plain = RunCommand({program}, 60, env);
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_THAT(plain.output, HasSubstr("[       OK ] KeyValue.RoundTrips")) << plain.output;

  CommandResult fuzz =
      RunCommand({program, "--fuzz=KeyValue.RoundTrips", "--fuzz_time=120"}, 300, env);
  ASSERT_FALSE(fuzz.timed_out) << fuzz.output;
  EXPECT_EQ(fuzz.exit_code, 1) << fuzz.output;
  std::vector<std::string> inputs = ListVisibleFiles(dir + "/testdata/KeyValue.RoundTrips");
  ASSERT_EQ(inputs.size(), 1u) << fuzz.output;
  std::string text = ReadFile(inputs[0]);
  EXPECT_THAT(text, StartsWith("pollen fuzz v1\nstring(\"")) << text;
  EXPECT_THAT(text, HasSubstr("=")) << text;  // the key holds the '=' that breaks the decoder
  EXPECT_THAT(fuzz.output, HasSubstr("failing input written to " + inputs[0])) << fuzz.output;

  CommandResult again = RunCommand({program}, 60, env);
  EXPECT_EQ(again.exit_code, 1) << again.output;
  EXPECT_THAT(again.output, HasSubstr("[  FAILED  ] KeyValue.RoundTrips")) << again.output;
  EXPECT_THAT(again.output, HasSubstr(inputs[0])) << again.output;

  // The failures found before start the next fuzzing run: it fails on the first input.
  CommandResult refuzz =
      RunCommand({program, "--fuzz=KeyValue.RoundTrips", "--fuzz_time=120"}, 300, env);
  EXPECT_EQ(refuzz.exit_code, 1) << refuzz.output;
  EXPECT_THAT(refuzz.output, HasSubstr("FAILURE (while running an input as it is)"))
      << refuzz.output;
}

// A `kill` of the fuzzing program (a CI runner's timeout, systemd) stops pollen cleanly.
TEST(FuzzTestTest, SigtermStopsAFuzzingRun) {
  std::string dir = MakeTempDir();
  Background run({Program(), "--fuzz=KeyValue.OneLinePerEntry"},
                 {"POLLEN=" + PollenBin(), "POLLEN_FUZZ_TESTDATA=" + dir + "/testdata",
                  "POLLEN_FUZZ_WORKDIR=" + dir + "/work"});
  ASSERT_TRUE(run.WaitForOutput("INITED", 60)) << run.output();
  ASSERT_EQ(kill(run.pid(), SIGTERM), 0);
  CommandResult r = run.Wait(60);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("stopped (SIGTERM)")) << r.output;
}

TEST(FuzzTestTest, AnUnknownTestIsAClearError) {
  CommandResult r = RunCommand({Program(), "--fuzz=No.Such"}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no fuzz test named No.Such; this program has:\n  "
                                  "KeyValue.OneLinePerEntry\n  KeyValue.RoundTrips\n"))
      << r.output;
}

}  // namespace
}  // namespace pollen::testing
