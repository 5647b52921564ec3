#include "engine/mutator.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes RandomBytes(Rng& rng, size_t n) {
  Bytes b(n);
  for (uint8_t& x : b) x = static_cast<uint8_t>(rng.Next());
  return b;
}

bool Contains(const uint8_t* data, size_t size, const Bytes& needle) {
  return std::search(data, data + size, needle.begin(), needle.end()) != data + size;
}

// Sources that enable every mutator.
struct AllSources {
  AllSources() {
    dict.entries = {"KEYWORD", "\x01\x02"};
    cmp.Clear();
    cmp.AddInt(0x11223344, 0xdeadbeef, 4);
    cmp.AddInt(7, 300, 2);
    cmp.AddWord("HELLO", "WORLD", 5);
    partner = Bytes{'P', 'A', 'R', 'T', 'N', 'E', 'R', '-', '1', '2', '3'};
    sources.dictionary = &dict;
    sources.cmp = &cmp;
    sources.crossover = partner.data();
    sources.crossover_size = partner.size();
    // The '\n' (10) at offset 5 of EveryMutatorApplies's input, read as the length of the
    // ten bytes after it.
    lengths = LengthFields{};
    lengths.fields[0] = LengthFields::Field{5, 10, 1, 0, {0, 0}};
    lengths.count = 1;
    sources.lengths = &lengths;
    learned = LearnedWords{};
    learned.Add(reinterpret_cast<const uint8_t*>("LEARNED"), 7);
    sources.learned = &learned;
  }
  Dictionary dict;
  CmpTable cmp;
  LengthFields lengths;
  LearnedWords learned;
  Bytes partner;
  MutationSources sources;
};

// Runs `steps` mutations from a fixed start and returns every intermediate input.
std::vector<Bytes> Trace(uint64_t seed, size_t max_size, int steps) {
  AllSources all;
  Mutator m(max_size);
  Bytes buf(max_size, 'a');
  size_t size = std::min<size_t>(16, max_size);
  Rng rng = Rng::FromSeed(seed);
  std::vector<Bytes> out;
  for (int i = 0; i < steps; i++) {
    size = m.Mutate(buf.data(), size, rng, all.sources);
    out.emplace_back(buf.begin(), buf.begin() + size);
  }
  return out;
}

TEST(MutatorTest, SameSeedGivesSameSequence) {
  std::vector<Bytes> a = Trace(42, 256, 5000);
  std::vector<Bytes> b = Trace(42, 256, 5000);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i++) ASSERT_EQ(a[i], b[i]) << "diverged at step " << i;
}

TEST(MutatorTest, DifferentSeedGivesDifferentSequence) {
  std::vector<Bytes> a = Trace(42, 256, 5000);
  std::vector<Bytes> b = Trace(43, 256, 5000);
  size_t differing = 0;
  for (size_t i = 0; i < a.size(); i++) differing += a[i] != b[i];
  EXPECT_GT(differing, a.size() * 9 / 10);
}

TEST(MutatorTest, StaysWithinBoundsAndNeverWritesPastMaxSize) {
  constexpr size_t kGuard = 64;
  for (size_t max_size : {1, 2, 7, 64, 4096}) {
    SCOPED_TRACE("max_size=" + std::to_string(max_size));
    AllSources all;
    Mutator m(max_size);
    Rng rng = Rng::FromSeed(max_size);
    Bytes buf(max_size + kGuard, 0x5a);
    size_t size = 0;
    bool saw_empty = false, saw_full = false;
    for (int i = 0; i < 100000; i++) {
      if (i % 97 == 0) {  // restart from a random size, including 0 and max_size
        uint32_t pick = rng.Below(4);
        size = pick == 0 ? 0 : pick == 1 ? max_size : rng.BelowSize(max_size + 1);
        for (size_t j = 0; j < size; j++) buf[j] = static_cast<uint8_t>(rng.Next());
      }
      saw_empty |= size == 0;
      saw_full |= size == max_size;
      all.sources.crossover_size = rng.BelowSize(all.partner.size() + 1);  // includes 0
      size = m.Mutate(buf.data(), size, rng, all.sources);
      ASSERT_GE(size, 1u) << "step " << i;
      ASSERT_LE(size, max_size) << "step " << i;
    }
    EXPECT_TRUE(saw_empty);
    EXPECT_TRUE(saw_full);
    for (size_t j = max_size; j < buf.size(); j++) ASSERT_EQ(buf[j], 0x5a) << "wrote past max_size";
  }
}

TEST(MutatorTest, EveryMutatorApplies) {
  AllSources all;
  Mutator m(128);
  Rng rng = Rng::FromSeed(1);
  Bytes buf(128);
  std::set<size_t> used;
  for (int i = 0; i < 20000; i++) {
    size_t size = 20;
    std::memcpy(buf.data(), "x(12)\nHELLO \x44\x33\x22\x11 abcd", size);
    m.Mutate(buf.data(), size, rng, all.sources);
    used.insert(m.last_mutator());
  }
  EXPECT_EQ(used.size(), Mutator::MutatorCount());
  std::set<std::string> names;
  for (size_t i = 0; i < Mutator::MutatorCount(); i++) names.insert(Mutator::MutatorName(i));
  EXPECT_EQ(names.size(), Mutator::MutatorCount());
  EXPECT_TRUE(names.count("InputToState"));
  EXPECT_TRUE(names.count("CrossOver"));
}

