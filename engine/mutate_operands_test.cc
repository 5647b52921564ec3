// The input-to-state mutators (engine/mutate_operands.cc).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/mutator.h"
#include "engine/mutator_test_util.h"
#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

TEST(MutatorTest, InputToStateSolvesLittleEndianInt) {
  CmpTable cmp;
  cmp.Clear();
  cmp.AddInt(0x11223344, 0xdeadbeef, 4);
  MutationSources sources;
  sources.cmp = &cmp;
  Bytes got = FirstResultContaining(InputWith({0x44, 0x33, 0x22, 0x11}), {0xef, 0xbe, 0xad, 0xde},
                                    sources, 3, 2000);
  // Written where the operand was, not inserted at random.
  EXPECT_EQ(got, InputWith({0xef, 0xbe, 0xad, 0xde}));
}

TEST(MutatorTest, InputToStateWritesAOneByteConstantWhereTheComparedByteIs) {
  // re2's `t[0] == 'P'` after "(?": the site's pair survives any number of wider
  // comparisons, and the constant goes where the compared byte sits.
  CmpTable cmp;
  cmp.Clear();
  cmp.AddConstByte(0x4000a1, 'x', 'P');
  for (uint64_t i = 0; i < 10000; i++) cmp.AddInt(i, i * 7 + 1, 4);
  ASSERT_EQ(cmp.used_bytes, 1u);
  MutationSources sources;
  sources.cmp = &cmp;
  Bytes got = FirstResultContaining(InputWith({'(', '?', 'x'}), {'(', '?', 'P'}, sources, 11, 4000);
  EXPECT_EQ(got, InputWith({'(', '?', 'P'}));
}

// libpng's `png_get_uint_32(profile + 36) != 0x61637370` ('acsp'), checked before the
// thousands of comparisons the image rows make: in the value-hashed window those evict it,
// in the section by site it stays, and input-to-state writes the signature where the field
// sits (big endian).
TEST(MutatorTest, InputToStateKeepsAnEarlyComparisonThatLaterOnesWouldEvict) {
  const Bytes field = {0x08, 0x1a, 0x0a, 0x00};
  const Bytes acsp = {'a', 'c', 's', 'p'};
  CmpTable by_site;
  by_site.Clear();
  by_site.AddSiteInt(0x4000a1, 0x61637370, 0x081a0a00, 4);
  for (uint64_t i = 0; i < 10000; i++) by_site.AddSiteInt(0x4000f3, i, i * 7 + 1, 4);
  EXPECT_EQ(by_site.used_site_ints, 2u);
  MutationSources sources;
  sources.cmp = &by_site;
  EXPECT_EQ(FirstResultContaining(InputWith(field), acsp, sources, 5, 4000), InputWith(acsp));

  by_site.ClearSites();  // before the next entry's run: its sites only
  EXPECT_EQ(by_site.used_site_ints, 0u);
  EXPECT_GT(by_site.used_ints, 0u);  // the window keeps what it had

  CmpTable window;  // the same comparisons, without their sites
  window.Clear();
  window.AddInt(0x61637370, 0x081a0a00, 4);
  for (uint64_t i = 0; i < 10000; i++) window.AddInt(i, i * 7 + 1, 4);
  sources.cmp = &window;
  EXPECT_TRUE(FirstResultContaining(InputWith(field), acsp, sources, 5, 4000).empty());
}

TEST(MutatorTest, OneByteConstantsKeepOneSlotPerSite) {
  CmpTable cmp;
  cmp.Clear();
  cmp.AddConstByte(0x4000a1, 'x', 'P');
  cmp.AddConstByte(0x4000a1, 'y', 'P');  // the same site again: its slot, its last pair
  cmp.AddConstByte(0x4000b7, 'y', '<');
  cmp.AddConstByte(0x4000c3, '<', '<');  // equal: nothing to learn
  EXPECT_EQ(cmp.used_bytes, 2u);
  int with_p = 0;
  for (const CmpTable::BytePair& p : cmp.bytes) {
    if (p.used != 0 && p.constant == 'P') {
      with_p++;
      EXPECT_EQ(p.input, 'y');
    }
  }
  EXPECT_EQ(with_p, 1);
}

