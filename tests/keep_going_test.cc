// --keep-going: fuzzing goes on after a failure, and the same bug found again is counted,
// not saved again.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

// The value profile is off: every input that comes closer to "THROW" crashes, and a run
// full of worker restarts would take minutes to reach its executions.
TEST(KeepGoingTest, SameBugIsSavedOnceAndCounted) {
  std::string dir = MakeTempDir();
  CommandResult r = RunCommand(
      {PollenBin(), "fuzz", Example("exception"), "--workers=1", "--seed=2", "--runs=300000",
       "--keep-going", "--minimize-time=5", "--workdir=" + dir, "--use-value-profile=false"},
      300);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  std::vector<std::string> artifacts = ArtifactInputs(dir + "/crashes", "crash");
  EXPECT_EQ(artifacts.size(), 1u) << r.output;
  // Found again after the first time: counted under the same signature.
  EXPECT_THAT(r.output, ::testing::HasSubstr("seen 2 times")) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("failures:     1")) << r.output;
}

}  // namespace
}  // namespace pollen::testing
