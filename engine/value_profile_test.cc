#include "engine/value_profile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace pollen::engine {
namespace {

constexpr uint32_t kBase = 100;

struct Collected {
  std::vector<Feature> features;
  bool any_new = false;
};

// Collects one run into a fresh feature list, against `seen`, and adds what it found to
// `seen` as the coordinator would.
Collected CollectInto(ValueProfile& vp, std::vector<uint8_t>& seen) {
  Collected run;
  run.features.resize(16);
  size_t written = 0;
  vp.Collect(kBase, seen.data(), run.features.data(), run.features.size(), &written, &run.any_new);
  run.features.resize(written);
  for (Feature f : run.features) seen[FeatureCounter(f)] |= 1;
  return run;
}

TEST(ValueProfileTest, BitsLevelCountsAgreeingBits) {
  EXPECT_EQ(ValueProfile::BitsLevel(7, 7), 63u);
  EXPECT_EQ(ValueProfile::BitsLevel(7, 6), 62u);
  EXPECT_EQ(ValueProfile::BitsLevel(0, ~0ULL), 0u);
}

TEST(ValueProfileTest, DistanceLevelRisesAsTheDistanceHalves) {
  EXPECT_EQ(ValueProfile::DistanceLevel(0x31337, 0x31337, 4), 63u);
  EXPECT_EQ(ValueProfile::DistanceLevel(0x31336, 0x31337, 4), 63u);
  EXPECT_EQ(ValueProfile::DistanceLevel(0x31337 - 100000, 0x31337, 4), 64u - 17);
  EXPECT_EQ(ValueProfile::DistanceLevel(0x31337 - 60000, 0x31337, 4), 64u - 16);
  // -1 against 0 in a 4-byte comparison is one apart, not 2^32 - 1.
  EXPECT_EQ(ValueProfile::DistanceLevel(0xFFFFFFFF, 0, 4), 63u);
  EXPECT_EQ(ValueProfile::DistanceLevel(0, ~0ULL, 8), 63u);
  EXPECT_EQ(ValueProfile::DistanceLevel(0, 1ULL << 63, 8), 0u);
}

TEST(ValueProfileTest, OnlyCloserThanEverBeforeIsNew) {
  std::vector<uint8_t> seen(kBase + ValueProfile::kCounters, 0);
  ValueProfile vp;
  vp.Note(0x1234, 10);
  Collected first = CollectInto(vp, seen);
  ASSERT_EQ(first.features.size(), 1u);
  EXPECT_TRUE(first.any_new);

  vp.Note(0x1234, 5);  // farther than level 10: not new, though level 5 was never seen
  Collected farther = CollectInto(vp, seen);
  ASSERT_EQ(farther.features.size(), 1u);
  EXPECT_FALSE(farther.any_new);
  EXPECT_EQ(FeatureCounter(farther.features[0]) + 5, FeatureCounter(first.features[0]));

  vp.Note(0x1234, 10);  // as close as before: not new
  EXPECT_FALSE(CollectInto(vp, seen).any_new);

  vp.Note(0x1234, 11);
  EXPECT_TRUE(CollectInto(vp, seen).any_new);
}

TEST(ValueProfileTest, ARunReportsItsClosestLevelPerSite) {
  std::vector<uint8_t> seen(kBase + ValueProfile::kCounters, 0);
  ValueProfile vp;
  vp.Note(0x1234, 3);
  vp.Note(0x1234, 40);
  vp.Note(0x1234, 7);
  vp.Note(0x99999, 200);  // capped at the top level
  Collected run = CollectInto(vp, seen);
  ASSERT_EQ(run.features.size(), 2u);
  EXPECT_LT(run.features[0], run.features[1]);  // ascending
  std::vector<uint32_t> levels;
  for (Feature f : run.features) {
    EXPECT_EQ(FeatureBucket(f), 0u);
    levels.push_back((FeatureCounter(f) - kBase) % ValueProfile::kLevels);
  }
  std::sort(levels.begin(), levels.end());
  EXPECT_EQ(levels, (std::vector<uint32_t>{40, 63}));
}

TEST(ValueProfileTest, CollectResetsTheRun) {
  std::vector<uint8_t> seen(kBase + ValueProfile::kCounters, 0);
  ValueProfile vp;
  vp.Note(0x1234, 3);
  EXPECT_EQ(CollectInto(vp, seen).features.size(), 1u);
  Collected empty = CollectInto(vp, seen);
  EXPECT_TRUE(empty.features.empty());
  EXPECT_FALSE(empty.any_new);
}

TEST(ValueProfileTest, FeaturesPastTheCapacityAreDroppedButTested) {
  std::vector<uint8_t> seen(kBase + ValueProfile::kCounters, 0);
  ValueProfile vp;
  for (uintptr_t pc = 1; pc < 4000; pc += 97) vp.Note(pc, 1);
  // The first site (in counter order) has been higher before: only a dropped one is new.
  ValueProfile probe;
  for (uintptr_t pc = 1; pc < 4000; pc += 97) probe.Note(pc, 1);
  Feature first[1];
  size_t probed = 0;
  bool ignored = false;
  probe.Collect(kBase, seen.data(), first, 1, &probed, &ignored);
  ASSERT_EQ(probed, 1u);
  seen[FeatureCounter(first[0]) + 5] = 1;
  Feature one[1];
  size_t written = 0;
  bool any_new = false;
  vp.Collect(kBase, seen.data(), one, 1, &written, &any_new);
  EXPECT_EQ(written, 1u);
  EXPECT_EQ(one[0], first[0]);
  EXPECT_TRUE(any_new);
}

// NoteInt climbs the two ladders BitsLevel and DistanceLevel define (its own bit count may use
// the CPU's popcnt instruction), at sites 2 * pc and 2 * pc + 1.
TEST(ValueProfileTest, NoteIntClimbsTheBitsAndDistanceLadders) {
  std::vector<uint8_t> seen(kBase + ValueProfile::kCounters, 0);
  uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < 200; i++) {
    SCOPED_TRACE(i);
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint64_t a = x, b = (i % 3 == 0) ? x ^ (x >> (i % 64)) : x * 31 + static_cast<uint64_t>(i);
    uint32_t size = 1u << (i % 4);
    ValueProfile vp, expected;
    uintptr_t pc = 0x1000 + static_cast<uintptr_t>(i) * 40;
    vp.NoteInt(pc, a, b, size);
    expected.Note(pc * 2, ValueProfile::BitsLevel(a, b));
    expected.Note(pc * 2 + 1, ValueProfile::DistanceLevel(a, b, size));
    EXPECT_EQ(CollectInto(vp, seen).features, CollectInto(expected, seen).features);
  }
}

}  // namespace
}  // namespace pollen::engine
