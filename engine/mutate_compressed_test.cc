// Mutations inside zlib streams (engine/mutate_compressed.cc).
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "engine/mutator.h"
#include "engine/mutator_test_util.h"
#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

void PutBe32(Bytes* b, uint32_t v) {
  for (int k = 3; k >= 0; k--) b->push_back(static_cast<uint8_t>(v >> (8 * k)));
}

uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

const char kText[] =
    "Title\0Software: the zTXt chunk of a PNG file holds a keyword, a NUL, a method byte and "
    "zlib data; libpng inflates it and checks the text. The same holds for iCCP and IDAT.";

// A PNG signature, a zTXt chunk of kText and an IEND chunk: what a zTXt's chunk is made of
// (the chunk's length counts its data, after the type).
Bytes PngWithText(Bytes* stream) {
  uLongf n = compressBound(sizeof(kText));
  stream->assign(n, 0);
  EXPECT_EQ(compress2(stream->data(), &n, reinterpret_cast<const Bytef*>(kText), sizeof(kText), 9),
            Z_OK);
  stream->resize(n);
  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  PutBe32(&png, static_cast<uint32_t>(5 + stream->size()));
  png.insert(png.end(), {'z', 'T', 'X', 't', 'k', 'e', 'y', 0, 0});
  png.insert(png.end(), stream->begin(), stream->end());
  PutBe32(&png, 0x12345678);  // the CRC, not checked here
  PutBe32(&png, 0);
  png.insert(png.end(), {'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82});
  return png;
}

// Every Zlib mutation of the chunk gives a chunk whose length is right, whose stream zlib
// reads whole with its checksum, and whose content is a mutation of the text.
TEST(MutateZlibTest, ChangesTheContentAndFixesTheChunkLength) {
  Bytes stream;
  const Bytes png = PngWithText(&stream);
  AllSources all;
  Mutator m(1024);
  Rng rng = Rng::FromSeed(11);
  Bytes buf(1024);
  int zlib_mutations = 0, changed = 0;
  for (int i = 0; i < 4000; i++) {
    std::copy(png.begin(), png.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), png.size(), rng, all.sources);
    if (std::string(Mutator::MutatorName(m.last_mutator())) != "Zlib") continue;
    zlib_mutations++;
    uint32_t len = Be32(buf.data() + 8);
    ASSERT_EQ(size_t{len} + 12 + 8 + 12, size) << "the chunk's length is not its data's";
    ASSERT_EQ(std::memcmp(buf.data() + 12, "zTXtkey\0\0", 9), 0);
    ASSERT_EQ(std::memcmp(buf.data() + size - 8, "IEND", 4), 0);
    Bytes out(2048);
    uLongf n = out.size();
    ASSERT_EQ(uncompress(out.data(), &n, buf.data() + 21, len - 5), Z_OK);
    changed += n != sizeof(kText) || std::memcmp(out.data(), kText, n) != 0;
  }
  EXPECT_GT(zlib_mutations, 50);
  EXPECT_GT(changed, zlib_mutations * 3 / 4);
}

// No stream: never applies. A stream whose content would not fit: never applies either, and
// nothing is written past the mutator's limit.
TEST(MutateZlibTest, AppliesOnlyToStreamsWhoseContentFits) {
  Bytes stream;
  const Bytes png = PngWithText(&stream);
  Bytes plain(png.size(), 'a');
  Mutator m(png.size() + 20);  // kText's 172 bytes stored need 183, and its stream has 20 less
  Rng rng = Rng::FromSeed(12);
  Bytes buf(png.size() + 64, 0x5a);
  for (int i = 0; i < 4000; i++) {
    const Bytes& in = i % 2 == 0 ? png : plain;
    std::copy(in.begin(), in.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), in.size(), rng, MutationSources{});
    ASSERT_LE(size, png.size() + 20);
    ASSERT_STRNE(Mutator::MutatorName(m.last_mutator()), "Zlib") << i;
    for (size_t j = png.size() + 20; j < buf.size(); j++) ASSERT_EQ(buf[j], 0x5a);
  }
}

