// CorpusStore data operations: entries, crashes, persistence, stats.
// Opening, campaign checks and concurrency are in corpus_store_open_test.cc.
#include "storage/corpus_store.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "storage/store_test_util.h"

namespace pollen::storage {
namespace {

class CorpusStoreTest : public testing::Test {
 protected:
  std::unique_ptr<CorpusStore> OpenStore(const StoreOptions& options = {}) {
    return OpenOrFail(path_, campaign_, options);
  }

  ScratchDir dir_;
  const std::string path_ = dir_.Sub("store");
  const CampaignId campaign_{"png_decoder", "build-1"};
};

CrashRecord Crash(std::string_view input, std::string_view report, int64_t when) {
  CrashRecord record;
  record.kind = "heap-buffer-overflow";
  record.input = Bytes(input);
  record.report = std::string(report);
  record.count = 1;
  record.first_seen_unix_ms = when;
  record.last_seen_unix_ms = when;
  return record;
}

TEST_F(CorpusStoreTest, PutGetRoundTrip) {
  std::unique_ptr<CorpusStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const std::vector<uint8_t> input = {0x00, 0xff, 'P', 'N', 'G', 0x00};
  EntryMeta meta;
  meta.size = input.size();
  meta.features = {3, 5, 900, 4000000000u};
  meta.exec_time_us = 123;
  meta.origin = "mutator:insert";
  meta.first_seen_unix_ms = 1700000000123;
  ASSERT_TRUE(store->PutEntry("hash-1", input.data(), input.size(), meta).ok());

  EXPECT_TRUE(store->HasEntry("hash-1"));
  EXPECT_FALSE(store->HasEntry("hash-2"));
  Result<std::vector<uint8_t>> got = store->GetInput("hash-1");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, input);
  Result<EntryMeta> got_meta = store->GetMeta("hash-1");
  ASSERT_TRUE(got_meta.ok()) << got_meta.status().message();
  EXPECT_EQ(got_meta->size, meta.size);
  EXPECT_EQ(got_meta->features, meta.features);
  EXPECT_EQ(got_meta->exec_time_us, meta.exec_time_us);
  EXPECT_EQ(got_meta->origin, meta.origin);
  EXPECT_EQ(got_meta->first_seen_unix_ms, meta.first_seen_unix_ms);
  EXPECT_EQ(store->campaign().target, "png_decoder");
  std::string read = "previous contents";
  ASSERT_TRUE(store->ReadInput("hash-1", &read).ok());
  EXPECT_EQ(read, std::string(input.begin(), input.end()));
}

TEST_F(CorpusStoreTest, MissingEntryIsAnErrorNamingTheHash) {
  std::unique_ptr<CorpusStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ExpectErrorMentions(store->GetInput("absent-hash").status(), {"absent-hash", path_});
  std::string read;
  ExpectErrorMentions(store->ReadInput("absent-hash", &read), {"absent-hash", path_});
  ExpectErrorMentions(store->GetMeta(std::string("\x01\x02", 2)).status(), {"0x0102"});
}

TEST_F(CorpusStoreTest, PutEntryRejectsInconsistentArguments) {
  std::unique_ptr<CorpusStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const std::vector<uint8_t> input = Bytes("abc");
  EntryMeta meta = MetaFor("abc");
  ExpectErrorMentions(store->PutEntry("", input.data(), input.size(), meta), {"empty"});
  meta.size = 4;
  ExpectErrorMentions(store->PutEntry("h", input.data(), input.size(), meta), {"meta.size"});
  meta = MetaFor("abc", {5, 2});
  ExpectErrorMentions(store->PutEntry("h", input.data(), input.size(), meta), {"not sorted"});
  EXPECT_FALSE(store->HasEntry("h"));
}

TEST_F(CorpusStoreTest, ReopenPersists) {
  {
    std::unique_ptr<CorpusStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(PutText(*store, "kept", "persistent input").ok());
    ASSERT_TRUE(store->PutCrash("sig", Crash("boom", "report", 5)).ok());
  }  // closed without Flush: the WAL must carry the writes
  std::unique_ptr<CorpusStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Result<std::vector<uint8_t>> got = store->GetInput("kept");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, Bytes("persistent input"));
  Result<EntryMeta> meta = store->GetMeta("kept");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->features, (std::vector<uint32_t>{1, 2, 3}));
  Result<std::optional<CrashRecord>> crash = store->GetCrash("sig");
  ASSERT_TRUE(crash.ok()) << crash.status().message();
  ASSERT_TRUE(crash->has_value());
  EXPECT_EQ((*crash)->input, Bytes("boom"));
}

TEST_F(CorpusStoreTest, ForEachEntryVisitsAllInHashOrderAndCanStop) {
  std::unique_ptr<CorpusStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  for (int i = 49; i >= 0; --i) {
    char hash[16];
    std::snprintf(hash, sizeof(hash), "h%03d", i);
    ASSERT_TRUE(PutText(*store, hash, "input " + std::to_string(i)).ok());
  }
  std::vector<std::string> seen;
  uint64_t sizes = 0;
  ASSERT_TRUE(store
                  ->ForEachEntry([&](std::string_view hash, const EntryMeta& meta) {
                    seen.emplace_back(hash);
                    sizes += meta.size;
                    return true;
                  })
                  .ok());
  ASSERT_EQ(seen.size(), 50u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.front(), "h000");
  EXPECT_EQ(sizes, 10 * 7u + 40 * 8u);  // "input 0".."input 9", then two-digit numbers

  int visited = 0;
  ASSERT_TRUE(
      store->ForEachEntry([&](std::string_view, const EntryMeta&) { return ++visited < 10; }).ok());
  EXPECT_EQ(visited, 10);
}

