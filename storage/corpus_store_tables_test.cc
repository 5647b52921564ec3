// CorpusStore's counter tables: entries written before and after a Compact, across reopens,
// while a Compact runs, after an interrupted one, and in stores of the first format.
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "storage/corpus_store.h"
#include "storage/record_codec.h"
#include "storage/store_test_util.h"

namespace pollen::storage {
namespace {

// Features shaped like a real target's: every entry hits most of a common set of counters
// (with varying buckets) and a few rarer ones. `shift` moves the common set.
std::vector<uint32_t> TargetLikeFeatures(std::mt19937_64& rng, uint32_t shift) {
  std::vector<uint32_t> features;
  for (uint32_t counter = shift; counter < shift + 60; ++counter) {
    if (rng() % 8 != 0) features.push_back(counter * 8 + static_cast<uint32_t>(rng() % 3));
  }
  for (int i = 0; i < 5; ++i) features.push_back((5000 + rng() % 3000) * 8 + rng() % 8);
  std::sort(features.begin(), features.end());
  return features;
}

class CorpusStoreTablesTest : public testing::Test {
 protected:
  std::unique_ptr<CorpusStore> Open(bool read_only = false) {
    StoreOptions options;
    options.read_only = read_only;
    return OpenOrFail(path_, campaign_, options);
  }

  // Puts `n` entries with TargetLikeFeatures(shift) and remembers their features.
  void PutEntries(CorpusStore& store, int n, uint32_t shift) {
    for (int i = 0; i < n; ++i) {
      const std::string input = "input " + std::to_string(next_++);
      EntryMeta meta = MetaFor(input, TargetLikeFeatures(rng_, shift));
      const std::vector<uint8_t> bytes = Bytes(input);
      ASSERT_TRUE(store.PutEntry(input, bytes.data(), bytes.size(), meta).ok());
      expected_[input] = meta.features;
    }
  }

  // Every entry of `store`, through GetMeta and ForEachEntry, has the features it was put
  // with.
  void ExpectAllFeatures(const CorpusStore& store) {
    std::map<std::string, std::vector<uint32_t>> seen;
    Status s = store.ForEachEntry([&](std::string_view hash, const EntryMeta& meta) {
      seen[std::string(hash)] = meta.features;
      return true;
    });
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(seen == expected_)
        << seen.size() << " entries seen, " << expected_.size() << " expected";
    for (const auto& [hash, features] : expected_) {
      Result<EntryMeta> meta = store.GetMeta(hash);
      ASSERT_TRUE(meta.ok()) << meta.status().message();
      EXPECT_EQ(meta->features, features) << hash;
    }
  }

  // The table id every stored entry refers to (0: v1), read past CorpusStore.
  std::map<uint64_t, int> TableIdsOnDisk() {
    std::map<uint64_t, int> ids;
    WithRawColumnFamily(path_, "meta", [&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
      std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), cf));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        Result<uint64_t> id =
            EntryMetaTableId(std::string_view(it->value().data(), it->value().size()));
        ASSERT_TRUE(id.ok()) << id.status().message();
        ++ids[*id];
      }
    });
    return ids;
  }

  std::optional<std::string> Campaign(const std::string& key) {
    return RawRead(path_, "campaign", key);
  }

  ScratchDir dir_;
  const std::string path_ = dir_.Sub("store");
  const CampaignId campaign_{"json_parser", "build-1"};
  std::mt19937_64 rng_{42};
  int next_ = 0;
  std::map<std::string, std::vector<uint32_t>> expected_;
};

TEST_F(CorpusStoreTablesTest, EntriesBeforeAndAfterCompactionsKeepTheirFeatures) {
  {
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    PutEntries(*store, 40, 0);
    ExpectAllFeatures(*store);
  }
  EXPECT_EQ(TableIdsOnDisk(), (std::map<uint64_t, int>{{0, 40}}));  // v1 until a Compact
  EXPECT_FALSE(Campaign("counter_table/1").has_value());
  {
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Compact().ok());
    ExpectAllFeatures(*store);
    PutEntries(*store, 10, 0);  // written over the table straight away
    ExpectAllFeatures(*store);
  }
  EXPECT_EQ(TableIdsOnDisk(), (std::map<uint64_t, int>{{1, 50}}));
  ASSERT_TRUE(Campaign("counter_table/1").has_value());
  Result<CounterTable> table = DecodeCounterTable(*Campaign("counter_table/1"));
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_EQ(table->counters.size(), 60u);  // the common counters, none of the rare ones
  {
    std::unique_ptr<CorpusStore> reader = Open(/*read_only=*/true);
    ASSERT_NE(reader, nullptr);
    ExpectAllFeatures(*reader);
  }
  {
    // Entries of another shape take over: the next Compact chooses a new table, rewrites
    // every entry over it and deletes the old one.
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    PutEntries(*store, 150, 1000);
    ASSERT_TRUE(store->Compact().ok());
    ExpectAllFeatures(*store);
  }
  EXPECT_EQ(TableIdsOnDisk(), (std::map<uint64_t, int>{{2, 200}}));
  EXPECT_FALSE(Campaign("counter_table/1").has_value());
  EXPECT_TRUE(Campaign("counter_table/2").has_value());
  {
    // Nothing changed: the table is kept.
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Compact().ok());
    ExpectAllFeatures(*store);
  }
  EXPECT_EQ(TableIdsOnDisk(), (std::map<uint64_t, int>{{2, 200}}));
}

