#include "net/feature_codec.h"

#include <gtest/gtest.h>

#include <random>

namespace pollen::net {
namespace {

TEST(FeatureCodecTest, RoundTripsSortedAndDeduplicated) {
  std::vector<uint32_t> decoded;
  std::vector<uint8_t> bytes = EncodeFeatures({70, 0, 3, 3, 1000000, UINT32_MAX});
  ASSERT_TRUE(DecodeFeatures(bytes.data(), bytes.size(), 100, &decoded));
  EXPECT_EQ(decoded, (std::vector<uint32_t>{0, 3, 70, 1000000, UINT32_MAX}));
}

TEST(FeatureCodecTest, CloseFeaturesTakeOneByteEach) {
  std::vector<uint32_t> features;
  for (uint32_t i = 0; i < 100; i++) features.push_back(5000 + i * 8);
  std::vector<uint8_t> bytes = EncodeFeatures(features);
  EXPECT_EQ(bytes.size(), 2u + 99u);  // 5000 takes two bytes, each difference of 8 one
}

TEST(FeatureCodecTest, EmptyListIsEmptyBytes) {
  std::vector<uint32_t> decoded{1, 2};
  EXPECT_TRUE(EncodeFeatures({}).empty());
  EXPECT_TRUE(DecodeFeatures(nullptr, 0, 10, &decoded));
  EXPECT_TRUE(decoded.empty());
}

TEST(FeatureCodecTest, RejectsInvalidEncodings) {
  auto valid = [](std::vector<uint8_t> b, size_t max = 100) {
    return DecodeFeatures(b.data(), b.size(), max, nullptr);
  };
  EXPECT_FALSE(valid({0x80}));                                // truncated varint
  EXPECT_FALSE(valid({0x81, 0x80, 0x80, 0x80, 0x80, 0x01}));  // six bytes: over-long
  EXPECT_FALSE(valid({0xff, 0xff, 0xff, 0xff, 0x1f}));        // 2^35-1: beyond 32 bits
  EXPECT_FALSE(valid({0xff, 0xff, 0xff, 0xff, 0x0f, 0x01}));  // UINT32_MAX then more: overflow
  EXPECT_FALSE(valid({5, 0}));                                // zero difference: not ascending
  EXPECT_FALSE(valid({1, 1, 1}, 2));                          // more than max_count
  EXPECT_TRUE(valid({1, 1, 1}, 3));
  EXPECT_TRUE(valid({0xff, 0xff, 0xff, 0xff, 0x0f}));  // UINT32_MAX itself
}

TEST(FeatureCodecTest, RandomListsRoundTripAndRandomBytesNeverCrash) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; round++) {
    std::vector<uint32_t> features(rng() % 300);
    for (auto& f : features) f = rng() % (round % 2 ? 1u << 20 : UINT32_MAX);
    std::vector<uint8_t> bytes = EncodeFeatures(features);
    std::vector<uint32_t> decoded;
    ASSERT_TRUE(DecodeFeatures(bytes.data(), bytes.size(), 1000, &decoded));
    std::sort(features.begin(), features.end());
    features.erase(std::unique(features.begin(), features.end()), features.end());
    EXPECT_EQ(decoded, features);

    std::vector<uint8_t> junk(rng() % 64);
    for (auto& b : junk) b = static_cast<uint8_t>(rng());
    DecodeFeatures(junk.data(), junk.size(), 16, &decoded);
    EXPECT_LE(decoded.size(), 16u);
  }
}

}  // namespace
}  // namespace pollen::net