// A search loop (`std::find(t, end, '>')`) compares each byte it passes with the byte it
// seeks, two variables: the site's last pair goes to the per-site section, and the byte
// sought, which the input lacks, is inserted whole, the rest of the input kept.
TEST(MutatorTest, InputToStateInsertsTheByteASearchLookedFor) {
  CmpTable cmp;
  cmp.Clear();
  cmp.AddSiteByte(0x4000a1, 'z', '>');
  for (uint64_t i = 0; i < 10000; i++) cmp.AddInt(i, i * 7 + 1, 4);
  ASSERT_EQ(cmp.used_bytes, 1u);
  MutationSources sources;
  sources.cmp = &cmp;
  const Bytes input = InputWith({'(', '?', 'P', '<', 'n'});
  Mutator m(256);
  Rng rng = Rng::FromSeed(17);
  Bytes buf(256);
  int inserted = 0;
  for (int i = 0; i < 4000; i++) {
    std::copy(input.begin(), input.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), input.size(), rng, sources);
    if (size != input.size() + 1) continue;
    auto gt = std::find(buf.begin(), buf.begin() + size, '>');
    if (gt == buf.begin() + size) continue;
    Bytes without(buf.begin(), buf.begin() + size);
    without.erase(without.begin() + (gt - buf.begin()));
    if (without == input) inserted++;
  }
  // 64 of input-to-state's 160 picks go to the per-site section, half of those insert the
  // sought byte (either operand: '>' or 'z'): dozens in 4,000 mutations.
  EXPECT_GE(inserted, 10);
}

TEST(MutatorTest, OneByteSitesKeepWhetherTheirOperandsWereVariables) {
  CmpTable cmp;
  cmp.Clear();
  cmp.AddSiteByte(0x4000a1, 'x', '>');
  cmp.AddSiteByte(0x4000b7, '>', '>');  // equal: nothing to learn
  EXPECT_EQ(cmp.used_bytes, 1u);
  const CmpTable::BytePair* pair = nullptr;
  for (const CmpTable::BytePair& p : cmp.bytes) {
    if (p.used != 0) pair = &p;
  }
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->either, 1);
  EXPECT_EQ(pair->input, 'x');
  EXPECT_EQ(pair->constant, '>');
  cmp.AddConstByte(0x4000a1, 'y', 'P');  // the same site with a constant: a constant's pair
  EXPECT_EQ(cmp.used_bytes, 1u);
  EXPECT_EQ(pair->either, 0);
  EXPECT_EQ(pair->constant, 'P');
}

TEST(MutatorTest, InputToStateSolvesBigEndianInt) {
  CmpTable cmp;
  cmp.Clear();
  cmp.AddInt(0x11223344, 0xdeadbeef, 4);
  MutationSources sources;
  sources.cmp = &cmp;
  Bytes got = FirstResultContaining(InputWith({0x11, 0x22, 0x33, 0x44}), {0xde, 0xad, 0xbe, 0xef},
                                    sources, 4, 2000);
  EXPECT_EQ(got, InputWith({0xde, 0xad, 0xbe, 0xef}));
}

TEST(MutatorTest, InputToStateSolvesWord) {
  CmpTable cmp;
  cmp.Clear();
  cmp.AddWord("HELLOWLD", "SESAME!!", 8);
  MutationSources sources;
  sources.cmp = &cmp;
  Bytes hello(std::begin("HELLOWLD"), std::end("HELLOWLD") - 1);
  Bytes sesame(std::begin("SESAME!!"), std::end("SESAME!!") - 1);
  Bytes got = FirstResultContaining(InputWith(hello), sesame, sources, 5, 2000);
  EXPECT_EQ(got, InputWith(sesame));
}

TEST(MutatorTest, InputToStateReplacesAWordByALongerOne) {
  // strcmp("hi", "HELO"): the token is replaced whole and the input grows.
  CmpTable cmp;
  cmp.Clear();
  cmp.AddWords("hi", 2, "HELO", 4);
  MutationSources sources;
  sources.cmp = &cmp;
  Bytes got = FirstResultContaining(InputWith({'h', 'i'}), {'H', 'E', 'L', 'O'}, sources, 9, 2000);
  EXPECT_EQ(got, InputWith({'H', 'E', 'L', 'O'}));
}

TEST(MutatorTest, InputToStateNeverWritesTheInputsWordOverALiteral) {
  // "HELO" is the program's literal: the input's "hi" becomes "HELO", never the reverse.
  CmpTable cmp;
  cmp.Clear();
  cmp.AddWords("hi", 2, "HELO", 4, /*b_constant=*/true);
  MutationSources sources;
  sources.cmp = &cmp;
  Mutator m(256);
  Rng rng = Rng::FromSeed(10);
  Bytes input = InputWith({'H', 'E', 'L', 'O', ' ', 'h', 'i'});
  Bytes buf(256);
  for (int i = 0; i < 5000; i++) {
    std::copy(input.begin(), input.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), input.size(), rng, sources);
    if (std::string(Mutator::MutatorName(m.last_mutator())) != "InputToState") continue;
    ASSERT_TRUE(Contains(buf.data(), size, {'H', 'E', 'L', 'O'})) << "replaced the literal";
  }
}

