#include "node/found_inputs.h"

#include <gtest/gtest.h>

#include <set>

namespace pollen::node {
namespace {

std::vector<uint8_t> Bytes(size_t n, uint8_t fill) { return std::vector<uint8_t>(n, fill); }

TEST(FoundInputsTest, DropsTheOldestBeyondTheCount) {
  FoundInputs found(3, 1000);
  for (uint8_t i = 1; i <= 5; i++) found.Add(Bytes(10, i));
  EXPECT_EQ(found.size(), 3u);
  EXPECT_EQ(found.bytes(), 30u);
  std::set<uint8_t> seen;
  engine::Rng rng = engine::Rng::FromSeed(7);
  for (int i = 0; i < 200; i++) seen.insert(found.Pick(rng)[0]);
  EXPECT_EQ(seen, (std::set<uint8_t>{3, 4, 5}));  // 1 and 2 went first
}

TEST(FoundInputsTest, DropsTheOldestBeyondTheBytes) {
  FoundInputs found(100, 25);
  found.Add(Bytes(10, 1));
  found.Add(Bytes(10, 2));
  found.Add(Bytes(10, 3));  // 30 bytes > 25: the first goes
  EXPECT_EQ(found.size(), 2u);
  EXPECT_EQ(found.bytes(), 20u);
  found.Add(Bytes(25, 4));  // fills the pool alone
  EXPECT_EQ(found.size(), 1u);
  engine::Rng rng = engine::Rng::FromSeed(1);
  EXPECT_EQ(found.Pick(rng), Bytes(25, 4));
}

TEST(FoundInputsTest, KeepsNeitherEmptyNorOversizedInputs) {
  FoundInputs found(100, 25);
  found.Add({});
  found.Add(Bytes(26, 1));
  EXPECT_TRUE(found.empty());
  EXPECT_EQ(found.bytes(), 0u);
  FoundInputs none(0, 25);
  none.Add(Bytes(3, 1));
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace pollen::node
