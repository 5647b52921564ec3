// A find that minimizing cut down is kept as it was found too, as crossover material for
// later fuzz requests (node/found_inputs.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

TEST(MinimizedFindsTest, KeptAsFoundForCrossover) {
  std::string dir = MakeTempDir();
  CommandResult r =
      RunCommand({PollenBin(), "fuzz", TestTarget("no_bug"), "--workers=1", "--seed=3",
                  "--runs=200000", "--use-value-profile=false", "--workdir=" + dir + "/work"},
                 120);
  ASSERT_FALSE(r.timed_out) << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  long minimized = NumberAfter(r.output, R"(minimizing (\d+) new inputs)");
  long kept = NumberAfter(r.output, R"((\d+) finds kept as found for crossover)");
  long pool = NumberAfter(r.output, R"(for crossover \((\d+) in the pool at the end)");
  long partners = NumberAfter(r.output, R"(the partner of (\d+) fuzz units)");
  ASSERT_GE(minimized, 1) << r.output;  // -1: the line is missing
  // Minimizing shortened some finds (no_bug's mutants grow past the bytes that matter), and
  // each of those is kept as found; the pool (1,024 at most) holds them all here ...
  EXPECT_GE(kept, 1) << r.output;
  EXPECT_LE(kept, minimized) << r.output;
  EXPECT_EQ(pool, kept) << r.output;
  // ... and fuzz units took their crossover partner from it (half of those after the first).
  EXPECT_GE(partners, 1) << r.output;
}

}  // namespace
}  // namespace pollen::testing
