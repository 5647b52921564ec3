// The deflate decoder (engine/inflate.h), checked against what zlib writes and computes.
#include "engine/inflate.h"

#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/mutator_test_util.h"
#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

// Raw deflate data (no zlib header) of `in`, as zlib writes it at `level` with `strategy`.
Bytes Deflate(const Bytes& in, int level, int strategy) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, -MAX_WBITS, 8, strategy), Z_OK);
  Bytes out(deflateBound(&z, in.size()) + 16);
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Text with repeats near and far (long matches, distances past 4 KB) and some noise.
Bytes Content(Rng& rng, size_t n) {
  static const char* const kWords[] = {"deflate ", "inflate ", "stored ", "Huffman ", "\n", "0x"};
  Bytes b;
  while (b.size() < n) {
    uint32_t r = rng.Below(10);
    if (r < 6) {
      const char* w = kWords[rng.Below(6)];
      b.insert(b.end(), w, w + std::string(w).size());
    } else if (r < 8 && b.size() > 300) {
      size_t from = rng.BelowSize(b.size() - 258);
      size_t len = 3 + rng.BelowSize(255);
      for (size_t k = 0; k < len; k++) b.push_back(b[from + k]);
    } else {
      b.push_back(static_cast<uint8_t>(rng.Next()));
    }
  }
  b.resize(n);
  return b;
}

TEST(InflateTest, ReadsWhatZlibWrites) {
  Rng rng = Rng::FromSeed(1);
  for (size_t n : {size_t{0}, size_t{1}, size_t{200}, size_t{5000}, size_t{70000}}) {
    Bytes content = Content(rng, n);
    for (int level : {0, 1, 6, 9}) {
      for (int strategy : {Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE}) {
        Bytes raw = Deflate(content, level, strategy);
        raw.push_back(0xee);  // what follows the data is not read
        Bytes out(n + 10);
        Inflated r;
        ASSERT_TRUE(InflateRaw(raw.data(), raw.size(), out.data(), out.size(), &r))
            << n << " " << level << " " << strategy;
        EXPECT_EQ(r.used, raw.size() - 1) << n << " " << level << " " << strategy;
        ASSERT_EQ(r.written, n);
        EXPECT_TRUE(std::equal(content.begin(), content.end(), out.begin()))
            << n << " " << level << " " << strategy;
      }
    }
  }
}

TEST(InflateTest, RefusesOutputBeyondItsRoomAndDataCutShort) {
  Rng rng = Rng::FromSeed(2);
  Bytes content = Content(rng, 3000);
  for (int level : {0, 6}) {
    Bytes raw = Deflate(content, level, Z_DEFAULT_STRATEGY);
    Bytes out(content.size());
    Inflated r;
    EXPECT_FALSE(InflateRaw(raw.data(), raw.size(), out.data(), content.size() - 1, &r));
    for (size_t cut = 0; cut < raw.size(); cut += 1 + cut / 16) {
      EXPECT_FALSE(InflateRaw(raw.data(), cut, out.data(), out.size(), &r)) << level << " " << cut;
    }
  }
}

// Changed bytes: the decoder either refuses them or writes within its room; whatever it
// accepts, zlib agrees on where the data ends and what it decodes to.
TEST(InflateTest, ChangedDataIsRefusedOrReadAsZlibReadsIt) {
  Rng rng = Rng::FromSeed(3);
  Bytes content = Content(rng, 2000);
  Bytes good = Deflate(content, 9, Z_DEFAULT_STRATEGY);
  int accepted = 0;
  for (int i = 0; i < 3000; i++) {
    Bytes raw = good;
    for (uint32_t k = rng.Below(3) + 1; k > 0; k--)
      raw[rng.BelowSize(raw.size())] ^= 1 << rng.Below(8);
    Bytes out(4096, 0), zout(4096, 0);
    Inflated r;
    bool ok = InflateRaw(raw.data(), raw.size(), out.data(), out.size(), &r);
    z_stream z{};
    ASSERT_EQ(inflateInit2(&z, -MAX_WBITS), Z_OK);
    z.next_in = raw.data();
    z.avail_in = static_cast<uInt>(raw.size());
    z.next_out = zout.data();
    z.avail_out = static_cast<uInt>(zout.size());
    bool zok = inflate(&z, Z_FINISH) == Z_STREAM_END;
    size_t zin = z.total_in, zn = z.total_out;
    inflateEnd(&z);
    // zlib refuses some distances too far back that this decoder's flat output also
    // refuses, and both refuse codes they lack; a stream one accepts the other must too.
    ASSERT_EQ(ok, zok) << i;
    if (!ok) continue;
    accepted++;
    EXPECT_EQ(r.used, zin);
    ASSERT_EQ(r.written, zn);
    EXPECT_TRUE(std::equal(out.begin(), out.begin() + zn, zout.begin()));
  }
  EXPECT_GT(accepted, 0);
}

TEST(InflateTest, Adler32IsZlibs) {
  Rng rng = Rng::FromSeed(4);
  for (size_t n : {size_t{0}, size_t{1}, size_t{5552}, size_t{5553}, size_t{100000}}) {
    Bytes ones(n, 0xff);
    Bytes noise = RandomBytes(rng, n);
    for (const Bytes* b : {&ones, &noise}) {
      uLong want = adler32(adler32(0, Z_NULL, 0), b->data(), static_cast<uInt>(n));
      EXPECT_EQ(Adler32(1, b->data(), n), want) << n;
    }
  }
  // Continued over two parts as over one.
  Bytes b = RandomBytes(rng, 9000);
  EXPECT_EQ(Adler32(Adler32(1, b.data(), 4000), b.data() + 4000, 5000), Adler32(1, b.data(), 9000));
}

}  // namespace
}  // namespace pollen::engine
