#include "engine/i2s_stage.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace pollen::engine {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

// Every candidate of the stage, as strings.
std::set<std::string> Candidates(const I2sStage& stage, const std::vector<uint8_t>& in,
                                 size_t max_size) {
  std::set<std::string> out;
  std::vector<uint8_t> buf(max_size);
  for (size_t i = 0; i < stage.size(); i++) {
    size_t n = stage.Build(i, in.data(), in.size(), buf.data());
    EXPECT_LE(n, max_size);
    out.insert(std::string(buf.begin(), buf.begin() + static_cast<ptrdiff_t>(n)));
  }
  return out;
}

TEST(CmpLogTest, KeepsDistinctPairsInOrderAndDropsRepeats) {
  auto log = std::make_unique<CmpLog>();
  log->Clear();
  log->AddInt(1, 2, 4);
  log->AddInt(1, 2, 4);
  log->AddInt(3, 3, 4);  // equal operands: nothing to learn
  log->AddInt(2, 1, 4);
  log->AddWords("ab", 2, "cd", 2, true);
  log->AddWords("ab", 2, "cd", 2, true);
  log->AddWords("a", 1, "c", 1, false);  // too short on both sides
  ASSERT_EQ(log->num_ints, 2u);
  EXPECT_EQ(log->ints[0].a, 1u);
  EXPECT_EQ(log->ints[1].a, 2u);
  EXPECT_EQ(log->num_words, 1u);
  log->Clear();
  EXPECT_EQ(log->num_ints, 0u);
  log->AddInt(1, 2, 4);
  EXPECT_EQ(log->num_ints, 1u);  // cleared set: seen again
}

TEST(CmpLogTest, StopsAtCapacity) {
  auto log = std::make_unique<CmpLog>();
  log->Clear();
  for (uint64_t i = 0; i < CmpLog::kMaxInts + 100; i++) log->AddInt(i, i + 1000000, 8);
  EXPECT_EQ(log->num_ints, CmpLog::kMaxInts);
}

TEST(I2sStageTest, ReplacesAnIntegerAtEveryPlaceAndEncoding) {
  auto log = std::make_unique<CmpLog>();
  log->Clear();
  log->AddInt(0x4443, 0x5a59, 2);  // "CD" little endian compared with "YZ"
  std::vector<uint8_t> in = Bytes("ABCDxCDx");
  I2sStage stage(*log, in.data(), in.size(), 64);
  std::set<std::string> c = Candidates(stage, in, 64);
  EXPECT_TRUE(c.count("ABYZxCDx"));  // little endian, first place
  EXPECT_TRUE(c.count("ABCDxYZx"));  // and the second
  // Nothing else: big endian "DC", "YZ" (b -> a) and the decimal texts are not in the input.
  EXPECT_EQ(c.size(), 2u);
}

TEST(I2sStageTest, DecimalTextMayChangeTheLength) {
  auto log = std::make_unique<CmpLog>();
  log->Clear();
  log->AddInt(42, 4242, 4);  // strtol("42") compared with 4242
  std::vector<uint8_t> in = Bytes("mode=42;");
  I2sStage stage(*log, in.data(), in.size(), 64);
  EXPECT_TRUE(Candidates(stage, in, 64).count("mode=4242;"));
}

TEST(I2sStageTest, WordsGoBothWaysUnlessTheProgramOwnsOne) {
  auto log = std::make_unique<CmpLog>();
  log->Clear();
  log->AddWords("HELO", 4, "EHLO", 4, /*b_constant=*/false);
  log->AddWords("QUIT", 4, "DATA", 4, /*b_constant=*/true);
  std::vector<uint8_t> in = Bytes("HELO EHLO QUIT DATA");
  I2sStage stage(*log, in.data(), in.size(), 64);
  std::set<std::string> c = Candidates(stage, in, 64);
  EXPECT_TRUE(c.count("EHLO EHLO QUIT DATA"));
  EXPECT_TRUE(c.count("HELO HELO QUIT DATA"));
  EXPECT_TRUE(c.count("HELO EHLO DATA DATA"));
  EXPECT_FALSE(c.count("HELO EHLO QUIT QUIT"));  // the literal is not replaced
}

TEST(I2sStageTest, RespectsTheSizeLimitAndTheCaps) {
  auto log = std::make_unique<CmpLog>();
  log->Clear();
  log->AddWords("ab", 2, "abcdefgh", 8, true);
  std::vector<uint8_t> in = Bytes("abababababab");
  I2sStage small(*log, in.data(), in.size(), in.size() + 5);
  EXPECT_EQ(small.size(), 0u);  // every candidate would grow by 6
  I2sStage big(*log, in.data(), in.size(), 64);
  EXPECT_EQ(big.size(), I2sStage::kMaxPerNeedle);
  // One-byte comparisons are left to the random mutations.
  log->Clear();
  log->AddInt('a', 'z', 1);
  I2sStage bytes(*log, in.data(), in.size(), 64);
  EXPECT_EQ(bytes.size(), 0u);
}

TEST(I2sStageTest, SameLogAndInputGiveTheSameList) {
  auto log = std::make_unique<CmpLog>();
  log->Clear();
  for (uint64_t v = 0x3030; v < 0x3040; v++) log->AddInt(v, v + 0x101, 2);
  std::vector<uint8_t> in = Bytes("0000101020203030404");
  I2sStage a(*log, in.data(), in.size(), 64);
  I2sStage b(*log, in.data(), in.size(), 64);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 0u);
  std::vector<uint8_t> x(64), y(64);
  for (size_t i = 0; i < a.size(); i++) {
    size_t nx = a.Build(i, in.data(), in.size(), x.data());
    size_t ny = b.Build(i, in.data(), in.size(), y.data());
    ASSERT_EQ(std::vector<uint8_t>(x.begin(), x.begin() + nx),
              std::vector<uint8_t>(y.begin(), y.begin() + ny));
  }
}

}  // namespace
}  // namespace pollen::engine
