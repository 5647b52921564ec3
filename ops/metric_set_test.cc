#include "ops/metric_set.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/clock.h"
#include "ops/loop_watch.h"

namespace pollen::ops {
namespace {

using ::testing::HasSubstr;

TEST(MetricSetTest, GroupsSamplesByNameInTextFormat) {
  MetricSet m;
  m.Counter("pollen_x_dropped_total", "Dropped.", 3, {{"reason", "malformed"}});
  m.Gauge("pollen_x_nodes", "Nodes.", 2);
  m.Counter("pollen_x_dropped_total", "Dropped.", 5, {{"reason", "slow_peer"}});
  ASSERT_EQ(m.families().size(), 2u);
  EXPECT_EQ(m.families()[0].metric.size(), 2u);
  const std::string text = m.Text();
  EXPECT_THAT(text, HasSubstr("# HELP pollen_x_dropped_total Dropped.\n"
                              "# TYPE pollen_x_dropped_total counter\n"
                              "pollen_x_dropped_total{reason=\"malformed\"} 3\n"
                              "pollen_x_dropped_total{reason=\"slow_peer\"} 5\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE pollen_x_nodes gauge\npollen_x_nodes 2\n"));
}

TEST(MetricSetTest, LabelValuesAreEscaped) {
  MetricSet m;
  m.Gauge("pollen_x_info", "Info.", 1, {{"campaign", "a\"b\\c\nd"}});
  EXPECT_THAT(m.Text(), HasSubstr("pollen_x_info{campaign=\"a\\\"b\\\\c\\nd\"} 1\n"));
}

TEST(LoopWatchTest, AliveUntilAStartedLoopStalls) {
  LoopWatch watch;
  EXPECT_TRUE(watch.Check(0).ok);  // not started
  watch.Tick();
  EXPECT_TRUE(watch.Check(60000).ok);
  // Wait for the clock to move on (an event, not a guess at a duration).
  const uint64_t ticked = base::MonotonicMs();
  while (base::MonotonicMs() < ticked + 2) {
  }
  Probe stalled = watch.Check(0);
  EXPECT_FALSE(stalled.ok);
  EXPECT_THAT(stalled.detail, HasSubstr("has not turned for"));
  watch.Ended();
  EXPECT_TRUE(watch.Check(0).ok);  // draining
}

}  // namespace
}  // namespace pollen::ops
