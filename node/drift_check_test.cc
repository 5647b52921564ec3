#include "node/drift_check.h"

#include "gtest/gtest.h"

namespace pollen::node {
namespace {

TEST(DriftCheckTest, ThreeLowEntryRunsInARowMeanDrift) {
  DriftCheck check;
  EXPECT_FALSE(check.Observe(100, 40, 1000));
  EXPECT_FALSE(check.Observe(200, 10, 1100));
  EXPECT_TRUE(check.Observe(100, 49, 1200));
  // The streak starts over after a restart; the fresh process first covers what it should.
  EXPECT_FALSE(check.Observe(100, 90, 9000));
  EXPECT_FALSE(check.Observe(100, 10, 9100));
  EXPECT_FALSE(check.Observe(100, 10, 9200));
  EXPECT_TRUE(check.Observe(100, 10, 9300));
}

TEST(DriftCheckTest, AFreshProcessThatDriftsAtOnceTurnsTheCheckOff) {
  DriftCheck check;
  for (uint64_t t : {1000, 1100}) EXPECT_FALSE(check.Observe(100, 10, t));
  EXPECT_TRUE(check.Observe(100, 10, 1200));
  for (uint64_t t : {9000, 9100, 9200}) EXPECT_FALSE(check.Observe(100, 10, t));
  EXPECT_TRUE(check.off());
  for (uint64_t t = 20000; t < 40000; t += 100) EXPECT_FALSE(check.Observe(100, 10, t));
}

TEST(DriftCheckTest, ACountOfZeroSaysNothing) {
  DriftCheck check;  // a runtime older than the field reports 0
  for (uint64_t t = 1000; t < 20000; t += 100) EXPECT_FALSE(check.Observe(100, 0, t));
  EXPECT_FALSE(check.off());
}

TEST(DriftCheckTest, AnEntryCoveringHalfOrMoreBreaksTheStreak) {
  DriftCheck check;
  EXPECT_FALSE(check.Observe(100, 10, 1000));
  EXPECT_FALSE(check.Observe(100, 10, 1100));
  EXPECT_FALSE(check.Observe(100, 50, 1200));  // half: fine
  EXPECT_FALSE(check.Observe(100, 10, 1300));
  EXPECT_FALSE(check.Observe(100, 10, 1400));
  EXPECT_TRUE(check.Observe(100, 10, 1500));
}

TEST(DriftCheckTest, SmallEntriesSayNothing) {
  DriftCheck check;
  EXPECT_FALSE(check.Observe(100, 10, 1000));
  EXPECT_FALSE(check.Observe(100, 10, 1100));
  EXPECT_FALSE(check.Observe(DriftCheck::kMinFeatures - 1, 0, 1200));  // neither breaks nor adds
  EXPECT_TRUE(check.Observe(100, 10, 1300));
}

TEST(DriftCheckTest, RestartsAreAtLeastTheGapApart) {
  DriftCheck check;
  for (uint64_t t : {1000, 1100}) EXPECT_FALSE(check.Observe(100, 1, t));
  EXPECT_TRUE(check.Observe(100, 1, 1200));
  EXPECT_FALSE(check.Observe(100, 80, 1300));  // the fresh process is fine at first
  for (uint64_t t : {1400, 1500, 1600}) EXPECT_FALSE(check.Observe(100, 1, t));  // too soon
  const uint64_t later = 1200 + DriftCheck::kMinRestartGapMs;
  EXPECT_FALSE(check.Observe(100, 1, later));
  EXPECT_FALSE(check.Observe(100, 1, later + 100));
  EXPECT_TRUE(check.Observe(100, 1, later + 200));
  EXPECT_FALSE(check.off());
}

}  // namespace
}  // namespace pollen::node
