#include "engine/mutator.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/mutator_test_util.h"
#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

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
  // ... and a base64 run, for MutateBase64; every fourth input is DER, for MutateDer, and
  // every fourth a zlib stream of "hello" (one stored block), for MutateZlib.
  const char text[] =
      "x(12)\nHELLO \x44\x33\x22\x11 abcd QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVoxMjM0NTY3ODk=";
  const uint8_t der[] = {0x30, 0x10, 0x02, 0x01, 0x05, 0x30, 0x03, 0x02, 0x01,
                         0x07, 0x02, 0x01, 0x09, 0x30, 0x03, 0x02, 0x01, 0x0b};
  const uint8_t zlib[] = {0x78, 0x01, 0x01, 0x05, 0x00, 0xfa, 0xff, 'h',
                          'e',  'l',  'l',  'o',  0x06, 0x2c, 0x02, 0x15};
  for (int i = 0; i < 20000; i++) {
    const uint8_t* in = reinterpret_cast<const uint8_t*>(text);
    size_t size = sizeof(text) - 1;
    if (i % 4 == 0) {
      in = der;
      size = sizeof(der);
    } else if (i % 4 == 1) {
      in = zlib;
      size = sizeof(zlib);
    }
    std::memcpy(buf.data(), in, size);
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

// --only-ascii: every mutant, whatever its mutation wrote (the sources hold binary
// operands), is printable ASCII or whitespace; and a replay with the same setting matches.
TEST(MutatorTest, AsciiMutantsStayAsciiAndReplay) {
  AllSources all;
  Mutator worker(64), replayer(64);
  worker.set_ascii(true);
  replayer.set_ascii(true);
  Rng rng = Rng::FromSeed(5);
  Rng entries = Rng::FromSeed(6);
  const auto ascii = [](uint8_t c) { return (c >= 0x20 && c < 0x7f) || (c >= '\t' && c <= '\r'); };
  for (int round = 0; round < 500; round++) {
    Bytes entry = RandomBytes(entries, 1 + entries.Below(40));
    ToAscii(entry.data(), entry.size());
    uint64_t state, inc;
    Bytes executed = WorkerChain(worker, entry, rng, kChainLength, all.sources, &state, &inc);
    for (uint8_t c : executed) ASSERT_TRUE(ascii(c)) << "round " << round << " byte " << int{c};
    Bytes out(64, 0);
    out.resize(ReplayChain(replayer, entry.data(), entry.size(), state, inc, kChainLength,
                           all.sources, out.data()));
    ASSERT_EQ(out, executed) << "round " << round;
  }
  uint8_t mixed[] = {0x00, 0x80, 'a', 0xC1, '\n', 0x7f};
  ToAscii(mixed, sizeof(mixed));
  EXPECT_EQ(Bytes(mixed, mixed + sizeof(mixed)), (Bytes{' ', ' ', 'a', 'A', '\n', ' '}));
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