TEST(MutatorTest, InputToStateSolvesDecimalText) {
  // strtol("12") compared with 7331: the text "12" must become "7331", and the input grow.
  CmpTable cmp;
  cmp.Clear();
  cmp.AddInt(12, 7331, 8);
  MutationSources sources;
  sources.cmp = &cmp;
  Bytes input{'c', 'm', 'd', ' ', '1', '2', ';'};
  Bytes wanted{'c', 'm', 'd', ' ', '7', '3', '3', '1', ';'};
  Bytes got = FirstResultContaining(input, wanted, sources, 8, 4000);
  EXPECT_EQ(got, wanted);
}

TEST(MutatorTest, InputToStateSolvesNegativeDecimalText) {
  // A 4-byte compare of -5 with 40: the text of the signed value is what an input holds.
  CmpTable cmp;
  cmp.Clear();
  cmp.AddInt(static_cast<uint32_t>(-5), 40, 4);
  MutationSources sources;
  sources.cmp = &cmp;
  Bytes input{'x', '=', '-', '5'};
  Bytes wanted{'x', '=', '4', '0'};
  Bytes got = FirstResultContaining(input, wanted, sources, 9, 4000);
  EXPECT_EQ(got, wanted);
}

TEST(MutatorTest, InputToStateInsertsOperandMissingFromInput) {
  CmpTable cmp;
  cmp.Clear();
  cmp.AddWord("HELLOWLD", "SESAME!!", 8);
  MutationSources sources;
  sources.cmp = &cmp;
  Bytes sesame(std::begin("SESAME!!"), std::end("SESAME!!") - 1);
  Bytes got = FirstResultContaining(Bytes(20, 'a'), sesame, sources, 6, 2000);
  EXPECT_EQ(got.size(), 28u);  // inserted, the 20 original bytes kept
}

TEST(MutatorTest, InputToStateAppendsAMissingNumberToALine) {
  // strtol("") of DATA's missing argument compared with 7: " 7" goes after the command,
  // before the line's newline or CRLF.
  CmpTable cmp;
  cmp.Clear();
  cmp.AddInt(0, 7, 8);
  MutationSources sources;
  sources.cmp = &cmp;
  const std::pair<std::string, std::string> cases[] = {
      {"HELO x\nDATA\nQUIT\n", "HELO x\nDATA 7\nQUIT\n"},
      {"DATA\r\n", "DATA 7\r\n"},
  };
  for (const auto& [input, wanted] : cases) {
    Bytes got = FirstResultContaining(Bytes(input.begin(), input.end()),
                                      Bytes(wanted.begin(), wanted.end()), sources, 11, 20000);
    EXPECT_EQ(std::string(got.begin(), got.end()), wanted);
  }
}

TEST(MutatorTest, InputToStateArithSolvesALinearRelation) {
  // The target computed 3x + 5y - z = 0x1000 and wants 0x2000: z must drop by 0x1000.
  CmpTable cmp;
  cmp.Clear();
  cmp.AddInt(0x1000, 0x2000, 4);
  MutationSources sources;
  sources.cmp = &cmp;
  Bytes input = InputWith({0x78, 0x56, 0x34, 0x12});  // z = 0x12345678, little-endian
  Bytes got = FirstResultContaining(input, {0x78, 0x46, 0x34, 0x12}, sources, 6, 20000);
  EXPECT_EQ(got, InputWith({0x78, 0x46, 0x34, 0x12}));
}

TEST(MutatorTest, InputToStateArithSolvesAnXoredField) {
  // The target compared w ^ 0xA5A5A5A5 (= 0x11111111 ^ 0xA5A5A5A5) with 0xCAFEF00D.
  CmpTable cmp;
  cmp.Clear();
  cmp.AddInt(0x11111111u ^ 0xA5A5A5A5u, 0xCAFEF00D, 4);
  MutationSources sources;
  sources.cmp = &cmp;
  uint32_t want = 0xCAFEF00Du ^ 0xA5A5A5A5u;
  Bytes wanted = {uint8_t(want), uint8_t(want >> 8), uint8_t(want >> 16), uint8_t(want >> 24)};
  Bytes got = FirstResultContaining(InputWith({0x11, 0x11, 0x11, 0x11}), wanted, sources, 7, 20000);
  EXPECT_EQ(got, InputWith(wanted));
}

}  // namespace
}  // namespace pollen::engine
