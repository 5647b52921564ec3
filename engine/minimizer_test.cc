#include "engine/minimizer.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/rng.h"

namespace pollen::engine {
namespace {

std::vector<uint8_t> Bytes(std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::string Str(const uint8_t* d, size_t n) {
  return std::string(reinterpret_cast<const char*>(d), n);
}

std::string Str(const std::vector<uint8_t>& v) { return Str(v.data(), v.size()); }

TEST(MinimizerTest, RemovesJunkAroundNeededSubstring) {
  MinimizeOracle oracle = [](const uint8_t* d, size_t n) {
    return Str(d, n).find("FUZZ") != std::string::npos;
  };
  uint64_t attempts = 0;
  std::vector<uint8_t> out = MinimizeBytes(Bytes("xxxxFUZZyyyy"), oracle, 1000, &attempts);
  EXPECT_EQ(Str(out), "FUZZ");
  EXPECT_GT(attempts, 0u);
  EXPECT_LT(attempts, 1000u);
}

TEST(MinimizerTest, JunkInTheMiddleNeedsRangeRemoval) {
  // The oracle wants "AB" then later "CD": only whole-prefix/suffix or range cuts apply.
  MinimizeOracle oracle = [](const uint8_t* d, size_t n) {
    std::string s = Str(d, n);
    size_t a = s.find("AB");
    return a != std::string::npos && s.find("CD", a + 2) != std::string::npos;
  };
  std::vector<uint8_t> out =
      MinimizeBytes(Bytes("..AB" + std::string(200, 'q') + "CD.."), oracle, 100000, nullptr);
  EXPECT_EQ(Str(out), "ABCD");
}

TEST(MinimizerTest, TailCuttingStopsAtOracleBound) {
  MinimizeOracle oracle = [](const uint8_t*, size_t n) { return n >= 10; };
  std::string in;
  for (int i = 0; i < 100; i++) in += static_cast<char>('a' + i % 26);
  std::vector<uint8_t> out = MinimizeBytes(Bytes(in), oracle, 100000, nullptr);
  EXPECT_EQ(out.size(), 10u);
  EXPECT_EQ(Str(out), in.substr(0, 10));
}

TEST(MinimizerTest, RespectsMaxAttemptsExactly) {
  for (uint64_t max : {0u, 1u, 7u, 100u}) {
    SCOPED_TRACE(max);
    uint64_t calls = 0;
    MinimizeOracle oracle = [&calls](const uint8_t*, size_t) {
      calls++;
      return false;
    };
    std::vector<uint8_t> in(500);
    for (size_t i = 0; i < in.size(); i++) in[i] = static_cast<uint8_t>(i * 7);
    uint64_t attempts = 12345;
    std::vector<uint8_t> out = MinimizeBytes(in, oracle, max, &attempts);
    EXPECT_EQ(calls, max);
    EXPECT_EQ(attempts, max);
    EXPECT_EQ(out, in);  // nothing accepted: the input comes back
  }
  // And a budget that runs out while the oracle accepts.
  uint64_t calls = 0;
  MinimizeOracle accept_all = [&calls](const uint8_t*, size_t) {
    calls++;
    return true;
  };
  uint64_t attempts = 0;
  MinimizeBytes(std::vector<uint8_t>(1000, 1), accept_all, 5, &attempts);
  EXPECT_EQ(calls, 5u);
  EXPECT_EQ(attempts, 5u);
}

TEST(MinimizerTest, ReplacesNonPrintableBytes) {
  // Needs exactly 4 bytes with 'A' at index 1 and something >= '1' at index 3.
  MinimizeOracle oracle = [](const uint8_t* d, size_t n) {
    return n == 4 && d[1] == 'A' && d[3] >= '1';
  };
  std::vector<uint8_t> in = {0x00, 'A', 0xff, 0x80};
  std::vector<uint8_t> out = MinimizeBytes(in, oracle, 1000, nullptr);
  // 0x00 -> '0'; 0xff -> '0'; 0x80 -> '1', the first of the set the oracle accepts there.
  EXPECT_EQ(Str(out), "0A01");
}

TEST(MinimizerTest, PrintableBytesAreLeftAlone) {
  uint64_t calls = 0;
  MinimizeOracle oracle = [&calls](const uint8_t* d, size_t n) {
    calls++;
    return n == 3;
  };
  uint64_t attempts = 0;
  std::vector<uint8_t> out = MinimizeBytes(Bytes("q\nz"), oracle, 1000, &attempts);
  EXPECT_EQ(Str(out), "q\nz");
  EXPECT_EQ(calls, attempts);
  // Only removals were tried: cut 1 from the tail, remove [0], [1]; ranges of 2 need size 4.
  EXPECT_EQ(calls, 3u);
}

TEST(MinimizerTest, NeverRepeatsCandidateAndReturnsOnlyAccepted) {
  Rng rng = Rng::FromSeed(9);
  for (int iter = 0; iter < 200; iter++) {
    SCOPED_TRACE(iter);
    std::vector<uint8_t> in(1 + rng.Below(60));
    for (auto& b : in) b = static_cast<uint8_t>(rng.Below(3) == 0 ? rng.Next() : 'a');
    uint64_t salt = rng.Next64();
    std::set<std::vector<uint8_t>> accepted = {in};
    std::vector<uint8_t> last;
    bool repeated = false;
    // A pseudo-random, deterministic oracle: accepts about half the candidates.
    MinimizeOracle oracle = [&](const uint8_t* d, size_t n) {
      std::vector<uint8_t> c(d, d + n);
      if (c == last) repeated = true;
      last = c;
      EXPECT_GT(n, 0u);
      uint64_t h = salt;
      for (uint8_t b : c) h = (h ^ b) * 0x100000001b3ULL;
      bool ok = ((h >> 29) & 1) != 0;
      if (ok) accepted.insert(c);
      return ok;
    };
    std::vector<uint8_t> out = MinimizeBytes(in, oracle, 5000, nullptr);
    EXPECT_FALSE(repeated);
    EXPECT_EQ(accepted.count(out), 1u);
  }
}

TEST(MinimizerTest, RepeatedBytesDoNotRepeatCandidates) {
  std::vector<uint8_t> last;
  int repeats = 0;
  MinimizeOracle oracle = [&](const uint8_t* d, size_t n) {
    std::vector<uint8_t> c(d, d + n);
    if (c == last) repeats++;
    last = c;
    return false;
  };
  uint64_t attempts = 0;
  MinimizeBytes(std::vector<uint8_t>(64, 'a'), oracle, 100000, &attempts);
  EXPECT_EQ(repeats, 0);
  EXPECT_GT(attempts, 0u);
}

}  // namespace
}  // namespace pollen::engine
