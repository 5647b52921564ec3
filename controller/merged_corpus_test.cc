#include "controller/merged_corpus.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <thread>

#include "base/clock.h"
#include "base/hex.h"
#include "controller/controller_test_util.h"

namespace pollen::controller {
namespace {

using testing::MakeEntry;
using testing::TempDir;

const storage::CampaignId kCampaign{"json_fuzzer", "0123456789abcdef"};

std::set<std::string> Hashes(MergedCorpus& corpus) {
  std::set<std::string> out;
  EXPECT_TRUE(corpus.store()
                  .ForEachEntry([&](std::string_view hash, const storage::EntryMeta&) {
                    out.emplace(hash);
                    return true;
                  })
                  .ok());
  return out;
}

std::string HexOf(const InputEntry& e) { return base::ToHex(e.hash.data(), e.hash.size()); }

TEST(MergedCorpusTest, KeepsWhatAddsAFeatureOnce) {
  TempDir dir;
  auto corpus = MergedCorpus::Open(dir.path() + "/store", kCampaign).value();
  std::vector<InputEntry> first = {MakeEntry("a", {1, 2, 3}), MakeEntry("b", {3, 4})};
  InsertReport r1 = corpus->Insert(first, "node:n1", 1000).value();
  EXPECT_EQ(r1.added, 2u);
  // From another node: a duplicate, one that adds nothing, one that adds a feature, and
  // within one batch two inputs where the second adds nothing after the first.
  std::vector<InputEntry> second = {MakeEntry("a", {1, 2, 3}), MakeEntry("c", {1, 4}),
                                    MakeEntry("d", {5}), MakeEntry("e", {5}),
                                    MakeEntry("empty features", {})};
  InsertReport r2 = corpus->Insert(second, "node:n2", 2000).value();
  EXPECT_EQ(r2.added, 1u);
  EXPECT_EQ(r2.duplicates, 1u);
  EXPECT_EQ(r2.not_needed, 3u);

  MergedCorpus::Info info = corpus->info();
  EXPECT_EQ(info.entries, 3u);
  EXPECT_EQ(info.bytes, 3u);
  EXPECT_EQ(info.features, 5u);
  EXPECT_EQ(info.inserted_since_maintain, 3u);
  EXPECT_EQ(Hashes(*corpus),
            (std::set<std::string>{HexOf(first[0]), HexOf(first[1]), HexOf(second[2])}));
  storage::EntryMeta meta = corpus->store().GetMeta(HexOf(second[2])).value();
  EXPECT_EQ(meta.origin, "node:n2");
  EXPECT_EQ(meta.features, (std::vector<uint32_t>{5}));
  EXPECT_EQ(meta.first_seen_unix_ms, 2000);
}

TEST(MergedCorpusTest, ReopenedItKnowsItsEntriesAndFeatures) {
  TempDir dir;
  const std::string path = dir.path() + "/store";
  {
    auto corpus = MergedCorpus::Open(path, kCampaign).value();
    std::vector<InputEntry> in = {MakeEntry("a", {1, 2}), MakeEntry("bb", {3})};
    ASSERT_EQ(corpus->Insert(in, "node:n", 1).value().added, 2u);
  }
  auto corpus = MergedCorpus::Open(path, kCampaign).value();
  MergedCorpus::Info info = corpus->info();
  EXPECT_EQ(info.entries, 2u);
  EXPECT_EQ(info.bytes, 3u);
  EXPECT_EQ(info.features, 3u);
  std::vector<InputEntry> again = {MakeEntry("a", {1, 2}), MakeEntry("c", {2, 3})};
  InsertReport r = corpus->Insert(again, "node:n", 2).value();
  EXPECT_EQ(r.duplicates, 1u);
  EXPECT_EQ(r.not_needed, 1u);
}

TEST(MergedCorpusTest, AnotherBuildIsAnotherStore) {
  TempDir dir;
  const std::string path = dir.path() + "/store";
  { auto corpus = MergedCorpus::Open(path, kCampaign).value(); }
  auto other = MergedCorpus::Open(path, {kCampaign.target, "fedcba9876543210"});
  EXPECT_FALSE(other.ok());
}

TEST(MergedCorpusTest, MaintainReducesTheCorpusToACoverWithTheSameFeatures) {
  TempDir dir;
  auto corpus = MergedCorpus::Open(dir.path() + "/store", kCampaign).value();
  // b covers a's features and one more; c covers one of its own: the cover is {b, c}.
  std::vector<InputEntry> in = {MakeEntry("a", {1, 2})};
  ASSERT_EQ(corpus->Insert(in, "node:n", 1).value().added, 1u);
  std::vector<InputEntry> more = {MakeEntry("bb", {1, 2, 3}), MakeEntry("c", {9})};
  ASSERT_EQ(corpus->Insert(more, "node:n", 2).value().added, 2u);
  MaintainReport report = corpus->Maintain(3).value();
  EXPECT_EQ(report.entries_before, 3u);
  EXPECT_EQ(report.entries_after, 2u);
  EXPECT_EQ(report.removed, 1u);
  EXPECT_EQ(report.features, 4u);
  EXPECT_EQ(Hashes(*corpus), (std::set<std::string>{HexOf(more[0]), HexOf(more[1])}));
  MergedCorpus::Info info = corpus->info();
  EXPECT_EQ(info.entries, 2u);
  EXPECT_EQ(info.bytes, 3u);
  EXPECT_EQ(info.features, 4u);
  EXPECT_EQ(info.inserted_since_maintain, 0u);
  EXPECT_EQ(info.last_maintain_unix_ms, 3);
  // The removed input is gone for good: sent again, it adds nothing.
  EXPECT_EQ(corpus->Insert(in, "node:n", 4).value().not_needed, 1u);
}

TEST(MergedCorpusTest, MaintainingAnEmptyCorpusIsHarmless) {
  TempDir dir;
  auto corpus = MergedCorpus::Open(dir.path() + "/store", kCampaign).value();
  Result<MaintainReport> report = corpus->Maintain(1);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->entries_after, 0u);
  EXPECT_EQ(corpus->info().entries, 0u);
}

TEST(MergedCorpusTest, InsertsDuringAMaintainAreKept) {
  TempDir dir;
  auto corpus = MergedCorpus::Open(dir.path() + "/store", kCampaign).value();
  std::vector<InputEntry> base;
  for (uint32_t i = 0; i < 2000; i++) base.push_back(MakeEntry("base" + std::to_string(i), {i}));
  ASSERT_EQ(corpus->Insert(base, "node:n", 1).value().added, 2000u);
  std::atomic<bool> done{false};
  std::thread maintainer([&] {
    EXPECT_TRUE(corpus->Maintain(2).ok());
    done = true;
  });
  uint32_t added = 0;
  for (uint32_t i = 0; i < 200; i++) {  // some during the merge, maybe some after
    std::vector<InputEntry> one = {MakeEntry("new" + std::to_string(i), {100000 + i})};
    added += corpus->Insert(one, "node:m", 3).value().added;
  }
  maintainer.join();
  ASSERT_TRUE(done);
  EXPECT_EQ(added, 200u);
  EXPECT_EQ(corpus->info().entries, 2200u);
  EXPECT_EQ(Hashes(*corpus).size(), 2200u);
}

// The cost of opening and maintaining a merged corpus, for docs/controller.md. Run with
//   controller_tests --gtest_also_run_disabled_tests --gtest_filter='*MeasureCost*'
// POLLEN_MEASURE_ENTRIES sets the size (default 20000).
TEST(MergedCorpusTest, DISABLED_MeasureCost) {
  const char* env = std::getenv("POLLEN_MEASURE_ENTRIES");
  const uint32_t n = env ? static_cast<uint32_t>(std::atoi(env)) : 20000;
  TempDir dir;
  const std::string path = dir.path() + "/store";
  std::mt19937 rng(1);
  uint64_t insert_ms;
  {
    auto corpus = MergedCorpus::Open(path, kCampaign).value();
    uint64_t t0 = base::MonotonicMs();
    std::vector<InputEntry> batch;
    for (uint32_t i = 0; i < n; i++) {
      // ~200 features over ~2000 counters, one unique feature each, ~500-byte inputs; each
      // odd entry also covers its predecessor's unique feature, so that about half the
      // corpus is superseded by the cover, as later finds supersede earlier ones.
      std::set<uint32_t> features{1000000 + i};
      if (i % 2 == 1) features.insert(1000000 + i - 1);
      while (features.size() < 200) features.insert((rng() % 2000) * 8 + rng() % 3);
      std::string bytes(300 + rng() % 400, 'x');
      for (char& c : bytes) c = static_cast<char>('a' + rng() % 8);
      batch.push_back(MakeEntry(bytes + std::to_string(i), {features.begin(), features.end()}));
      if (batch.size() == 64) {
        (void)corpus->Insert(batch, "node:n", 1).value();
        batch.clear();
      }
    }
    (void)corpus->Insert(batch, "node:n", 1).value();
    insert_ms = base::MonotonicMs() - t0;
    MaintainReport r = corpus->Maintain(2).value();
    std::printf(
        "entries %u: insert %llu ms (%.1f us/entry); maintain %llu ms (%llu -> %llu "
        "entries, %llu bytes on disk)\n",
        n, static_cast<unsigned long long>(insert_ms), insert_ms * 1000.0 / n,
        static_cast<unsigned long long>(r.duration_ms),
        static_cast<unsigned long long>(r.entries_before),
        static_cast<unsigned long long>(r.entries_after),
        static_cast<unsigned long long>(r.disk_bytes_after));
    uint64_t t1 = base::MonotonicMs();
    MaintainReport again = corpus->Maintain(3).value();
    std::printf("maintain again (nothing new): %llu ms\n",
                static_cast<unsigned long long>(base::MonotonicMs() - t1));
    (void)again;
  }
  uint64_t t2 = base::MonotonicMs();
  auto reopened = MergedCorpus::Open(path, kCampaign).value();
  std::printf("open (scan of the metadata): %llu ms, %llu entries, %llu features\n",
              static_cast<unsigned long long>(base::MonotonicMs() - t2),
              static_cast<unsigned long long>(reopened->info().entries),
              static_cast<unsigned long long>(reopened->info().features));
}

}  // namespace
}  // namespace pollen::controller
