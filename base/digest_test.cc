#include "base/digest.h"

#include <gtest/gtest.h>

#include <unordered_set>

namespace pollen::base {
namespace {

TEST(DigestTest, HexRoundTripsInLowercase) {
  Digest d;
  for (size_t i = 0; i < d.size(); i++) d[i] = static_cast<uint8_t>(i * 13 + 0xA0);
  const std::string hex = DigestHex(d);
  EXPECT_EQ(hex, "a0adbac7d4e1eefb0815222f3c495663707d8a97");
  ASSERT_TRUE(ParseDigestHex(hex).has_value());
  EXPECT_EQ(*ParseDigestHex(hex), d);
}

TEST(DigestTest, ParsesEitherCase) {
  const std::optional<Digest> d = ParseDigestHex("A0ADBAC7D4E1EEFB0815222F3C495663707D8A97");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(DigestHex(*d), "a0adbac7d4e1eefb0815222f3c495663707d8a97");
}

TEST(DigestTest, RejectsWrongLengthsAndNonHex) {
  EXPECT_FALSE(ParseDigestHex("").has_value());
  EXPECT_FALSE(ParseDigestHex("a0adbac7d4e1eefb0815222f3c495663707d8a9").has_value());
  EXPECT_FALSE(ParseDigestHex("a0adbac7d4e1eefb0815222f3c495663707d8a977").has_value());
  EXPECT_FALSE(ParseDigestHex("g0adbac7d4e1eefb0815222f3c495663707d8a97").has_value());
  EXPECT_FALSE(ParseDigestHex("a0adbac7d4e1eefb0815222f3c495663707d8a9 ").has_value());
}

TEST(DigestTest, HasherUsesTheFirstEightBytes) {
  Digest a{}, b{};
  a[0] = 1;
  b[0] = 2;
  EXPECT_NE(DigestHasher()(a), DigestHasher()(b));
  Digest c = a;
  c[19] = 0xFF;  // past the first eight bytes
  EXPECT_EQ(DigestHasher()(a), DigestHasher()(c));
  std::unordered_set<Digest, DigestHasher> set{a, b, c};
  EXPECT_EQ(set.size(), 3u);
}

}  // namespace
}  // namespace pollen::base
