#include "engine/gates.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace pollen::engine {
namespace {

constexpr uintptr_t kSitePc = 0x401234;
constexpr uintptr_t kOtherPc = 0x405678;

// A toy checksum over data[4, n): what a target would compute and compare with the field.
uint32_t Sum(const std::vector<uint8_t>& d) {
  uint32_t sum = 0x12345678;
  for (size_t i = 4; i < d.size(); i++) sum = sum * 31 + d[i];
  return sum;
}

// The target: compares the stored little-endian field at 0 with the sum of the rest.
void RunTarget(CmpSiteLog& log, const std::vector<uint8_t>& d) {
  log.Record(kSitePc, Sum(d), LoadField(d.data(), 4, false), 4);
  log.Record(kOtherPc, 7, 7, 4);  // a comparison of a value that is not in the input
}

std::vector<uint8_t> WithSum(std::vector<uint8_t> payload) {
  std::vector<uint8_t> d(4);
  d.insert(d.end(), payload.begin(), payload.end());
  StoreField(d.data(), 4, false, Sum(d));
  return d;
}

TEST(GatesTest, LearnsTheChecksumFieldAndFixesItInAMutant) {
  std::vector<uint8_t> entry = WithSum({'a', 'b', 'c', 'd', 'e'});
  CmpSiteLog log;
  log.Clear();
  log.mode = CmpSiteLog::kLearn;
  RunTarget(log, entry);
  GateSet gates;
  ASSERT_EQ(gates.Learn(log, entry.data(), entry.size()), 1u);
  EXPECT_EQ(gates.gate(0).pc, kSitePc);
  EXPECT_EQ(gates.gate(0).place_count, 1u);
  EXPECT_EQ(gates.gate(0).places[0], 0u);
  EXPECT_EQ(gates.gate(0).width, 4);
  EXPECT_FALSE(gates.gate(0).big_endian);

  log.mode = CmpSiteLog::kWatch;
  std::vector<uint8_t> mutant = entry;
  mutant[6] ^= 0x40;
  gates.ResetHits(log);
  RunTarget(log, mutant);
  ASSERT_EQ(gates.Fix(log, mutant.data(), mutant.size()), 0);
  EXPECT_EQ(LoadField(mutant.data(), 4, false), Sum(mutant));
  gates.ResetHits(log);
  RunTarget(log, mutant);
  gates.Settle(0, log);
  EXPECT_EQ(gates.count(), 1u);
  // Nothing left to fix once it passes.
  EXPECT_EQ(gates.Fix(log, mutant.data(), mutant.size()), -1);
}

TEST(GatesTest, FindsAFieldThatMovedWithTheEnd) {
  // The field at the end, big-endian, as in zlib's Adler-32 trailer.
  std::vector<uint8_t> entry = {'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0};
  uint32_t sum = 0x0a0b0c0d;
  StoreField(entry.data() + 5, 4, true, sum);
  CmpSiteLog log;
  log.Clear();
  log.mode = CmpSiteLog::kLearn;
  log.Record(kSitePc, sum, sum, 4);
  GateSet gates;
  ASSERT_EQ(gates.Learn(log, entry.data(), entry.size()), 1u);
  EXPECT_TRUE(gates.gate(0).big_endian);
  EXPECT_EQ(gates.gate(0).places[0], 5u);
  EXPECT_EQ(gates.gate(0).entry_size, 9u);

  // Two bytes inserted before the field.
  std::vector<uint8_t> mutant = {'h', 'e', 'X', 'Y', 'l', 'l', 'o', 0, 0, 0, 0};
  StoreField(mutant.data() + 7, 4, true, sum);
  log.mode = CmpSiteLog::kWatch;
  gates.ResetHits(log);
  log.Record(kSitePc, 0x11223344, sum, 4);
  ASSERT_EQ(gates.Fix(log, mutant.data(), mutant.size()), 0);
  EXPECT_EQ(LoadField(mutant.data() + 7, 4, true), 0x11223344u);
}

TEST(GatesTest, LeavesAMutatedFieldAndUnequalSitesAlone) {
  std::vector<uint8_t> entry = WithSum({'x', 'y', 'z'});
  CmpSiteLog log;
  log.Clear();
  log.mode = CmpSiteLog::kLearn;
  RunTarget(log, entry);
  log.Record(0x409999, 0x55555555, 0x66666666, 4);  // unequal in the entry: not a gate
  GateSet gates;
  ASSERT_EQ(gates.Learn(log, entry.data(), entry.size()), 1u);

  // The mutation changed the field itself: restoring it would undo the mutation.
  log.mode = CmpSiteLog::kWatch;
  std::vector<uint8_t> mutant = entry;
  mutant[1] ^= 1;
  gates.ResetHits(log);
  RunTarget(log, mutant);
  EXPECT_EQ(gates.Fix(log, mutant.data(), mutant.size()), -1);
  // A run that never reached the site has nothing to fix either.
  gates.ResetHits(log);
  EXPECT_EQ(gates.Fix(log, entry.data(), entry.size()), -1);
}

TEST(GatesTest, DropsAGateWhoseFixesNeverPass) {
  std::vector<uint8_t> entry = WithSum({'q', 'r'});
  CmpSiteLog log;
  log.Clear();
  log.mode = CmpSiteLog::kLearn;
  RunTarget(log, entry);
  GateSet gates;
  ASSERT_EQ(gates.Learn(log, entry.data(), entry.size()), 1u);
  log.mode = CmpSiteLog::kWatch;
  // Confirmed once: then it survives kMaxFailures - 1 failed fixes.
  std::vector<uint8_t> mutant = entry;
  mutant[5] ^= 0x80;
  gates.ResetHits(log);
  RunTarget(log, mutant);
  ASSERT_EQ(gates.Fix(log, mutant.data(), mutant.size()), 0);
  gates.ResetHits(log);
  RunTarget(log, mutant);
  gates.Settle(0, log);
  ASSERT_TRUE(gates.gate(0).confirmed);
  for (uint32_t i = 0; i < GateSet::kMaxFailures; i++) {
    ASSERT_EQ(gates.count(), 1u) << i;
    std::vector<uint8_t> m = entry;
    m[5] ^= static_cast<uint8_t>(i + 1);
    gates.ResetHits(log);
    RunTarget(log, m);
    int fixed = gates.Fix(log, m.data(), m.size());
    ASSERT_EQ(fixed, 0);
    // The target now expects something else again (the field is not really the sum).
    gates.ResetHits(log);
    log.Record(kSitePc, Sum(m) + 1, LoadField(m.data(), 4, false), 4);
    gates.Settle(fixed, log);
  }
  EXPECT_EQ(gates.count(), 0u);
  EXPECT_EQ(log.slots[CmpSiteLog::SlotOf(kSitePc)].watched, 0);
}

// A second target: the sum of d[8, n) is stored at offset 4, and the entry happens to hold
// the same four bytes at offset 0 too.
uint32_t SumFrom8(const std::vector<uint8_t>& d) {
  uint32_t sum = 0x9e3779b9;
  for (size_t i = 8; i < d.size(); i++) sum = sum * 31 + d[i];
  return sum;
}
void RunTarget2(CmpSiteLog& log, const std::vector<uint8_t>& d) {
  log.Record(kSitePc, SumFrom8(d), LoadField(d.data() + 4, 4, false), 4);
}

TEST(GatesTest, TriesEachPlaceOfAValueThatOccursSeveralTimes) {
  std::vector<uint8_t> entry(8);
  for (char c : std::string("payload")) entry.push_back(static_cast<uint8_t>(c));
  StoreField(entry.data(), 4, false, SumFrom8(entry));
  StoreField(entry.data() + 4, 4, false, SumFrom8(entry));
  CmpSiteLog log;
  log.Clear();
  log.mode = CmpSiteLog::kLearn;
  RunTarget2(log, entry);
  GateSet gates;
  ASSERT_EQ(gates.Learn(log, entry.data(), entry.size()), 1u);
  ASSERT_EQ(gates.gate(0).place_count, 2u);
  log.mode = CmpSiteLog::kWatch;

  // The first fix goes to offset 0, which is not the field: the gate still fails.
  std::vector<uint8_t> m1 = entry;
  m1[9] ^= 1;
  gates.ResetHits(log);
  RunTarget2(log, m1);
  ASSERT_EQ(gates.Fix(log, m1.data(), m1.size()), 0);
  EXPECT_EQ(LoadField(m1.data(), 4, false), SumFrom8(m1));
  gates.ResetHits(log);
  RunTarget2(log, m1);
  gates.Settle(0, log);
  ASSERT_EQ(gates.count(), 1u);
  EXPECT_EQ(gates.gate(0).current, 1u);

  // The next mutant's fix goes to offset 4, and passes.
  std::vector<uint8_t> m2 = entry;
  m2[10] ^= 2;
  gates.ResetHits(log);
  RunTarget2(log, m2);
  ASSERT_EQ(gates.Fix(log, m2.data(), m2.size()), 0);
  EXPECT_EQ(LoadField(m2.data() + 4, 4, false), SumFrom8(m2));
  gates.ResetHits(log);
  RunTarget2(log, m2);
  gates.Settle(0, log);
  EXPECT_TRUE(gates.gate(0).confirmed);
}

TEST(GatesTest, WatchModeUpdatesOnlyWatchedSites) {
  CmpSiteLog log;
  log.Clear();
  log.mode = CmpSiteLog::kWatch;
  log.Record(kSitePc, 1, 2, 4);
  EXPECT_EQ(log.slots[CmpSiteLog::SlotOf(kSitePc)].hits, 0u);
  log.mode = CmpSiteLog::kLearn;
  log.Record(kSitePc, 1, 2, 4);
  log.Record(kSitePc, 3, 4, 4);
  const CmpSite& s = log.slots[CmpSiteLog::SlotOf(kSitePc)];
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.a, 3u);
  EXPECT_EQ(s.b, 4u);
}

}  // namespace
}  // namespace pollen::engine
