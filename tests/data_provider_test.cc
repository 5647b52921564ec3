// A harness written with clang's FuzzedDataProvider (tests/targets/data_provider.cc) works
// with Pollen as with libFuzzer: its planted bug, behind an integer and a flag taken from the
// input's end and a string from its front, is found.
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

TEST(DataProviderTest, APlantedBugBehindTypedValuesIsFound) {
  const std::string dir = MakeTempDir();
  CommandResult r = RunCommand({PollenBin(), "fuzz", TestTarget("data_provider"), "--workers=1",
                                "--seed=1", "--runs=5000000", "--workdir=" + dir + "/work"},
                               300);
  ASSERT_FALSE(r.timed_out) << r.output;
  EXPECT_EQ(r.exit_code, 1) << r.output;  // a failure found
  EXPECT_NE(r.output.find("deadly signal SIGILL"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pollen::testing
