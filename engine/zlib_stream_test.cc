// zlib streams inside inputs (engine/zlib_stream.h), checked against zlib itself.
#include "engine/zlib_stream.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/mutator_test_util.h"
#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

Bytes Compress(const Bytes& in, int level) {
  uLongf n = compressBound(in.size());
  Bytes out(n);
  EXPECT_EQ(compress2(out.data(), &n, in.data(), in.size(), level), Z_OK);
  out.resize(n);
  return out;
}

// What zlib's own inflater makes of a stream, checksum included; false when it refuses it.
bool Uncompress(const Bytes& stream, size_t expected, Bytes* out) {
  out->assign(expected + 1, 0);
  uLongf n = out->size();
  if (uncompress(out->data(), &n, stream.data(), stream.size()) != Z_OK) return false;
  out->resize(n);
  return true;
}

TEST(ZlibStreamTest, StoredStreamsAreWhatZlibReads) {
  Rng rng = Rng::FromSeed(4);
  for (size_t n :
       {size_t{0}, size_t{1}, size_t{100}, size_t{65535}, size_t{65536}, size_t{140000}}) {
    Bytes content = RandomBytes(rng, n);
    Bytes stream(StoredZlibSize(n));
    ASSERT_EQ(WriteStoredZlib(content.data(), n, stream.data()), stream.size()) << n;
    Bytes back;
    ASSERT_TRUE(Uncompress(stream, n, &back)) << n;
    EXPECT_EQ(back, content) << n;
  }
}

TEST(ZlibStreamTest, StoredLimitIsTheLargestContentThatFits) {
  EXPECT_EQ(StoredZlibLimit(10), 0u);
  EXPECT_EQ(StoredZlibLimit(11), 0u);
  EXPECT_EQ(StoredZlibLimit(12), 1u);
  auto check = [](size_t room) {
    size_t n = StoredZlibLimit(room);
    EXPECT_LE(StoredZlibSize(n), room) << room;
    EXPECT_GT(StoredZlibSize(n + 1), room) << room;
  };
  for (size_t room = 11; room < 70000; room += 7) check(room);
  // Around two full blocks, where a third one starts (131,086 holds 131,070 content bytes).
  for (size_t room = 131080; room < 131100; room++) check(room);
  EXPECT_EQ(StoredZlibLimit(131091), 131070u);
}

// A stream inside other bytes, whole (its checksum need not match) or cut short by the limit.
TEST(ZlibStreamTest, ReadsAStreamWholeOrCut) {
  Bytes content(300);
  for (size_t i = 0; i < content.size(); i++)
    content[i] = static_cast<uint8_t>("abcab"[i % 5] + i / 60);
  for (int level : {0, 1, 9}) {
    Bytes stream = Compress(content, level);
    Bytes input(37, 'x');
    input.insert(input.end(), stream.begin(), stream.end());
    input.insert(input.end(), 20, 'y');
    if (level == 9) input[37 + stream.size() - 1] ^= 0xff;  // a wrong Adler-32
    Bytes out(1000);
    ZlibStream s;
    ASSERT_TRUE(InflateZlibAt(input.data(), 37, input.size(), out.data(), out.size(), &s)) << level;
    EXPECT_FALSE(s.cut);
    EXPECT_EQ(s.begin, 37u);
    EXPECT_EQ(s.end, 37 + stream.size());
    ASSERT_EQ(s.decoded, content.size());
    EXPECT_EQ(Bytes(out.begin(), out.begin() + s.decoded), content);
    // Cut before its last deflate bytes (a dynamic block's header takes the first tens of
    // bytes): what was decoded before the cut, and the stream runs to the limit.
    size_t limit = 37 + stream.size() - 7;
    ASSERT_TRUE(InflateZlibAt(input.data(), 37, limit, out.data(), out.size(), &s)) << level;
    EXPECT_TRUE(s.cut);
    EXPECT_EQ(s.end, limit);
    ASSERT_GT(s.decoded, 0u);
    ASSERT_LT(s.decoded, content.size());
    EXPECT_EQ(Bytes(out.begin(), out.begin() + s.decoded),
              Bytes(content.begin(), content.begin() + s.decoded));
    // Not at a header; nothing decoded before the limit.
    EXPECT_FALSE(InflateZlibAt(input.data(), 36, input.size(), out.data(), out.size(), &s));
    EXPECT_FALSE(InflateZlibAt(input.data(), 37, 39, out.data(), out.size(), &s));
  }
}

TEST(ZlibStreamTest, RefusesContentTooLargeAndStaysInItsBounds) {
  Rng rng = Rng::FromSeed(6);
  Bytes content(500, 'q');
  Bytes stream = Compress(content, 6);
  Bytes out(2000);
  ZlibStream s;
  EXPECT_FALSE(InflateZlibAt(stream.data(), 0, stream.size(), out.data(), 499, &s));
  // Random bytes: whatever is taken for a stream stays inside the limit and the room.
  Bytes noise = RandomBytes(rng, 65536);
  for (size_t i = 0; i + 2 < noise.size(); i++) {
    size_t limit = std::min(noise.size(), i + 300);
    if (!InflateZlibAt(noise.data(), i, limit, out.data(), 100, &s)) continue;
    ASSERT_EQ(s.begin, i);
    ASSERT_LE(s.end, limit);
    ASSERT_LE(s.decoded, 100u);
    ASSERT_GT(s.decoded, 0u);
  }
}

TEST(ZlibStreamTest, HeaderCheck) {
  EXPECT_TRUE(IsZlibHeader(0x78, 0x9c));
  EXPECT_TRUE(IsZlibHeader(0x78, 0x01));
  EXPECT_TRUE(IsZlibHeader(0x78, 0xda));
  EXPECT_TRUE(IsZlibHeader(0x48, 0x89));   // a 4-KB window
  EXPECT_FALSE(IsZlibHeader(0x78, 0x9d));  // check bits
  EXPECT_FALSE(IsZlibHeader(0x79, 0x9c));  // not deflate
  EXPECT_FALSE(IsZlibHeader(0x88, 0x98));  // a 64-KB window: 0x8898 is 31 * 1128
  EXPECT_FALSE(IsZlibHeader(0x78, 0xbb));  // a preset dictionary: 0x78bb is 31 * 997
}

}  // namespace
}  // namespace pollen::engine
