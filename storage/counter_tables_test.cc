#include "storage/counter_tables.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "storage/record_codec.h"

namespace pollen::storage {
namespace {

EntryMeta WithFeatures(std::vector<uint32_t> features) {
  EntryMeta meta;
  meta.size = 3;
  meta.origin = "seed";
  meta.features = std::move(features);
  return meta;
}

TEST(CounterTablesTest, EncodesOverTheCurrentTableAndDecodesOverAnyAdded) {
  CounterTables tables;
  EXPECT_EQ(tables.current(), nullptr);
  EXPECT_EQ(tables.max_id(), 0u);
  const EntryMeta meta = WithFeatures({8, 17, 18, 800});
  const std::string plain = tables.Encode(meta);
  EXPECT_EQ(plain, EncodeEntryMeta(meta));

  tables.Add({1, {1, 2}});
  tables.Add({2, {2, 100}});
  EXPECT_EQ(tables.max_id(), 2u);
  tables.SetCurrent(1);
  const std::string over_1 = tables.Encode(meta);
  EXPECT_EQ(EntryMetaTableId(over_1).value(), 1u);
  tables.SetCurrent(2);
  const std::string over_2 = tables.Encode(meta);
  EXPECT_EQ(EntryMetaTableId(over_2).value(), 2u);
  for (const std::string& bytes : {plain, over_1, over_2}) {
    Result<EntryMeta> decoded = tables.Decode(bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.status().message();
    EXPECT_EQ(decoded->features, meta.features);
  }
  tables.SetCurrent(0);
  EXPECT_EQ(tables.Encode(meta), plain);

  CounterTables other;  // knows no table: v2 records are errors, v1 ones decode
  EXPECT_FALSE(other.Decode(over_1).ok());
  EXPECT_TRUE(other.Decode(plain).ok());
}

TEST(CounterTableChooserTest, TakesCountersHitBySixteenthOfEntriesAndAtLeastTwo) {
  CounterTableChooser chooser;
  EXPECT_TRUE(chooser.Counters().empty());
  // 32 entries: counter 1 in all, counter 2 (two buckets each) in 2 = 1/16, counter 3 in 1.
  for (int i = 0; i < 32; ++i) {
    std::vector<uint32_t> features = {1 * 8 + 0};
    if (i < 2) features.insert(features.end(), {2 * 8 + 1, 2 * 8 + 4});
    if (i == 5) features.push_back(3 * 8);
    chooser.Add(features);
  }
  EXPECT_EQ(chooser.Counters(), (std::vector<uint32_t>{1, 2}));

  CounterTableChooser single;  // one entry: nothing is hit by two
  single.Add({8, 16, 24});
  EXPECT_TRUE(single.Counters().empty());
}

TEST(CounterTableChooserTest, KeepsTheMostHitCountersWhenThereAreTooMany) {
  constexpr uint32_t kCounters = CounterTableChooser::kMaxCounters + 10;
  std::vector<uint32_t> all;
  for (uint32_t c = 0; c < kCounters; ++c) all.push_back(c * 8);
  CounterTableChooser chooser;
  chooser.Add(all);
  chooser.Add(all);
  chooser.Add({(kCounters - 1) * 8});  // the last counter is hit most
  const std::vector<uint32_t> counters = chooser.Counters();
  ASSERT_EQ(counters.size(), CounterTableChooser::kMaxCounters);
  EXPECT_EQ(counters.back(), kCounters - 1);
  // The others tie: the smaller counters win.
  EXPECT_EQ(counters.front(), 0u);
  EXPECT_EQ(counters[counters.size() - 2], CounterTableChooser::kMaxCounters - 2);
}

}  // namespace
}  // namespace pollen::storage
