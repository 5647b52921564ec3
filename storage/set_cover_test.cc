#include "storage/set_cover.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace pollen::storage {
namespace {

// Owns the features and hashes that CoverCandidates point to.
struct Instance {
  std::vector<std::vector<uint32_t>> features;
  std::vector<uint64_t> sizes;
  std::vector<std::string> hashes;

  void Add(std::vector<uint32_t> f, uint64_t size, std::string hash = "") {
    std::sort(f.begin(), f.end());
    features.push_back(std::move(f));
    sizes.push_back(size);
    hashes.push_back(hash.empty() ? "h" + std::to_string(hashes.size() + 100) : hash);
  }
  std::vector<CoverCandidate> Candidates() const {
    std::vector<CoverCandidate> c;
    for (size_t i = 0; i < features.size(); ++i) c.push_back({sizes[i], &features[i], hashes[i]});
    return c;
  }
  std::set<uint32_t> Union(const std::vector<size_t>& which) const {
    std::set<uint32_t> u;
    for (size_t i : which) u.insert(features[i].begin(), features[i].end());
    return u;
  }
  std::set<uint32_t> Union() const {
    std::vector<size_t> all(features.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    return Union(all);
  }
};

TEST(GreedySetCoverTest, EmptyInputGivesEmptyCover) { EXPECT_TRUE(GreedySetCover({}).empty()); }

TEST(GreedySetCoverTest, CandidatesWithoutFeaturesAreNeverTaken) {
  Instance in;
  in.Add({}, 1);
  in.Add({7}, 100);
  in.Add({}, 1);
  EXPECT_EQ(GreedySetCover(in.Candidates()), (std::vector<size_t>{1}));
}

TEST(GreedySetCoverTest, TakesTheLargestGainFirstAndSkipsSubsumedCandidates) {
  Instance in;
  in.Add({1, 2}, 10);
  in.Add({1, 2, 3, 4, 5}, 50);
  in.Add({3, 4}, 10);
  in.Add({5, 6}, 10);
  in.Add({6}, 5);
  const std::vector<size_t> chosen = GreedySetCover(in.Candidates());
  EXPECT_EQ(chosen, (std::vector<size_t>{1, 4}));  // {6} is smaller than {5,6} at gain 1
  EXPECT_EQ(in.Union(chosen), in.Union());
}

TEST(GreedySetCoverTest, MinimalOnHandCases) {
  Instance in;  // the classic trap for "smallest first": two halves beat many small pieces
  in.Add({1, 2, 3, 4, 5, 6}, 60);
  in.Add({7, 8, 9, 10, 11, 12}, 60);
  in.Add({1, 7}, 2);
  in.Add({2, 8}, 2);
  in.Add({3, 9}, 2);
  EXPECT_EQ(GreedySetCover(in.Candidates()).size(), 2u);
}

TEST(GreedySetCoverTest, TiesGoToTheSmallerSizeThenTheSmallerHash) {
  Instance in;
  in.Add({1, 2}, 30, "a");
  in.Add({1, 2}, 20, "c");
  in.Add({1, 2}, 20, "b");
  in.Add({1, 2}, 25, "0");
  EXPECT_EQ(GreedySetCover(in.Candidates()), (std::vector<size_t>{2}));
}

TEST(GreedySetCoverTest, DuplicateFeaturesInACandidateCountOnce) {
  Instance in;
  in.Add({1, 1, 1, 1}, 1);
  in.Add({2, 3}, 5);
  EXPECT_EQ(GreedySetCover(in.Candidates()), (std::vector<size_t>{1, 0}));
}

TEST(GreedySetCoverTest, ResultDoesNotDependOnCandidateOrder) {
  std::mt19937 rng(7);
  Instance in;
  for (int i = 0; i < 2000; ++i) {
    std::set<uint32_t> f;
    const int k = 1 + static_cast<int>(rng() % 12);
    for (int j = 0; j < k; ++j) f.insert(static_cast<uint32_t>(rng() % 3000) * 7919u);
    in.Add({f.begin(), f.end()}, 1 + rng() % 50);
  }
  const std::vector<size_t> chosen = GreedySetCover(in.Candidates());
  EXPECT_EQ(in.Union(chosen), in.Union());

  std::vector<size_t> order(in.features.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  Instance shuffled;
  for (size_t i : order) shuffled.Add(in.features[i], in.sizes[i], in.hashes[i]);
  std::vector<std::string> a, b;
  for (size_t i : chosen) a.push_back(in.hashes[i]);
  for (size_t i : GreedySetCover(shuffled.Candidates())) b.push_back(shuffled.hashes[i]);
  EXPECT_EQ(a, b);
}

// The smallest number of candidates covering everything, by trying every subset.
size_t ExhaustiveMinimum(const Instance& in) {
  const size_t n = in.features.size();
  const std::set<uint32_t> all = in.Union();
  size_t best = n;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    const size_t bits = static_cast<size_t>(__builtin_popcount(mask));
    if (bits >= best) continue;
    std::vector<size_t> which;
    for (size_t i = 0; i < n; ++i) {
      if (mask & (1u << i)) which.push_back(i);
    }
    if (in.Union(which) == all) best = bits;
  }
  return best;
}

TEST(GreedySetCoverTest, RandomTinyInstancesAgainstBruteForce) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 300; ++round) {
    Instance in;
    const int n = 1 + static_cast<int>(rng() % 12);
    size_t max_set = 1;
    for (int i = 0; i < n; ++i) {
      std::set<uint32_t> f;
      const int k = static_cast<int>(rng() % 7);
      for (int j = 0; j < k; ++j) f.insert(static_cast<uint32_t>(rng() % 16));
      max_set = std::max(max_set, f.size());
      in.Add({f.begin(), f.end()}, 1 + rng() % 4);
    }
    const std::vector<size_t> chosen = GreedySetCover(in.Candidates());
    ASSERT_EQ(in.Union(chosen), in.Union()) << "round " << round;
    const size_t optimum = ExhaustiveMinimum(in);
    EXPECT_LE(optimum, chosen.size()) << "round " << round;
    // Greedy's guarantee: H(max set size) <= ln(max set size) + 1 times the optimum.
    EXPECT_LE(static_cast<double>(chosen.size()),
              (std::log(static_cast<double>(max_set)) + 1.0) * static_cast<double>(optimum))
        << "round " << round;
    std::set<size_t> distinct(chosen.begin(), chosen.end());
    EXPECT_EQ(distinct.size(), chosen.size()) << "round " << round;
  }
}

}  // namespace
}  // namespace pollen::storage
