#include "node/length_control.h"

#include <gtest/gtest.h>

#include "engine/mutator.h"
#include "engine/rng.h"

namespace pollen::node {
namespace {

TEST(LengthControlTest, TheLimitStartsAtTheLargestEntryAndGrowsOnlyWhileNothingIsFound) {
  LengthControl c(100, 4096);
  c.Start(/*largest=*/10, /*runs=*/1000);
  EXPECT_EQ(c.Limit(1000), 10u);
  EXPECT_EQ(c.Limit(1000 + 300), 10u);  // 100 x log2(10) = 300 runs: not yet
  EXPECT_EQ(c.Limit(1000 + 301), 13u);  // then + log2(10) = 3
  c.OnNewEntry(1400);                   // a find restarts the count
  EXPECT_EQ(c.Limit(1400 + 300), 13u);
  EXPECT_EQ(c.Limit(1400 + 301), 16u);
  // Up to max_len, never beyond.
  uint64_t runs = 2000;
  size_t limit = 0;
  for (int i = 0; i < 100000 && limit < 4096; i++) limit = c.Limit(runs += 2000);
  EXPECT_EQ(limit, 4096u);
  EXPECT_EQ(c.Limit(runs + 1000000), 4096u);
}

TEST(LengthControlTest, TinyCorporaStartAtFourBytesAndZeroTurnsItOff) {
  LengthControl c(100, 4096);
  c.Start(0, 0);
  EXPECT_EQ(c.Limit(0), 4u);
  LengthControl off(0, 4096);
  off.Start(10, 0);
  EXPECT_EQ(off.Limit(0), 4096u);
  LengthControl small(100, 3);  // max_len below the floor
  small.Start(0, 0);
  EXPECT_EQ(small.Limit(0), 3u);
}

TEST(LengthControlTest, MutantsStayWithinTheLimitOrTheirEntrysLength) {
  EXPECT_EQ(engine::MutationLimit(0, 50, 4096), 4096u);
  EXPECT_EQ(engine::MutationLimit(8, 50, 4096), 50u);  // an entry longer than the limit
  EXPECT_EQ(engine::MutationLimit(64, 50, 4096), 64u);
  EXPECT_EQ(engine::MutationLimit(8192, 50, 4096), 4096u);
  engine::Mutator m(4096);
  m.set_limit(engine::MutationLimit(16, 8, 4096));
  engine::Rng rng = engine::Rng::FromSeed(7);
  std::vector<uint8_t> buf(4096, 'a');
  size_t size = 8, longest = 0;
  for (int i = 0; i < 20000; i++) {
    if (i % 5 == 0) size = 8;
    size = m.Mutate(buf.data(), size, rng, {});
    longest = std::max(longest, size);
  }
  EXPECT_EQ(longest, 16u);  // reached, and never passed
}

}  // namespace
}  // namespace pollen::node