// An iCCP chunk whose stream the chunk cuts short (libpng inflates a profile's header first,
// so such a chunk still gets that far): what was decoded before the cut comes back mutated
// as a whole stream, inside a chunk of the right length.
TEST(MutateZlibTest, TakesAStreamTheChunkCutsShort) {
  uLongf n = compressBound(sizeof(kText));
  Bytes stream(n);
  ASSERT_EQ(compress2(stream.data(), &n, reinterpret_cast<const Bytef*>(kText), sizeof(kText), 0),
            Z_OK);
  stream.resize(n / 2);  // a stored block cut in its middle
  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  PutBe32(&png, static_cast<uint32_t>(5 + stream.size()));
  png.insert(png.end(), {'i', 'C', 'C', 'P', 'i', 'c', 'c', 0, 0});
  png.insert(png.end(), stream.begin(), stream.end());
  PutBe32(&png, 0x12345678);
  PutBe32(&png, 0);
  png.insert(png.end(), {'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82});
  Mutator m(1024);
  Rng rng = Rng::FromSeed(15);
  Bytes buf(1024);
  int zlib_mutations = 0;
  for (int i = 0; i < 4000; i++) {
    std::copy(png.begin(), png.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), png.size(), rng, MutationSources{});
    if (std::string(Mutator::MutatorName(m.last_mutator())) != "Zlib") continue;
    zlib_mutations++;
    uint32_t len = Be32(buf.data() + 8);
    ASSERT_EQ(size_t{len} + 32, size);
    ASSERT_EQ(std::memcmp(buf.data() + size - 8, "IEND", 4), 0);
    Bytes out(2048);
    uLongf got = out.size();
    ASSERT_EQ(uncompress(out.data(), &got, buf.data() + 21, len - 5), Z_OK);
  }
  EXPECT_GT(zlib_mutations, 50);
}

// A stream that ends the input, after a little-endian length of the bytes that follow it.
TEST(MutateZlibTest, FixesALittleEndianLengthRightBeforeTheStream) {
  uLongf n = compressBound(sizeof(kText));
  Bytes stream(n);
  ASSERT_EQ(compress2(stream.data(), &n, reinterpret_cast<const Bytef*>(kText), sizeof(kText), 1),
            Z_OK);
  stream.resize(n);
  Bytes in = {'H', 'D', 'R', static_cast<uint8_t>(n), static_cast<uint8_t>(n >> 8), 0, 0};
  in.insert(in.end(), stream.begin(), stream.end());
  Mutator m(1024);
  Rng rng = Rng::FromSeed(13);
  Bytes buf(1024);
  int zlib_mutations = 0;
  for (int i = 0; i < 2000; i++) {
    std::copy(in.begin(), in.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), in.size(), rng, MutationSources{});
    if (std::string(Mutator::MutatorName(m.last_mutator())) != "Zlib") continue;
    zlib_mutations++;
    uint32_t len = buf[3] | (uint32_t{buf[4]} << 8) | (uint32_t{buf[5]} << 16);
    ASSERT_EQ(size_t{len} + 7, size);
    ASSERT_EQ(buf[0], 'H');
    Bytes out(1024);
    uLongf got = out.size();
    ASSERT_EQ(uncompress(out.data(), &got, buf.data() + 7, len), Z_OK);
  }
  EXPECT_GT(zlib_mutations, 20);
}

// The coordinator replays chains with its own Mutator: what an earlier stream left behind
// must not change a later result.
TEST(MutateZlibTest, ResultsDoNotDependOnEarlierMutations) {
  Bytes stream;
  ExpectResultsIndependentOfEarlierMutations(PngWithText(&stream), 1024, 14);
}

}  // namespace
}  // namespace pollen::engine
