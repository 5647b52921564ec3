#include "engine/colorize.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/int_field.h"

namespace pollen::engine {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

TEST(ColorizeTest, RandomizesEveryByteThePathDoesNotDependOn) {
  std::vector<uint8_t> in = Bytes("abcXefghijklmnop");
  Rng rng = Rng::FromSeed(7);
  size_t runs = 0;
  auto same_path = [](const uint8_t* d, size_t n) { return n == 16 && d[3] == 'X'; };
  std::vector<uint8_t> out = Colorize(in.data(), in.size(), rng, 100, same_path, &runs);
  ASSERT_EQ(out.size(), in.size());
  EXPECT_EQ(out[3], 'X');
  for (size_t i = 0; i < in.size(); i++) {
    if (i != 3) EXPECT_NE(out[i], in[i]) << i;
  }
  EXPECT_LE(runs, 100u);
  EXPECT_GT(runs, 1u);
}

TEST(ColorizeTest, StopsAtTheBudget) {
  std::vector<uint8_t> in(64, 'a');
  Rng rng = Rng::FromSeed(1);
  size_t runs = 0;
  int calls = 0;
  auto never = [&](const uint8_t*, size_t) {
    calls++;
    return false;
  };
  std::vector<uint8_t> out = Colorize(in.data(), in.size(), rng, 10, never, &runs);
  EXPECT_EQ(runs, 10u);
  EXPECT_EQ(calls, 10);
  EXPECT_EQ(out, in);  // nothing kept the path
}

TEST(ColorizeTest, CandidatesGoWhereTheMovedOperandCameFrom) {
  // The input "key=abcd;" is compared: byte 4 ('a') with 'z' as a 4-byte int (a parser's
  // rune), and the 4-byte little-endian field at 4 with 0x01020304.
  std::vector<uint8_t> in = Bytes("key=abcd;a");
  std::vector<uint8_t> colored = Bytes("k\x91y=\x17\x22\x33\x44;a");
  auto original = std::make_unique<CmpSequence>();
  auto moved = std::make_unique<CmpSequence>();
  original->Add(0x10, 'a', 'z', 4);
  moved->Add(0x10, 0x17, 'z', 4);
  original->Add(0x20, LoadField(in.data() + 4, 4, false), 0x01020304, 4);
  moved->Add(0x20, LoadField(colored.data() + 4, 4, false), 0x01020304, 4);
  original->Add(0x30, 'k', 'q', 1);  // 'k' did not move: not from the colored bytes
  moved->Add(0x30, 'k', 'q', 1);
  std::vector<ColorCandidate> c =
      ColorCandidates(*original, *moved, in.data(), colored.data(), in.size(), 100);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].pos, 4u);  // the 'a' at 4, not the one at 9 (its colored byte did not move)
  EXPECT_EQ(c[0].width, 1u);
  EXPECT_EQ(c[0].bytes[0], 'z');
  EXPECT_EQ(c[1].pos, 4u);
  EXPECT_EQ(c[1].width, 4u);
  EXPECT_EQ(LoadField(c[1].bytes, 4, false), 0x01020304u);
}

TEST(ColorizeTest, SequencesThatPartStopTheAlignment) {
  std::vector<uint8_t> in = Bytes("ab");
  std::vector<uint8_t> colored = Bytes("\x05\x06");
  auto original = std::make_unique<CmpSequence>();
  auto moved = std::make_unique<CmpSequence>();
  original->Add(0x10, 'a', 'x', 1);
  moved->Add(0x11, 0x05, 'x', 1);  // another site: the paths differ from here on
  original->Add(0x20, 'b', 'y', 1);
  moved->Add(0x20, 0x06, 'y', 1);
  EXPECT_TRUE(ColorCandidates(*original, *moved, in.data(), colored.data(), 2, 100).empty());
}

}  // namespace
}  // namespace pollen::engine
