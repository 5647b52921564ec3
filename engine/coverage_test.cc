#include "engine/coverage.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/rng.h"

namespace pollen::engine {
namespace {

// The bucket of a non-zero counter, straight from the spec's ranges.
int SpecBucket(int c) {
  if (c == 1) return 0;
  if (c == 2) return 1;
  if (c == 3) return 2;
  if (c >= 4 && c <= 7) return 3;
  if (c >= 8 && c <= 15) return 4;
  if (c >= 16 && c <= 31) return 5;
  if (c >= 32 && c <= 127) return 6;
  return 7;
}

TEST(BucketTest, TableMatchesSpecForAll256Values) {
  EXPECT_EQ(kCounterBucketBit[0], 0);
  for (int c = 1; c < 256; c++) {
    SCOPED_TRACE(c);
    EXPECT_EQ(kCounterBucketBit[c], 1 << SpecBucket(c));
    EXPECT_EQ(CounterBucket(static_cast<uint8_t>(c)), SpecBucket(c));
  }
}

TEST(BucketTest, FeatureRoundTrips) {
  for (uint32_t idx : {0u, 1u, 7u, 12345u, (1u << 29) - 1}) {
    for (uint32_t b = 0; b < 8; b++) {
      Feature f = MakeFeature(idx, b);
      EXPECT_EQ(FeatureCounter(f), idx);
      EXPECT_EQ(FeatureBucket(f), b);
    }
  }
  EXPECT_EQ(MakeFeature(3, 5), 29u);
}

struct Reference {
  std::vector<Feature> features;
  bool any_new = false;
};

Reference NaiveScan(const uint8_t* counters, size_t n, uint32_t base, const uint8_t* seen) {
  Reference r;
  for (size_t i = 0; i < n; i++) {
    if (counters[i] == 0) continue;
    uint32_t idx = base + static_cast<uint32_t>(i);
    int b = SpecBucket(counters[i]);
    r.features.push_back(idx * 8 + b);
    if ((seen[idx] & (1 << b)) == 0) r.any_new = true;
  }
  return r;
}

TEST(ScanAndClearTest, MatchesNaiveReferenceOnRandomArrays) {
  Rng rng = Rng::FromSeed(42);
  int with_new = 0, without_new = 0;
  for (int iter = 0; iter < 1000; iter++) {
    SCOPED_TRACE(iter);
    size_t n = rng.Below(1001);
    size_t offset = rng.Below(8);
    uint32_t base = rng.Below(100);
    std::vector<uint8_t> buf(n + offset + 8, 0);
    uint8_t* counters = buf.data() + offset;
    if (n > 0 && rng.OneIn(3)) {
      // Sparse, as after a real run: a few counters, so whole 64-byte blocks are zero.
      for (uint32_t k = rng.Below(6); k > 0; k--) {
        counters[rng.Below(static_cast<uint32_t>(n))] = static_cast<uint8_t>(rng.Next() | 1);
      }
    } else {
      // Density varies so that zero words, sparse words and full words all occur.
      uint32_t density = 1 + rng.Below(16);
      for (size_t i = 0; i < n; i++) {
        if (rng.Below(16) < density) counters[i] = static_cast<uint8_t>(rng.Next());
      }
    }
    buf[offset + n] = 0xAB;  // a canary just past the end must survive
    if (offset > 0) buf[offset - 1] = 0xCD;
    std::vector<uint8_t> seen(base + n);
    bool seen_all = rng.OneIn(3);  // often nothing is new, to test the false side
    for (auto& s : seen) s = seen_all ? 0xff : static_cast<uint8_t>(rng.Next() | rng.Next());
    Reference ref = NaiveScan(counters, n, base, seen.data());

    std::vector<Feature> out(n + 1, 0xdeadbeef);
    size_t written = 1;  // appends after what is already there
    bool any_new = false;
    size_t found = ScanAndClearCounters(counters, n, base, seen.data(), out.data(), out.size(),
                                        &written, &any_new);
    EXPECT_EQ(found, ref.features.size());
    ASSERT_EQ(written, 1 + ref.features.size());
    EXPECT_EQ(out[0], 0xdeadbeefu);
    EXPECT_EQ(std::vector<Feature>(out.begin() + 1, out.begin() + written), ref.features);
    EXPECT_EQ(any_new, ref.any_new);
    (ref.any_new ? with_new : without_new)++;
    for (size_t i = 0; i < n; i++) ASSERT_EQ(counters[i], 0) << i;
    EXPECT_EQ(buf[offset + n], 0xAB);
    if (offset > 0) EXPECT_EQ(buf[offset - 1], 0xCD);
  }
  // Both outcomes were exercised.
  EXPECT_GT(with_new, 100);
  EXPECT_GT(without_new, 100);
}

TEST(ScanAndClearTest, CapacityTruncatesButNoveltyAndCountStayExact) {
  std::vector<uint8_t> counters(40, 0);
  counters[3] = 1;
  counters[17] = 200;
  counters[39] = 5;  // the only new one, beyond capacity
  std::vector<uint8_t> seen(40, 0);
  seen[3] = 0x01;
  seen[17] = 0x80;
  Feature out[2];
  size_t written = 0;
  bool any_new = false;
  size_t found = ScanAndClearCounters(counters.data(), counters.size(), 0, seen.data(), out, 2,
                                      &written, &any_new);
  EXPECT_EQ(found, 3u);
  EXPECT_EQ(written, 2u);
  EXPECT_EQ(out[0], MakeFeature(3, 0));
  EXPECT_EQ(out[1], MakeFeature(17, 7));
  EXPECT_TRUE(any_new);
  EXPECT_EQ(counters, std::vector<uint8_t>(40, 0));
}

TEST(ScanAndClearTest, AnyNewIsStickyAcrossRegions) {
  std::vector<uint8_t> seen(16, 0xff);
  uint8_t region[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  Feature out[8];
  size_t written = 0;
  bool any_new = true;
  EXPECT_EQ(ScanAndClearCounters(region, 8, 8, seen.data(), out, 8, &written, &any_new), 0u);
  EXPECT_TRUE(any_new);  // not reset by a region with nothing new
  any_new = false;
  region[2] = 1;
  EXPECT_EQ(ScanAndClearCounters(region, 8, 8, seen.data(), out, 8, &written, &any_new), 1u);
  EXPECT_FALSE(any_new);
  EXPECT_EQ(out[0], MakeFeature(10, 0));
}

TEST(CoverageMapTest, AddCountEdgesFeatures) {
  CoverageMap map(10);
  EXPECT_EQ(map.size(), 10u);
  std::vector<Feature> f = {MakeFeature(1, 0), MakeFeature(1, 3), MakeFeature(4, 7),
                            MakeFeature(10, 0)};  // the last is out of range
  EXPECT_EQ(map.CountNew(f.data(), f.size()), 3u);
  EXPECT_EQ(map.NewFeatures(f.data(), f.size()),
            (std::vector<Feature>{MakeFeature(1, 0), MakeFeature(1, 3), MakeFeature(4, 7)}));
  EXPECT_EQ(map.Add(f.data(), f.size()), 3u);
  EXPECT_EQ(map.edges(), 2u);
  EXPECT_EQ(map.features(), 3u);
  EXPECT_TRUE(map.Contains(MakeFeature(1, 3)));
  EXPECT_FALSE(map.Contains(MakeFeature(1, 1)));
  EXPECT_FALSE(map.Contains(MakeFeature(10, 0)));
  EXPECT_EQ(map.data()[1], 0x09);
  EXPECT_EQ(map.CountNew(f.data(), f.size()), 0u);
  EXPECT_TRUE(map.NewFeatures(f.data(), f.size()).empty());
  EXPECT_EQ(map.Add(f.data(), f.size()), 0u);

  std::vector<Feature> g = {MakeFeature(1, 1), MakeFeature(9, 2), MakeFeature(1, 1)};
  EXPECT_EQ(map.CountNew(g.data(), g.size()), 3u);  // repeats count each time
  EXPECT_EQ(map.Add(g.data(), g.size()), 2u);
  EXPECT_EQ(map.edges(), 3u);
  EXPECT_EQ(map.features(), 5u);
}

TEST(CoverageMapTest, LadderLevelsBelowAnAddedOneAreNotNew) {
  // Counters 4..11: two ladders of 4 levels (sites 0 and 1).
  CoverageMap map(16);
  map.SetLadders(4, 2, 4);
  Feature level2 = MakeFeature(4 + 2, 0);
  EXPECT_EQ(map.Add(&level2, 1), 1u);
  EXPECT_EQ(map.features(), 3u);  // levels 0 and 1 implied
  EXPECT_EQ(map.edges(), 0u);     // ladders are not the program's edges
  Feature lower[] = {MakeFeature(4, 0), MakeFeature(5, 0)};
  EXPECT_EQ(map.CountNew(lower, 2), 0u);
  Feature higher = MakeFeature(4 + 3, 0);
  EXPECT_EQ(map.CountNew(&higher, 1), 1u);
  // The other site is untouched, and so is a plain counter beside the ladders.
  Feature other = MakeFeature(8, 0);
  EXPECT_EQ(map.CountNew(&other, 1), 1u);
  Feature plain = MakeFeature(13, 0);
  EXPECT_EQ(map.Add(&plain, 1), 1u);
  EXPECT_FALSE(map.Contains(MakeFeature(12, 0)));
  EXPECT_EQ(map.features(), 4u);
  EXPECT_EQ(map.edges(), 1u);
  map.Recount();
  EXPECT_EQ(map.edges(), 1u);
  EXPECT_EQ(map.features(), 4u);
}

TEST(CoverageMapTest, ProgramFeaturesLeaveTheLaddersOut) {
  // Counters 4..11: two ladders of 4 levels; the rest are the program's.
  CoverageMap map(16);
  Feature mixed[] = {MakeFeature(1, 0), MakeFeature(5, 0), MakeFeature(11, 0), MakeFeature(12, 3),
                     MakeFeature(15, 0)};
  EXPECT_EQ(map.CountProgramFeatures(mixed, 5), 5u);  // no ladders yet
  map.SetLadders(4, 2, 4);
  EXPECT_EQ(map.CountProgramFeatures(mixed, 5), 3u);
  EXPECT_FALSE(map.IsLadder(3));
  EXPECT_TRUE(map.IsLadder(4));
  EXPECT_TRUE(map.IsLadder(11));
  EXPECT_FALSE(map.IsLadder(12));
}

TEST(CoverageMapTest, LaddersOutOfRangeAreIgnored) {
  CoverageMap map(8);
  map.SetLadders(4, 2, 4);  // would end at 12
  Feature f = MakeFeature(6, 0);
  map.Add(&f, 1);
  EXPECT_EQ(map.features(), 1u);
}

TEST(CoverageMapTest, ViewSharesBytesAndRecounts) {
  std::vector<uint8_t> shared(16, 0);
  shared[2] = 0x81;
  CoverageMap view(shared.data(), shared.size());
  EXPECT_EQ(view.edges(), 1u);
  EXPECT_EQ(view.features(), 2u);
  Feature f = MakeFeature(5, 4);
  EXPECT_EQ(view.Add(&f, 1), 1u);
  EXPECT_EQ(shared[5], 0x10);  // written through
  shared[7] = 0x07;            // someone else writes
  EXPECT_TRUE(view.Contains(MakeFeature(7, 2)));
  EXPECT_EQ(view.features(), 3u);
  view.Recount();
  EXPECT_EQ(view.edges(), 3u);
  EXPECT_EQ(view.features(), 6u);
}

TEST(CoverageMapTest, ScanAgainstMapThenAdd) {
  CoverageMap map(64);
  uint8_t counters[64] = {};
  counters[9] = 3;
  counters[63] = 128;
  Feature out[64];
  size_t written = 0;
  bool any_new = false;
  ScanAndClearCounters(counters, 64, 0, map.data(), out, 64, &written, &any_new);
  EXPECT_TRUE(any_new);
  EXPECT_EQ(map.Add(out, written), 2u);
  counters[9] = 3;
  written = 0;
  any_new = false;
  ScanAndClearCounters(counters, 64, 0, map.data(), out, 64, &written, &any_new);
  EXPECT_FALSE(any_new);
  EXPECT_EQ(written, 1u);
}

}  // namespace
}  // namespace pollen::engine