TEST(MutatorTest, AbsentSourcesAreSkipped) {
  Mutator m(64);
  Rng rng = Rng::FromSeed(2);
  Bytes buf(64, 'q');
  CmpTable empty_cmp;
  empty_cmp.Clear();
  Dictionary empty_dict;
  MutationSources sources;
  sources.cmp = &empty_cmp;  // present but with no used slot
  sources.dictionary = &empty_dict;
  for (int i = 0; i < 5000; i++) {
    size_t size = m.Mutate(buf.data(), 8, rng, sources);
    ASSERT_GE(size, 1u);
    std::string name = Mutator::MutatorName(m.last_mutator());
    ASSERT_NE(name, "CrossOver");
    ASSERT_NE(name, "Dictionary");
    ASSERT_NE(name, "InputToState");
    ASSERT_NE(name, "InputToStateArith");
    ASSERT_NE(name, "LearnedDictionary");
    ASSERT_NE(name, "InsertRecord");
  }
}

// Mutates a fresh copy of `input` up to `tries` times (chains of one); returns the first
// result containing `wanted`, or an empty vector.
Bytes FirstResultContaining(const Bytes& input, const Bytes& wanted, const MutationSources& sources,
                            uint64_t seed, int tries) {
  Mutator m(256);
  Rng rng = Rng::FromSeed(seed);
  Bytes buf(256);
  for (int i = 0; i < tries; i++) {
    std::copy(input.begin(), input.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), input.size(), rng, sources);
    if (Contains(buf.data(), size, wanted)) return Bytes(buf.begin(), buf.begin() + size);
  }
  return {};
}

Bytes InputWith(const Bytes& middle) {
  Bytes input(10, 'a');
  input.insert(input.end(), middle.begin(), middle.end());
  input.insert(input.end(), 10, 'z');
  return input;
}

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

// A group with its repetition, copied inside itself: the regular expression's program
// grows by a factor (re2 needs more than 512 instructions before it runs its NFA).
TEST(MutatorTest, NestGroupPutsACopyOfAGroupInsideItself) {
  MutationSources none;
  const std::string in = "(a{9}){9}";
  const std::string want = "(a{9}(a{9}){9}){9}";
  Bytes got = FirstResultContaining(Bytes(in.begin(), in.end()), Bytes(want.begin(), want.end()),
                                    none, 3, 20000);
  EXPECT_EQ(got, Bytes(want.begin(), want.end()));
}

// Brackets that never close give no group: whatever the mutations do, no copy of the input's
// brackets appears inside them.
TEST(MutatorTest, NestGroupNeedsAGroupThatCloses) {
  Mutator m(256);
  Rng rng = Rng::FromSeed(9);
  Bytes buf(256);
  const std::string in = "((((ab";
  for (int i = 0; i < 20000; i++) {
    std::copy(in.begin(), in.end(), buf.begin());
    m.Mutate(buf.data(), in.size(), rng, MutationSources{});
    ASSERT_STRNE(Mutator::MutatorName(m.last_mutator()), "NestGroup");
  }
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

// The results of CopyLine among `tries` mutations of `input` (each from the input afresh).
std::vector<std::string> CopyLineResults(const std::string& input, uint64_t seed, int tries) {
  MutationSources sources;
  Mutator m(256);
  Rng rng = Rng::FromSeed(seed);
  Bytes buf(256);
  std::vector<std::string> results;
  for (int i = 0; i < tries; i++) {
    std::copy(input.begin(), input.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), input.size(), rng, sources);
    if (std::string(Mutator::MutatorName(m.last_mutator())) != "CopyLine") continue;
    results.emplace_back(buf.begin(), buf.begin() + size);
  }
  return results;
}

TEST(MutatorTest, CopyLineDuplicatesWholeLines) {
  const std::string input = "HELO a\nMAIL b\nRCPT c\n";
  bool duplicated_rcpt = false;
  for (const std::string& out : CopyLineResults(input, 8, 20000)) {
    // Whole lines only: every line of the result is one of the input's.
    ASSERT_EQ(out.back(), '\n') << out;
    for (size_t at = 0; at < out.size();) {
      size_t nl = out.find('\n', at);
      std::string line = out.substr(at, nl + 1 - at);
      ASSERT_NE(input.find(line), std::string::npos) << "line '" << line << "' in " << out;
      at = nl + 1;
    }
    duplicated_rcpt = duplicated_rcpt || out.find("RCPT c\nRCPT c\n") != std::string::npos;
  }
  EXPECT_TRUE(duplicated_rcpt);
}

TEST(MutatorTest, CopyLineAppendsAfterAnUnfinishedLastLine) {
  // "[t]" is the last section and has no newline: a key copied after it starts a new line,
  // so it lands in that section instead of gluing onto "[t]".
  bool appended = false;
  for (const std::string& out : CopyLineResults("[s]\nk=1\n[t]", 12, 20000)) {
    ASSERT_EQ(out.find("]k"), std::string::npos) << "glued onto a line: " << out;
    appended = appended || out == "[s]\nk=1\n[t]\nk=1";
  }
  EXPECT_TRUE(appended);
}