TEST_F(CorpusStoreTablesTest, AStoreWithoutCommonCountersStaysV1) {
  std::unique_ptr<CorpusStore> store = Open();
  ASSERT_NE(store, nullptr);
  PutEntries(*store, 1, 0);  // one entry: no counter is hit by two
  ASSERT_TRUE(store->Compact().ok());
  ExpectAllFeatures(*store);
  store.reset();
  EXPECT_EQ(TableIdsOnDisk(), (std::map<uint64_t, int>{{0, 1}}));
}

TEST_F(CorpusStoreTablesTest, AFormat1StoreIsReadAndUpgradedByItsFirstTable) {
  {
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    PutEntries(*store, 30, 0);
  }
  RawWrite(path_, "campaign", "format_version", "1");  // as the first pollen wrote it
  {
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    ExpectAllFeatures(*store);
  }
  EXPECT_EQ(Campaign("format_version"), "1");  // opening alone changes nothing
  {
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Compact().ok());
    ExpectAllFeatures(*store);
  }
  EXPECT_EQ(Campaign("format_version"), std::to_string(kStoreFormatVersion));
}

TEST_F(CorpusStoreTablesTest, AnInterruptedCompactLeavesAReadableStore) {
  {
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    PutEntries(*store, 30, 0);
    ASSERT_TRUE(store->Compact().ok());  // table 1, every entry over it
  }
  // What a Compact killed halfway leaves: a newer table, and some entries over it.
  const CounterTable newer{2, {0, 1, 2, 3, 7000}};
  RawWrite(path_, "campaign", "counter_table/2", EncodeCounterTable(newer));
  int moved = 0;
  for (const auto& [hash, features] : expected_) {
    if (++moved > 10) break;
    EntryMeta meta = MetaFor(hash, features);
    RawWrite(path_, "meta", hash, EncodeEntryMeta(meta, newer));
  }
  EXPECT_EQ(TableIdsOnDisk(), (std::map<uint64_t, int>{{1, 20}, {2, 10}}));
  {
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    ExpectAllFeatures(*store);
    PutEntries(*store, 5, 0);  // over table 2, the newest
    ExpectAllFeatures(*store);
    ASSERT_TRUE(store->Compact().ok());
    ExpectAllFeatures(*store);
  }
  EXPECT_EQ(TableIdsOnDisk(), (std::map<uint64_t, int>{{3, 35}}));
  EXPECT_FALSE(Campaign("counter_table/1").has_value());
  EXPECT_FALSE(Campaign("counter_table/2").has_value());
}

TEST_F(CorpusStoreTablesTest, MissingOrCorruptTablesAreErrors) {
  {
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    PutEntries(*store, 20, 0);
    ASSERT_TRUE(store->Compact().ok());
  }
  const std::string table = *Campaign("counter_table/1");
  RawWrite(path_, "campaign", "counter_table/1", std::nullopt);
  {
    std::unique_ptr<CorpusStore> store = Open();
    ASSERT_NE(store, nullptr);
    const std::string hash = expected_.begin()->first;
    ExpectErrorMentions(store->GetMeta(hash).status(), {path_, hash, "counter table 1"});
    ExpectErrorMentions(
        store->ForEachEntry([](std::string_view, const EntryMeta&) { return true; }),
        {path_, "counter table 1"});
  }
  RawWrite(path_, "campaign", "counter_table/1", "garbage");
  ExpectErrorMentions(CorpusStore::Open(path_, campaign_, {}).status(),
                      {path_, "corrupted", "counter_table/1"});
  RawWrite(path_, "campaign", "counter_table/1", table);
  RawWrite(path_, "campaign", "counter_table/4", table);  // holds table 1
  ExpectErrorMentions(CorpusStore::Open(path_, campaign_, {}).status(),
                      {path_, "corrupted", "counter_table/4", "holds counter table 1"});
}

TEST_F(CorpusStoreTablesTest, PutsDuringCompactionsAreKept) {
  std::unique_ptr<CorpusStore> store = Open();
  ASSERT_NE(store, nullptr);
  PutEntries(*store, 50, 0);
  // Odd while a Compact runs. A put that starts and ends with the same odd value ran inside
  // one compaction: the writer goes on (past its 300 entries, up to kMaxPuts) until one has.
  constexpr int kMaxPuts = 20000;
  std::atomic<uint64_t> compaction_phase{0};
  std::atomic<bool> done{false};
  int overlapped = 0, puts = 0;
  std::map<std::string, std::vector<uint32_t>> put;
  std::thread writer([&] {
    std::mt19937_64 rng(7);
    for (; puts < kMaxPuts && (puts < 300 || overlapped == 0); ++puts) {
      const std::string input = "concurrent " + std::to_string(puts);
      const EntryMeta meta = MetaFor(input, TargetLikeFeatures(rng, puts < 150 ? 0 : 1000));
      const std::vector<uint8_t> bytes = Bytes(input);
      const uint64_t before = compaction_phase.load();
      EXPECT_TRUE(store->PutEntry(input, bytes.data(), bytes.size(), meta).ok());
      if (before % 2 == 1 && compaction_phase.load() == before) ++overlapped;
      put[input] = meta.features;
    }
    done = true;
  });
  int compactions = 0;
  while (!done || compactions < 2) {
    compaction_phase.fetch_add(1);
    ASSERT_TRUE(store->Compact().ok());
    compaction_phase.fetch_add(1);
    ++compactions;
  }
  writer.join();
  EXPECT_GE(overlapped, 1) << "no put ran inside a compaction in " << puts << " puts and "
                           << compactions << " compactions";
  expected_.insert(put.begin(), put.end());
  ExpectAllFeatures(*store);
  ASSERT_TRUE(store->Compact().ok());
  store.reset();
  std::unique_ptr<CorpusStore> reopened = Open();
  ASSERT_NE(reopened, nullptr);
  ExpectAllFeatures(*reopened);
}

}  // namespace
}  // namespace pollen::storage
