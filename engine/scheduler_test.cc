#include "engine/scheduler.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "engine/rng.h"

namespace pollen::engine {
namespace {

constexpr int kDraws = 100000;

// 50 entries with the same common features, then one with those plus a unique one.
Scheduler CommonPlusUnique() {
  Scheduler s;
  for (int i = 0; i < 50; i++) EXPECT_EQ(s.Add({1, 2, 3}), static_cast<size_t>(i));
  EXPECT_EQ(s.Add({1, 2, 3, 999}), 50u);
  return s;
}

std::vector<int> Histogram(Scheduler& s, uint64_t seed, int draws) {
  Rng rng = Rng::FromSeed(seed);
  std::vector<int> counts(s.size(), 0);
  for (int i = 0; i < draws; i++) counts[s.Choose(rng)]++;
  return counts;
}

TEST(SchedulerTest, RareFeatureEntryIsChosenMuchMoreOften) {
  Scheduler s = CommonPlusUnique();
  EXPECT_EQ(s.size(), 51u);
  std::vector<int> counts = Histogram(s, 7, kDraws);
  // Weights: 3/51 for each common entry, 3/51 + 1 for the unique one: about 26% vs 1.5%.
  EXPECT_GT(counts[50], kDraws / 5);
  EXPECT_LT(counts[50], kDraws / 3);
  for (int i = 0; i < 50; i++) {
    EXPECT_GT(counts[i], 0) << i;
    EXPECT_GT(counts[50], 10 * counts[i]) << i;
  }
  // Round robin or uniform would give the unique entry 1/51 of the draws.
}

TEST(SchedulerTest, DuplicateFeaturesInOneEntryCountOnce) {
  Scheduler a;
  a.Add({5});
  a.Add({6, 6, 6, 6});
  EXPECT_DOUBLE_EQ(a.Weight(0), a.Weight(1));
  EXPECT_DOUBLE_EQ(a.Weight(0), 1.0);
}

TEST(SchedulerTest, FuzzedALotEntryShareDrops) {
  Scheduler s = CommonPlusUnique();
  int before = Histogram(s, 11, kDraws)[50];
  double weight_before = s.Weight(50);
  // A hundred rounds of fruitless fuzzing, as a worker would report them.
  for (int i = 0; i < 100; i++) s.RecordFuzzed(50, 10 * Scheduler::kDecayRuns, false);
  EXPECT_EQ(s.runs(50), 1000 * Scheduler::kDecayRuns);
  int after = Histogram(s, 11, kDraws)[50];
  EXPECT_LT(s.Weight(50), weight_before / 100);
  EXPECT_LT(after, before / 10);
  EXPECT_GT(after, 0);  // the floor keeps it alive
  // A find restores its weight at once.
  s.RecordFuzzed(50, 1, true);
  EXPECT_DOUBLE_EQ(s.Weight(50), weight_before);
}

TEST(SchedulerTest, NoEntryStarves) {
  Scheduler s;
  s.Add({});  // no features at all: weight would be 0
  for (int i = 0; i < 9; i++) s.Add({static_cast<Feature>(100 + i)});
  for (int i = 1; i < 10; i++) s.RecordFuzzed(i, 1, false);
  EXPECT_GT(s.Weight(0), 0);
  std::vector<int> counts = Histogram(s, 3, kDraws);
  EXPECT_GT(counts[0], 0);
  EXPECT_LT(counts[0], kDraws / 100);  // about 0.1%: present but small
}

TEST(SchedulerTest, SpeedFactorFollowsTheRunTimeAgainstTheMean) {
  // {run time, factor} against a mean of 100; a time of 0 means nothing measured.
  const std::vector<std::pair<double, double>> table = {
      {100, 1.0}, {130, 1.0}, {140, 0.75}, {300, 0.5}, {500, 0.25}, {1100, 0.1},
      {60, 1.0},  {40, 1.5},  {30, 2.0},   {20, 3.0},  {0, 1.0}};
  for (auto [run_us, factor] : table)
    EXPECT_DOUBLE_EQ(Scheduler::SpeedFactor(run_us, 100), factor) << run_us;
  EXPECT_DOUBLE_EQ(Scheduler::SpeedFactor(100, 0), 1.0);
}

// Two entries of equal rarity, one whose mutants run in 10 us, one in 200 us.
Scheduler FastAndSlow(bool speed_weight) {
  Scheduler s;
  s.set_speed_weight(speed_weight);
  s.Add({1});
  s.Add({2});
  s.RecordFuzzed(0, 1000, true, 1000 * 10);
  s.RecordFuzzed(1, 1000, true, 1000 * 200);
  return s;
}

TEST(SchedulerTest, FastEntriesAreChosenMoreOftenThanSlowOnes) {
  Scheduler s = FastAndSlow(true);
  // Mean 105 us: the fast entry is under a quarter of it (x3), the slow one under 2x (x0.75).
  EXPECT_DOUBLE_EQ(s.Weight(0) / s.Weight(1), 3.0 / 0.75);
  std::vector<int> counts = Histogram(s, 5, kDraws);
  EXPECT_GT(counts[0], 3 * counts[1]);
  EXPECT_GT(counts[1], kDraws / 10);
}

TEST(SchedulerTest, SpeedWeightOffIgnoresTheTimes) {
  Scheduler s = FastAndSlow(false);
  EXPECT_DOUBLE_EQ(s.Weight(0), s.Weight(1));
  s.set_speed_weight(true);
  EXPECT_GT(s.Weight(0), s.Weight(1));
}

TEST(SchedulerTest, SpeedCountsOnlyAfterEnoughTimedRuns) {
  Scheduler s;
  s.Add({1});
  s.Add({2});
  s.RecordFuzzed(0, Scheduler::kSpeedMinRuns - 1, true, 10);
  s.RecordFuzzed(1, Scheduler::kSpeedMinRuns, true, 1000000);
  // Entry 0 is not timed enough: the mean is entry 1's own, and both keep factor 1.
  EXPECT_DOUBLE_EQ(s.Weight(0), s.Weight(1));
  // Runs recorded without a time do not count as timed.
  s.RecordFuzzed(0, 10 * Scheduler::kSpeedMinRuns, true, 0);
  EXPECT_DOUBLE_EQ(s.Weight(0), s.Weight(1));
  s.RecordFuzzed(0, 1, true, 1);
  EXPECT_GT(s.Weight(0), s.Weight(1));
}

TEST(SchedulerTest, SpeedCountsOnceAnEntryTookTheTimeOfEnoughRuns) {
  Scheduler s;
  s.Add({1});
  s.Add({2});
  s.RecordFuzzed(0, Scheduler::kSpeedMinRuns, true, Scheduler::kSpeedMinRuns * 10);
  s.RecordFuzzed(1, Scheduler::kSpeedMinRuns, true, Scheduler::kSpeedMinRuns * 10);
  EXPECT_DOUBLE_EQ(s.Weight(0), s.Weight(1));
  // Two runs of 10 ms: far fewer runs than kSpeedMinRuns, but the time of thousands at the
  // corpus's mean (10 us). Entry 2 then weighs a tenth (over 10x the mean).
  s.Add({3});
  s.RecordFuzzed(2, 2, true, 20000);
  EXPECT_NEAR(s.Weight(2) / s.Weight(0), 0.1, 1e-12);
}

TEST(SchedulerTest, AUnitDecaysItsEntryByTheRunsItsTimeWouldHaveHeld) {
  Scheduler s;
  s.Add({1});
  s.Add({2});
  s.RecordFuzzed(0, 1000, true, 1000 * 10);
  s.RecordFuzzed(1, 1000, true, 1000 * 10);
  EXPECT_DOUBLE_EQ(s.Weight(0), s.Weight(1));  // the mean is now 10 us a run
  // 64 units of one run each (kRebuildEvery of them bring the weights up to date): entry
  // 0's take 640 us, the time of 64 runs at the mean, and decay it by kDecayRuns in all.
  for (uint64_t i = 0; i < Scheduler::kRebuildEvery; i++) {
    s.RecordFuzzed(0, 1, false, 640);
    s.RecordFuzzed(1, 1, false, 10);
  }
  // Entry 0: decay 2; its runs average 47.9 us against the corpus's 28.9 (speed 0.75).
  // Entry 1: decay 1 + 64/4096; 10 us a run, a third of the mean or more (speed 1.5).
  EXPECT_NEAR(s.Weight(0), 0.75 / 2, 1e-9);
  EXPECT_NEAR(s.Weight(1), 1.5 / (1.0 + 64.0 / Scheduler::kDecayRuns), 1e-9);
  // Without speed weighting a unit counts its runs only.
  Scheduler t;
  t.set_speed_weight(false);
  t.Add({1});
  t.RecordFuzzed(0, 1000, true, 1000 * 10);
  EXPECT_DOUBLE_EQ(t.Weight(0), 1.0);
  for (uint64_t i = 0; i < Scheduler::kRebuildEvery; i++) t.RecordFuzzed(0, 1, false, 640);
  EXPECT_NEAR(t.Weight(0), 1.0 / (1.0 + 64.0 / Scheduler::kDecayRuns), 1e-12);
}

TEST(SchedulerTest, EntriesWhoseUnitsOverrunTheirTimeWeighLessInProportion) {
  Scheduler s;
  s.set_unit_us(5000);
  for (Feature f = 1; f <= 3; f++) s.Add({f});
  // The same time per run (10 us) everywhere, so speed is 1 for all three: units of 5 ms,
  // of 9 ms (within twice the nominal unit: a coarse clock's tick), and of 100 ms.
  s.RecordFuzzed(0, 500, true, 5000);
  s.RecordFuzzed(1, 900, true, 9000);
  s.RecordFuzzed(2, 10000, true, 100000);
  EXPECT_DOUBLE_EQ(s.Weight(1), s.Weight(0));
  EXPECT_NEAR(s.Weight(2) / s.Weight(0), 2.0 * 5000 / 100000, 1e-12);
  // Off with speed weighting, and without a nominal unit.
  s.set_speed_weight(false);
  EXPECT_DOUBLE_EQ(s.Weight(2), s.Weight(0));
  s.set_speed_weight(true);
  s.set_unit_us(0);
  EXPECT_DOUBLE_EQ(s.Weight(2), s.Weight(0));
}

TEST(SchedulerTest, AllZeroWeightsFallBackToUniform) {
  Scheduler s;
  for (int i = 0; i < 4; i++) s.Add({});
  std::vector<int> counts = Histogram(s, 5, 40000);
  for (int c : counts) {
    EXPECT_GT(c, 9000);
    EXPECT_LT(c, 11000);
  }
}

TEST(SchedulerTest, AddingSharersLowersRarity) {
  Scheduler s;
  s.Add({42});
  EXPECT_DOUBLE_EQ(s.Weight(0), 1.0);
  s.Add({42});
  EXPECT_DOUBLE_EQ(s.Weight(0), 0.5);
  EXPECT_DOUBLE_EQ(s.Weight(1), 0.5);
}

TEST(SchedulerTest, ReplaceMovesTheRarityWithTheFeatures) {
  Scheduler s = CommonPlusUnique();
  double unique_before = s.Weight(50);
  // Entry 50 is replaced by an input with only the unique feature: its weight drops by the
  // common features' share, and every other entry's rises (one sharer fewer).
  double common_before = s.Weight(0);
  s.Replace(50, {999});
  EXPECT_NEAR(s.Weight(50), 1.0, 1e-9);
  EXPECT_LT(s.Weight(50), unique_before);
  EXPECT_GT(s.Weight(0), common_before);
  EXPECT_NEAR(s.Weight(0), 3.0 / 50, 1e-9);
  // Entry 0 drops a common feature for a new one.
  s.Replace(0, {1, 2, 7});
  EXPECT_NEAR(s.Weight(0), 2.0 / 50 + 1.0, 1e-9);
}

TEST(SchedulerTest, DeterministicGivenRng) {
  auto run = [](uint64_t seed) {
    Scheduler s = CommonPlusUnique();
    Rng rng = Rng::FromSeed(seed);
    std::vector<size_t> picks;
    for (int i = 0; i < 2000; i++) {
      size_t p = s.Choose(rng);
      picks.push_back(p);
      s.RecordFuzzed(p, 100, i % 97 == 0);
      if (i % 500 == 0) s.Add({static_cast<Feature>(5000 + i)});
    }
    return picks;
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
}

}  // namespace
}  // namespace pollen::engine
