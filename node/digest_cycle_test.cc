#include "node/digest_cycle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pollen::node {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

base::Digest H(uint8_t first) {
  base::Digest h{};
  h[0] = first;
  return h;
}

TEST(DigestCycleTest, PagesCycleInAscendingOrderWithoutWrappingWithinAPage) {
  DigestCycle cycle(2);
  EXPECT_THAT(cycle.NextPage().hashes, IsEmpty());
  for (uint8_t b : {5, 1, 3, 3}) cycle.Add(H(b));
  EXPECT_EQ(cycle.size(), 3u);

  broker::CorpusDigest first = cycle.NextPage();
  EXPECT_THAT(first.hashes, ElementsAre(H(1), H(3)));
  EXPECT_EQ(first.first_index, 0u);
  EXPECT_EQ(first.corpus_size, 3u);
  broker::CorpusDigest second = cycle.NextPage();
  EXPECT_THAT(second.hashes, ElementsAre(H(5)));  // the end of the cycle: a short page
  EXPECT_EQ(second.first_index, 2u);
  // A hash added behind the cursor waits for the next cycle, which starts over.
  cycle.Add(H(2));
  EXPECT_THAT(cycle.NextPage().hashes, ElementsAre(H(1), H(2)));
  EXPECT_THAT(cycle.NextPage().hashes, ElementsAre(H(3), H(5)));
}

}  // namespace
}  // namespace pollen::node
