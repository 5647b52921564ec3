// A find that minimizing cut down is kept as it was found too, as crossover material for
// later fuzz requests (node/found_inputs.h); a find is minimized with the value profile only
// when it needs it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

// One worker fuzzes no_bug from nothing, seed 3, with the value profile on or off.
CommandResult FuzzNoBug(const std::string& runs, bool profile) {
  return RunCommand(
      {PollenBin(), "fuzz", TestTarget("no_bug"), "--workers=1", "--seed=3", "--runs=" + runs,
       profile ? "--use-value-profile=true" : "--use-value-profile=false",
       "--workdir=" + MakeTempDir() + "/work"},
      120);
}

TEST(MinimizedFindsTest, KeptAsFoundForCrossover) {
  CommandResult r = FuzzNoBug("200000", false);
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

// A find is minimized with the value profile only when some of its new features are the
// profile's: candidates judged by the program's features alone run without it (and its
// hooks), which made them five times slower on mbedtls.
long MinimizedWithProfile(const std::string& output) {
  return NumberAfter(output, R"(new inputs \((\d+) with the value profile\))");
}

TEST(MinimizedFindsTest, ProgramFeaturesAreMinimizedWithoutTheProfile) {
  CommandResult r = FuzzNoBug("200000", true);
  ASSERT_FALSE(r.timed_out) << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  long minimized = NumberAfter(r.output, R"(minimizing (\d+) new inputs)");
  long with_profile = MinimizedWithProfile(r.output);
  ASSERT_GE(minimized, 2) << r.output;
  ASSERT_GE(with_profile, 0) << r.output;  // -1: the count is missing
  // Every fuzz unit ran with the profile: new edges and hit counts were still minimized
  // without it, and finds of closer comparisons (no_bug's range checks) with it.
  EXPECT_LT(with_profile, minimized) << r.output;
  EXPECT_GE(with_profile, 1) << r.output;
}

TEST(MinimizedFindsTest, NothingIsMinimizedWithTheProfileOff) {
  CommandResult r = FuzzNoBug("100000", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_GE(NumberAfter(r.output, R"(minimizing (\d+) new inputs)"), 1) << r.output;
  EXPECT_EQ(MinimizedWithProfile(r.output), 0) << r.output;
}

}  // namespace
}  // namespace pollen::testing
