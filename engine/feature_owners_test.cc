#include "engine/feature_owners.h"

#include <gtest/gtest.h>

#include <vector>

namespace pollen::engine {
namespace {

using Features = std::vector<Feature>;

TEST(FeatureOwnersTest, FirstHolderOwnsUntilASmallerOneComes) {
  FeatureOwners o;
  o.Add(0, 100, Features{1, 2, 3});
  o.Add(1, 100, Features{2, 3, 4});  // same size: entry 0 keeps 2 and 3
  EXPECT_EQ(o.Owned(0, Features{1, 2, 3}), (Features{1, 2, 3}));
  EXPECT_EQ(o.Owned(1, Features{2, 3, 4}), (Features{4}));
  o.Add(2, 10, Features{3});
  EXPECT_EQ(o.Owned(0, Features{1, 2, 3}), (Features{1, 2}));
  uint32_t owner = 99;
  ASSERT_TRUE(o.OwnerOf(3, &owner));
  EXPECT_EQ(owner, 2u);
  EXPECT_FALSE(o.OwnerOf(5, &owner));
  EXPECT_EQ(o.size(), 4u);
}

TEST(FeatureOwnersTest, ReplaceKeepsOwnedFeaturesAndTakesWhatItNowUndercuts) {
  FeatureOwners o;
  o.Add(0, 50, Features{1, 2});
  o.Add(1, 100, Features{2, 3, 7});  // owns 3 and 7
  // Entry 1 shrinks to 20 bytes with 2, 3 and 7: it now owns 2 as well (20 < 50).
  ASSERT_TRUE(o.Replace(1, 20, Features{2, 3, 7}, Features{2, 3, 7}));
  EXPECT_EQ(o.Owned(1, Features{2, 3, 7}), (Features{2, 3, 7}));
  EXPECT_EQ(o.Owned(0, Features{1, 2}), (Features{1}));
}

TEST(FeatureOwnersTest, ReplaceMayDropFeaturesOthersOwnButNotItsOwn) {
  FeatureOwners o;
  o.Add(0, 10, Features{1, 2});
  o.Add(1, 100, Features{1, 2, 9});  // owns 9 only
  ASSERT_TRUE(o.Replace(1, 30, Features{9}, Features{1, 2, 9}));
  EXPECT_EQ(o.Owned(1, Features{9}), (Features{9}));
  EXPECT_EQ(o.Owned(0, Features{1, 2}), (Features{1, 2}));
  // Losing 9 would leave the corpus without it: refused, nothing changes.
  EXPECT_FALSE(o.Replace(1, 5, Features{1, 2}, Features{9}));
  uint32_t owner = 99;
  ASSERT_TRUE(o.OwnerOf(1, &owner));
  EXPECT_EQ(owner, 0u);
  ASSERT_TRUE(o.OwnerOf(9, &owner));
  EXPECT_EQ(owner, 1u);
}

TEST(FeatureOwnersTest, AnEntryThatGrowsKeepsWhatItOwns) {
  // Replace records the new size even when larger (the caller only shrinks, but the
  // bookkeeping must stay consistent): a later smaller holder then takes over.
  FeatureOwners o;
  o.Add(0, 10, Features{4});
  ASSERT_TRUE(o.Replace(0, 40, Features{4}, Features{4}));
  o.Add(1, 20, Features{4});
  uint32_t owner = 99;
  ASSERT_TRUE(o.OwnerOf(4, &owner));
  EXPECT_EQ(owner, 1u);
}

}  // namespace
}  // namespace pollen::engine