TEST(MutatorTest, InsertsDictionaryEntry) {
  Dictionary dict;
  dict.entries = {"MAGIC_WORD"};
  MutationSources sources;
  sources.dictionary = &dict;
  Bytes magic(dict.entries[0].begin(), dict.entries[0].end());
  Bytes got = FirstResultContaining(Bytes(32, 'a'), magic, sources, 7, 2000);
  EXPECT_FALSE(got.empty());
}

TEST(MutatorTest, CrossOverBringsBytesFromPartner) {
  Bytes partner = {'P', 'A', 'R', 'T', 'N', 'E', 'R', '-', 'P', 'A', 'R', 'T', 'N', 'E', 'R'};
  MutationSources sources;
  sources.crossover = partner.data();
  sources.crossover_size = partner.size();
  Bytes got = FirstResultContaining(Bytes(32, 'a'), {'R', 'T', 'N', 'E'}, sources, 8, 2000);
  EXPECT_FALSE(got.empty());
  // Without the partner, the same search finds nothing.
  EXPECT_TRUE(
      FirstResultContaining(Bytes(32, 'a'), {'R', 'T', 'N', 'E'}, MutationSources(), 8, 2000)
          .empty());
}

TEST(MutatorTest, ChangesAsciiIntegers) {
  Mutator m(64);
  Rng rng = Rng::FromSeed(9);
  Bytes buf(64);
  std::set<std::string> numbers;
  for (int i = 0; i < 5000; i++) {
    const std::string input = "abc123def";
    std::copy(input.begin(), input.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), input.size(), rng, MutationSources());
    std::string out(buf.begin(), buf.begin() + size);
    if (std::string(Mutator::MutatorName(m.last_mutator())) != "ChangeASCIIInt") continue;
    ASSERT_EQ(out.substr(0, 3), "abc") << out;
    ASSERT_EQ(out.substr(out.size() - 3), "def") << out;
    std::string digits = out.substr(3, out.size() - 6);
    ASSERT_FALSE(digits.empty());
    ASSERT_EQ(digits.find_first_not_of("0123456789"), std::string::npos) << out;
    numbers.insert(digits);
  }
  for (const char* expected : {"124", "122", "61", "246"})
    EXPECT_TRUE(numbers.count(expected)) << expected;
  EXPECT_GT(numbers.size(), 5u);  // plus random values
}

// What a worker does for one chain: reset to the entry, remember the rng, mutate and run.
Bytes WorkerChain(Mutator& m, const Bytes& entry, Rng& rng, uint32_t length,
                  const MutationSources& sources, uint64_t* state, uint64_t* inc) {
  Bytes buf(m.max_size());
  size_t size = BeginChain(m, entry.data(), entry.size(), buf.data());
  *state = rng.state();
  *inc = rng.inc();
  for (uint32_t i = 0; i < length; i++) size = m.Mutate(buf.data(), size, rng, sources);
  buf.resize(size);
  return buf;
}

TEST(ReplayChainTest, MatchesWorkerLoopForEveryChainLength) {
  AllSources all;
  Mutator worker(64);
  Mutator replayer(64);  // a separate instance, as in the coordinator
  Rng rng = Rng::FromSeed(10);
  Rng entries = Rng::FromSeed(11);
  for (int round = 0; round < 400; round++) {
    // Sizes include 0 and entries longer than max_size (truncated by both paths).
    Bytes entry = RandomBytes(entries, entries.Below(100));
    for (uint32_t length = 1; length <= kChainLength; length++) {
      uint64_t state, inc;
      Bytes executed = WorkerChain(worker, entry, rng, length, all.sources, &state, &inc);
      // The coordinator replays only the chains that found something, so the two Mutators'
      // histories differ: nothing in a Mutator may carry over from one call to the next.
      if ((round + length) % 3 == 0) continue;
      Bytes out(64, 0xcc);
      size_t size = ReplayChain(replayer, entry.data(), entry.size(), state, inc, length,
                                all.sources, out.data());
      out.resize(size);
      ASSERT_EQ(out, executed) << "round " << round << " length " << length;
    }
  }
}

TEST(ReplayChainTest, ZeroLengthIsTheTruncatedEntry) {
  Mutator m(4);
  Bytes entry = {1, 2, 3, 4, 5, 6};
  Bytes out(4);
  EXPECT_EQ(ReplayChain(m, entry.data(), entry.size(), 1, 1, 0, MutationSources(), out.data()), 4u);
  EXPECT_EQ(out, (Bytes{1, 2, 3, 4}));
  EXPECT_EQ(ReplayChain(m, nullptr, 0, 1, 1, 0, MutationSources(), out.data()), 0u);
  EXPECT_GE(ReplayChain(m, nullptr, 0, 1, 1, 1, MutationSources(), out.data()), 1u);
}

}  // namespace
}  // namespace pollen::engine
