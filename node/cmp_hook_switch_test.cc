#include "node/cmp_hook_switch.h"

#include <gtest/gtest.h>

namespace pollen::node {
namespace {

// How many of the next n requests may skip the hooks.
int OffOf(CmpHookSwitch& s, int n) {
  int off = 0;
  for (int i = 0; i < n; i++) off += s.Off() ? 1 : 0;
  return off;
}

TEST(CmpHookSwitchTest, TrueAndFalseNeverChange) {
  CmpHookSwitch on(Setting::kOn), off(Setting::kOff);
  for (int i = 0; i < 50; i++) {
    on.Record(false, true, 100'000, true, static_cast<uint64_t>(i) * 100);
    off.Record(true, false, 100'000, false, static_cast<uint64_t>(i) * 100);
  }
  EXPECT_EQ(OffOf(on, 100), 0);
  EXPECT_EQ(OffOf(off, 100), 100);
  EXPECT_EQ(off.units_off(), 50u);
  EXPECT_EQ(off.units(), 50u);
  EXPECT_EQ(on.units_off(), 0u);
}

TEST(CmpHookSwitchTest, AutoStartsAtHalfAndFollowsTheFindRates) {
  CmpHookSwitch s(Setting::kAuto);
  EXPECT_DOUBLE_EQ(s.share(), 0.5);
  EXPECT_EQ(OffOf(s, 100), 50);  // a credit counter: exactly the share
  // Without hooks, twice the finds per second: the share climbs past a half.
  uint64_t now = 0;
  for (int i = 0; i < 40; i++, now += 100) {
    s.Record(true, false, 100'000, i % 2 == 0, now);
    s.Record(false, true, 100'000, i % 4 == 0, now);
  }
  const double up = s.share();
  EXPECT_GT(up, 0.7);
  EXPECT_LE(up, CmpHookSwitch::kMaxShare);
  // Then the hooks find and the requests without find nothing: back down to the floor.
  for (int i = 0; i < 400; i++, now += 100) {
    s.Record(true, false, 100'000, false, now);
    s.Record(false, true, 100'000, true, now);
  }
  EXPECT_DOUBLE_EQ(s.share(), CmpHookSwitch::kMinShare);
  EXPECT_NEAR(OffOf(s, 100), 20, 1);
}

TEST(CmpHookSwitchTest, RequestsNeitherOffNorMeasuredDoNotCount) {
  CmpHookSwitch s(Setting::kAuto);
  // A stage's finds (hooked, not measured) must not make the hooks look better.
  for (int i = 0; i < 100; i++) s.Record(false, false, 100'000, true, static_cast<uint64_t>(i));
  EXPECT_DOUBLE_EQ(s.share(), 0.5);
  EXPECT_EQ(s.units_off(), 0u);
}

TEST(CmpHookSwitchTest, OldRatesFadeWithTheHalfLife) {
  CmpHookSwitch s(Setting::kAuto);
  uint64_t now = 0;
  // Early on, only the hooks find.
  for (int i = 0; i < 100; i++, now += 100) {
    s.Record(false, true, 100'000, true, now);
    s.Record(true, false, 100'000, false, now);
  }
  EXPECT_DOUBLE_EQ(s.share(), CmpHookSwitch::kMinShare);
  // Ten half-lives later, both find at the same rate: the early lead is forgotten.
  const uint64_t end = now + 10 * CmpHookSwitch::kHalfLifeMs;
  for (; now < end; now += 500) {
    s.Record(false, true, 500'000, true, now);
    s.Record(true, false, 500'000, true, now);
  }
  EXPECT_NEAR(s.share(), 0.5, 0.02);
}

TEST(CmpHookSwitchTest, OneFindInAQuietStretchDoesNotSwingTheShare) {
  CmpHookSwitch s(Setting::kAuto);
  uint64_t now = 0;
  for (int i = 0; i < 100; i++, now += 100) {
    s.Record(false, true, 100'000, true, now);
    s.Record(true, false, 100'000, true, now);
  }
  // Ten half-lives in which nothing is found, then one find with the hooks.
  const uint64_t end = now + 10 * CmpHookSwitch::kHalfLifeMs;
  for (; now < end; now += 500) {
    s.Record(false, true, 500'000, false, now);
    s.Record(true, false, 500'000, false, now);
  }
  s.Record(false, true, 500'000, true, now);
  EXPECT_GT(s.share(), 0.25);
  EXPECT_LT(s.share(), 0.5);
}

TEST(CmpHookSwitchTest, WorkersStuckWithHooksOffTurnThemOnForGood) {
  CmpHookSwitch s(Setting::kOff);
  for (uint32_t i = 1; i < CmpHookSwitch::kMaxStuck; i++) EXPECT_FALSE(s.Stuck());
  EXPECT_EQ(OffOf(s, 10), 10);
  EXPECT_TRUE(s.Stuck());
  EXPECT_EQ(s.setting(), Setting::kOn);
  EXPECT_EQ(OffOf(s, 10), 0);
  EXPECT_FALSE(s.Stuck());  // said once
}

}  // namespace
}  // namespace pollen::node
