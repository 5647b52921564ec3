#include "broker/client/bounded_hash_set.h"

#include <gtest/gtest.h>

namespace pollen::broker {
namespace {

base::Digest H(uint8_t n) {
  base::Digest h{};
  h[0] = n;
  h[19] = static_cast<uint8_t>(n * 7);
  return h;
}

TEST(BoundedHashSetTest, InsertTellsWhetherTheHashWasNew) {
  BoundedHashSet set(10);
  EXPECT_TRUE(set.Insert(H(1)));
  EXPECT_FALSE(set.Insert(H(1)));
  EXPECT_TRUE(set.Contains(H(1)));
  EXPECT_FALSE(set.Contains(H(2)));
  EXPECT_EQ(set.size(), 1u);
}

TEST(BoundedHashSetTest, EvictsTheLeastRecentlyUsedAtCapacity) {
  BoundedHashSet set(3);
  set.Insert(H(1));
  set.Insert(H(2));
  set.Insert(H(3));
  EXPECT_FALSE(set.Insert(H(1)));  // refreshed: 2 is now the oldest
  EXPECT_TRUE(set.Insert(H(4)));
  EXPECT_EQ(set.size(), 3u);
  EXPECT_FALSE(set.Contains(H(2)));
  EXPECT_TRUE(set.Contains(H(1)));
  EXPECT_TRUE(set.Contains(H(3)));
  EXPECT_TRUE(set.Contains(H(4)));
}

TEST(BoundedHashSetTest, EraseRemovesOneHashAndFreesItsPlace) {
  BoundedHashSet set(2);
  set.Insert(H(1));
  set.Insert(H(2));
  set.Erase(H(1));
  set.Erase(H(9));  // absent: nothing happens
  EXPECT_FALSE(set.Contains(H(1)));
  EXPECT_EQ(set.size(), 1u);
  EXPECT_TRUE(set.Insert(H(3)));  // no eviction needed
  EXPECT_TRUE(set.Contains(H(2)));
  EXPECT_TRUE(set.Insert(H(1)));
  EXPECT_FALSE(set.Contains(H(2)));  // the oldest left
}

TEST(BoundedHashSetTest, SizeNeverExceedsCapacity) {
  BoundedHashSet set(100);
  for (int i = 0; i < 1000; i++) {
    base::Digest h{};
    h[0] = static_cast<uint8_t>(i);
    h[1] = static_cast<uint8_t>(i >> 8);
    set.Insert(h);
    ASSERT_LE(set.size(), 100u);
  }
}

}  // namespace
}  // namespace pollen::broker
