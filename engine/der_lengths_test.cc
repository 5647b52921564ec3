// The DER walker and length fixer (engine/der_lengths.h).
#include "engine/der_lengths.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

using Bytes = std::vector<uint8_t>;

// SEQUENCE { SEQUENCE { INTEGER 5 }, OCTET STRING { SEQUENCE { BOOLEAN true } } }
const Bytes kNested = {0x30, 0x0c, 0x30, 0x03, 0x02, 0x01, 0x05,
                       0x04, 0x05, 0x30, 0x03, 0x01, 0x01, 0xff};

TEST(DerElementsTest, WalksConstructedElementsAndStringsThatHoldDer) {
  DerElements der;
  der.Parse(kNested.data(), kNested.size());
  ASSERT_EQ(der.count(), 6u);
  EXPECT_EQ(der.element(0).value, 2u);
  EXPECT_EQ(der.element(0).end, 14u);
  EXPECT_EQ(der.element(2).tag_at, 4u);  // the INTEGER
  EXPECT_EQ(der.element(2).length_at, 5u);
  EXPECT_EQ(der.element(5).value, 13u);  // the BOOLEAN inside the OCTET STRING
}

TEST(DerElementsTest, AStringThatIsNotDerIsNotWalked) {
  const Bytes in = {0x30, 0x06, 0x04, 0x04, 0x30, 0x09, 0x41, 0x42};
  DerElements der;
  der.Parse(in.data(), in.size());
  EXPECT_EQ(der.count(), 2u);
}

TEST(DerElementsTest, TextGivesNoElements) {
  const Bytes in = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
  DerElements der;
  der.Parse(in.data(), in.size());
  EXPECT_EQ(der.count(), 0u);
}

// A byte inserted into the INTEGER grows it and the two sequences around it, not the
// OCTET STRING after it.
TEST(DerElementsTest, FixGrowsEveryEnclosingLength) {
  DerElements der;
  der.Parse(kNested.data(), kNested.size());
  Bytes grown = kNested;
  grown.insert(grown.begin() + 6, 0x00);
  EXPECT_EQ(der.Fix(grown.data(), 6, 1, true), 3u);
  EXPECT_EQ(grown[1], 0x0d);
  EXPECT_EQ(grown[3], 0x04);
  EXPECT_EQ(grown[5], 0x02);
  EXPECT_EQ(grown[9], 0x05);  // the OCTET STRING's, unchanged
  DerElements again;
  again.Parse(grown.data(), grown.size());
  EXPECT_EQ(again.count(), 6u);
  EXPECT_EQ(again.element(0).end, grown.size());
}

// Bytes put at the INTEGER's end: appended to it (and to the SEQUENCE that ends there), or
// put before the OCTET STRING that follows, inside the outer SEQUENCE only.
TEST(DerElementsTest, BytesAtAnElementsEndAreInsideItOnlyWhenAsked) {
  DerElements der;
  der.Parse(kNested.data(), kNested.size());
  Bytes appended = kNested;
  appended.insert(appended.begin() + 7, 0x00);
  EXPECT_EQ(der.Fix(appended.data(), 7, 1, true), 3u);
  EXPECT_EQ(appended[5], 0x02);
  Bytes before_next = kNested;
  before_next.insert(before_next.begin() + 7, {0x05, 0x00});  // a NULL element
  EXPECT_EQ(der.Fix(before_next.data(), 7, 2, false), 1u);
  EXPECT_EQ(before_next[1], 0x0e);
  EXPECT_EQ(before_next[3], 0x03);
  DerElements again;
  again.Parse(before_next.data(), before_next.size());
  EXPECT_EQ(again.count(), 7u);
}

TEST(DerElementsTest, FixShrinksOnlyWhatHoldsTheWholeRemovedRange) {
  DerElements der;
  der.Parse(kNested.data(), kNested.size());
  Bytes shrunk = kNested;
  shrunk.erase(shrunk.begin() + 11, shrunk.begin() + 14);  // the BOOLEAN, whole
  EXPECT_EQ(der.Fix(shrunk.data(), 11, -3, true), 3u);     // outer SEQUENCE, OCTET STRING, inner
  EXPECT_EQ(shrunk[1], 0x09);
  EXPECT_EQ(shrunk[8], 0x02);
  EXPECT_EQ(shrunk[10], 0x00);
}

TEST(DerElementsTest, LongFormKeepsItsWidthAndShortFormDoesNotOverflow) {
  Bytes in = {0x30, 0x81, 0x7f};
  in.push_back(0x04);
  in.push_back(0x7d);
  in.resize(3 + 0x7f, 0xff);  // not DER: no element inside the string
  DerElements der;
  der.Parse(in.data(), in.size());
  ASSERT_EQ(der.count(), 2u);
  Bytes grown = in;
  grown.insert(grown.begin() + 10, 0x22);
  EXPECT_EQ(der.Fix(grown.data(), 10, 1, true), 2u);
  EXPECT_EQ(grown[2], 0x80);
  EXPECT_EQ(grown[4], 0x7e);
  Bytes more = grown;
  more.insert(more.begin() + 10, 0x33);
  DerElements der2;
  der2.Parse(grown.data(), grown.size());
  EXPECT_EQ(der2.Fix(more.data(), 10, 1, true), 2u);
  EXPECT_EQ(more[4], 0x7f);
  Bytes past = more;
  past.insert(past.begin() + 10, 0x44);
  DerElements der3;
  der3.Parse(more.data(), more.size());
  EXPECT_EQ(der3.Fix(past.data(), 10, 1, true), 1u);  // 0x80 needs the long form: left alone
  EXPECT_EQ(past[4], 0x7f);
  EXPECT_EQ(past[2], 0x82);
}

TEST(DerElementsTest, TruncatedDataStopsTheWalk) {
  const Bytes in = {0x30, 0x84, 0xff, 0xff, 0xff, 0xff, 0x02};
  DerElements der;
  der.Parse(in.data(), in.size());
  EXPECT_EQ(der.count(), 0u);
}

}  // namespace
}  // namespace pollen::engine
