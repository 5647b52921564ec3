#include "node/value_profile_switch.h"

#include <gtest/gtest.h>

namespace pollen::node {
namespace {

TEST(ValueProfileSwitchTest, TrueAndFalseNeverChange) {
  ValueProfileSwitch on(Setting::kOn, 100), off(Setting::kOff, 100);
  for (uint64_t t = 0; t < 1000; t += 50) {
    EXPECT_TRUE(on.Active(t, 7));
    EXPECT_FALSE(off.Active(t, 7));
  }
  EXPECT_EQ(on.times_on(), 0u);
}

TEST(ValueProfileSwitchTest, AutoTurnsOnAfterAStallAndOffAtTheNextEdge) {
  ValueProfileSwitch s(Setting::kAuto, 100);
  EXPECT_FALSE(s.Active(1000, 10));  // the first call starts the clock
  EXPECT_FALSE(s.Active(1050, 10));
  EXPECT_FALSE(s.Active(1099, 10));
  EXPECT_TRUE(s.Active(1100, 10));
  EXPECT_TRUE(s.Active(1400, 10));
  EXPECT_EQ(s.times_on(), 1u);
  EXPECT_EQ(s.active_ms(), 300u);
  EXPECT_FALSE(s.Active(1450, 11));  // a new edge
  EXPECT_EQ(s.active_ms(), 350u);
  EXPECT_FALSE(s.Active(1549, 11));
  EXPECT_TRUE(s.Active(1550, 11));
  EXPECT_EQ(s.times_on(), 2u);
}

TEST(ValueProfileSwitchTest, EdgesThatKeepComingKeepItOff) {
  ValueProfileSwitch s(Setting::kAuto, 100);
  size_t edges = 0;
  for (uint64_t t = 0; t < 10000; t += 90) EXPECT_FALSE(s.Active(t, edges++));
  EXPECT_EQ(s.times_on(), 0u);
  EXPECT_EQ(s.active_ms(), 0u);
}

}  // namespace
}  // namespace pollen::node
