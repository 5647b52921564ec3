#include "node/hang_cutoff.h"

#include "gtest/gtest.h"

namespace pollen::node {
namespace {

TEST(HangCutoffTest, MutantsGetTheTimeoutUntilStoppedExecutionsTookTheirShare) {
  HangCutoff cutoff(10000, 1000, 1);
  cutoff.Start(1000);
  EXPECT_EQ(cutoff.LimitMs(true, 5000), 10000u);
  cutoff.NoteStopped(10500);  // one timeout, at 11.5 s
  EXPECT_TRUE(cutoff.OverShare(11500));
  EXPECT_EQ(cutoff.LimitMs(true, 11500), 1000u);
  EXPECT_EQ(cutoff.LimitMs(false, 11500), 10000u);  // an input run as it is: never cut
  // 10.5 s is 5 % of 210 s: the share is back at 211 s.
  EXPECT_EQ(cutoff.LimitMs(true, 210000), 1000u);
  EXPECT_EQ(cutoff.LimitMs(true, 212000), 10000u);
}

TEST(HangCutoffTest, TheShareCountsEveryWorkersTime) {
  HangCutoff cutoff(10000, 1000, 4);
  cutoff.Start(0);
  cutoff.NoteStopped(10000);
  EXPECT_TRUE(cutoff.OverShare(49000));   // 4 × 49 s × 5 % = 9.8 s
  EXPECT_FALSE(cutoff.OverShare(51000));  // 10.2 s
}

TEST(HangCutoffTest, ACutoffBelowTenTimesTheSlowestEntryIsRaisedToIt) {
  HangCutoff cutoff(10000, 1000, 1);
  cutoff.Start(0);
  cutoff.NoteStopped(10000);
  cutoff.NoteEntry(250000);  // 250 ms
  EXPECT_EQ(cutoff.LimitMs(true, 20000), 2500u);
  cutoff.NoteEntry(4000000);  // 4 s: ten times that is past the timeout
  EXPECT_EQ(cutoff.LimitMs(true, 20000), 10000u);
}

TEST(HangCutoffTest, ZeroTurnsTheCutoffOff) {
  HangCutoff cutoff(10000, 0, 1);
  cutoff.Start(0);
  cutoff.NoteStopped(100000);
  EXPECT_TRUE(cutoff.OverShare(20000));
  EXPECT_EQ(cutoff.LimitMs(true, 20000), 10000u);
}

}  // namespace
}  // namespace pollen::node
