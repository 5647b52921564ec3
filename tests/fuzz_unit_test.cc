// A fuzz unit ends after --unit-ms or --unit-runs, whichever comes first: on a target that
// takes 2 ms per input, short units choose an entry many times more often than long ones,
// and say they ended on their time limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

struct Units {
  long total = -1;
  long cut_by_time = -1;
};

// From the run's last info line: "... N ended on their time limit; ... M of U fuzz units'".
Units CountUnits(const std::string& output) {
  return {NumberAfter(output, R"(\d+ of (\d+) fuzz units' mutants)"),
          NumberAfter(output, R"((\d+) ended on their time limit)")};
}

Units RunSlowParse(const std::string& unit_ms) {
  std::string dir = MakeTempDir();
  CommandResult r =
      RunCommand({PollenBin(), "fuzz", TestTarget("slow_parse"), "--workers=1", "--seed=1",
                  "--runs=400", "--unit-ms=" + unit_ms, "--workdir=" + dir},
                 120);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  Units u = CountUnits(r.output);
  EXPECT_GT(u.total, 0) << r.output;
  return u;
}

TEST(FuzzUnitTest, ShortUnitsChooseMoreOften) {
  // 400 runs of 2 ms: 20-ms units hold about ten runs each, 2-s units all that is left
  // once the few finds (each of which ends a unit) are made.
  Units short_units = RunSlowParse("20");
  Units long_units = RunSlowParse("2000");
  EXPECT_GT(short_units.cut_by_time, 0);
  EXPECT_GE(short_units.total, 3 * long_units.total)
      << short_units.total << " units of 20 ms, " << long_units.total << " of 2 s";
}

}  // namespace
}  // namespace pollen::testing
