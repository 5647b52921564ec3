#include "base/sha1.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/sha1_blocks.h"

namespace pollen::base {
namespace {

std::string Hex(std::string_view s) {
  return Sha1Hex(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// Test vectors from FIPS 180-2 Appendix A / NIST's SHA examples.
TEST(Sha1Test, Abc) { EXPECT_EQ(Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d"); }

TEST(Sha1Test, Empty) {
  EXPECT_EQ(Sha1Hex(nullptr, 0), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

TEST(Sha1Test, TwoBlockMessage448Bits) {
  EXPECT_EQ(Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

TEST(Sha1Test, OneMillionA) {
  std::string a(1000000, 'a');
  EXPECT_EQ(Hex(a), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(Sha1Test, PaddingBoundaries) {
  // Lengths around the 55/56/64-byte padding edges, checked against known digests.
  EXPECT_EQ(Hex(std::string(55, 'a')), "c1c8bbdc22796e28c0e15163d20899b65621d65a");
  EXPECT_EQ(Hex(std::string(56, 'a')), "c2db330f6083854c99d4b5bfb6e8f29f201be699");
  EXPECT_EQ(Hex(std::string(64, 'a')), "0098ba824b5c16427bd7a1122a5a442a25ec644d");
}

TEST(Sha1Test, RawDigestMatchesHex) {
  std::array<uint8_t, 20> d = Sha1(reinterpret_cast<const uint8_t*>("abc"), 3);
  EXPECT_EQ(d[0], 0xa9);
  EXPECT_EQ(d[19], 0x9d);
}

// The SHA extensions and the portable code give the same state for 1 to 40 random blocks
// from many starting states (the digests above cover whichever one Sha1 picked).
TEST(Sha1BlocksTest, ExtensionsMatchPortable) {
  if (!Sha1ExtensionsAvailable()) GTEST_SKIP() << "this CPU has no SHA extensions";
  std::mt19937 rng(7);
  std::vector<uint8_t> data(64 * 40);
  for (int trial = 0; trial < 200; trial++) {
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    uint32_t portable[5], extensions[5];
    for (auto& w : portable) w = rng();
    std::memcpy(extensions, portable, sizeof(portable));
    const size_t blocks = 1 + trial % 40;
    Sha1BlocksPortable(portable, data.data(), blocks);
    Sha1BlocksShaNi(extensions, data.data(), blocks);
    for (int i = 0; i < 5; i++) ASSERT_EQ(extensions[i], portable[i]) << "trial " << trial;
  }
}

}  // namespace
}  // namespace pollen::base