TEST_F(CorpusStoreTest, DeleteEntryRemovesInputAndMeta) {
  std::unique_ptr<CorpusStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(PutText(*store, "a", "first").ok());
  ASSERT_TRUE(PutText(*store, "b", "second").ok());
  ASSERT_TRUE(store->DeleteEntry("a").ok());
  EXPECT_TRUE(store->DeleteEntry("never-there").ok());
  EXPECT_FALSE(store->HasEntry("a"));
  EXPECT_FALSE(store->GetInput("a").ok());
  EXPECT_FALSE(store->GetMeta("a").ok());
  EXPECT_TRUE(store->HasEntry("b"));
  Result<CorpusStore::Stats> stats = store->GetStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->entries, 1u);
  EXPECT_EQ(stats->raw_bytes, 6u);
}

TEST_F(CorpusStoreTest, CrashMergingCountsAndKeepsSmallerInput) {
  std::unique_ptr<CorpusStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->PutCrash("sig-1", Crash("a long crashing input", "long report", 100)).ok());
  CrashRecord smaller = Crash("tiny", "tiny report", 200);
  smaller.kind = "some other kind";
  ASSERT_TRUE(store->PutCrash("sig-1", smaller).ok());

  Result<std::optional<CrashRecord>> got = store->GetCrash("sig-1");
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_TRUE(got->has_value());
  const CrashRecord& merged = **got;
  EXPECT_EQ(merged.count, 2u);
  EXPECT_EQ(merged.input, Bytes("tiny"));
  EXPECT_EQ(merged.report, "tiny report");
  EXPECT_EQ(merged.kind, "heap-buffer-overflow");
  EXPECT_EQ(merged.first_seen_unix_ms, 100);
  EXPECT_EQ(merged.last_seen_unix_ms, 200);

  ASSERT_TRUE(store->PutCrash("sig-1", Crash("a larger input again", "big", 300)).ok());
  got = store->GetCrash("sig-1");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->count, 3u);
  EXPECT_EQ((*got)->input, Bytes("tiny"));
  EXPECT_EQ((*got)->last_seen_unix_ms, 300);

  ASSERT_TRUE(store->PutCrash("sig-2", Crash("x", "r", 1)).ok());
  std::vector<std::string> signatures;
  ASSERT_TRUE(store
                  ->ForEachCrash([&](std::string_view signature, const CrashRecord&) {
                    signatures.emplace_back(signature);
                    return true;
                  })
                  .ok());
  EXPECT_EQ(signatures, (std::vector<std::string>{"sig-1", "sig-2"}));
}

TEST_F(CorpusStoreTest, UnknownCrashIsNulloptNotError) {
  std::unique_ptr<CorpusStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Result<std::optional<CrashRecord>> got = store->GetCrash("never-seen");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_FALSE(got->has_value());
  EXPECT_FALSE(store->PutCrash("", Crash("x", "r", 1)).ok());
}

// Text-like inputs (as a text-format target's corpus would hold) compress well: after a
// compaction the SST files must be smaller than the raw inputs.
TEST_F(CorpusStoreTest, StatsCountEntriesCrashesAndCompressedDiskBytes) {
  std::unique_ptr<CorpusStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  static const char* const kWords[] = {
      "<html>", "<body>", "div",   "class=", "\"main\"", "span", "the",  "quick",
      "brown",  "fox",    "jumps", "over",   "lazy",     "dog",  "</p>", "{",
      "}",      "key:",   "value", "1234",   "true",     "null", "[",    "]"};
  std::mt19937 rng(7);
  uint64_t raw = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string text;
    const size_t target_size = 100 + rng() % 400;
    while (text.size() < target_size) {
      text += kWords[rng() % std::size(kWords)];
      text += ' ';
    }
    raw += text.size();
    ASSERT_TRUE(PutText(*store, "entry-" + std::to_string(i), text).ok());
  }
  ASSERT_TRUE(store->PutCrash("c1", Crash("x", "r", 1)).ok());
  ASSERT_TRUE(store->PutCrash("c2", Crash("y", "r", 1)).ok());
  ASSERT_TRUE(store->Compact().ok());

  Result<CorpusStore::Stats> stats = store->GetStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->entries, 2000u);
  EXPECT_EQ(stats->raw_bytes, raw);
  EXPECT_EQ(stats->crashes, 2u);
  EXPECT_GT(stats->disk_bytes, 0u);
  EXPECT_LT(stats->disk_bytes, stats->raw_bytes);
  std::printf("stats: %llu entries, raw %llu bytes, disk %llu bytes\n",
              static_cast<unsigned long long>(stats->entries),
              static_cast<unsigned long long>(stats->raw_bytes),
              static_cast<unsigned long long>(stats->disk_bytes));
}

}  // namespace
}  // namespace pollen::storage
