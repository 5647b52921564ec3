#include "storage/record_codec.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace pollen::storage {
namespace {

EntryMeta SampleMeta() {
  EntryMeta meta;
  meta.size = 12345;
  meta.features = {0, 1, 1, 300, 70000, std::numeric_limits<uint32_t>::max()};
  meta.exec_time_us = 987;
  meta.origin = "mutator:crossover";
  meta.first_seen_unix_ms = -42;  // negative values must survive zigzag
  return meta;
}

CrashRecord SampleCrash() {
  CrashRecord record;
  record.kind = "heap-buffer-overflow";
  record.input = {0x00, 0xff, 0x10, 0x80};
  record.report = "==1==ERROR: AddressSanitizer: heap-buffer-overflow";
  record.count = 3;
  record.first_seen_unix_ms = std::numeric_limits<int64_t>::min();
  record.last_seen_unix_ms = std::numeric_limits<int64_t>::max();
  return record;
}

TEST(VarintTest, RoundTripsBoundaryValues) {
  for (uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{16383},
                         uint64_t{16384}, std::numeric_limits<uint64_t>::max()}) {
    std::string bytes;
    AppendVarint(value, &bytes);
    std::string_view in = bytes;
    Result<uint64_t> decoded = ReadVarint(&in, "value");
    ASSERT_TRUE(decoded.ok()) << decoded.status().message();
    EXPECT_EQ(*decoded, value);
    EXPECT_TRUE(in.empty());
  }
}

TEST(VarintTest, RejectsNonMinimalOverlongAndTruncated) {
  for (std::string bytes : {std::string("\x80\x00", 2), std::string("\x80"),
                            std::string(10, '\xff') + "\x01", std::string(9, '\xff') + "\x02"}) {
    std::string_view in = bytes;
    EXPECT_FALSE(ReadVarint(&in, "value").ok()) << "accepted " << bytes.size() << " bytes";
  }
}

TEST(RecordCodecTest, EntryMetaRoundTrips) {
  const EntryMeta meta = SampleMeta();
  Result<EntryMeta> decoded = DecodeEntryMeta(EncodeEntryMeta(meta));
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->size, meta.size);
  EXPECT_EQ(decoded->features, meta.features);
  EXPECT_EQ(decoded->exec_time_us, meta.exec_time_us);
  EXPECT_EQ(decoded->origin, meta.origin);
  EXPECT_EQ(decoded->first_seen_unix_ms, meta.first_seen_unix_ms);
}

TEST(RecordCodecTest, EmptyEntryMetaRoundTrips) {
  Result<EntryMeta> decoded = DecodeEntryMeta(EncodeEntryMeta(EntryMeta{}));
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_TRUE(decoded->features.empty());
  EXPECT_TRUE(decoded->origin.empty());
}

TEST(RecordCodecTest, CrashRecordRoundTrips) {
  const CrashRecord record = SampleCrash();
  Result<CrashRecord> decoded = DecodeCrashRecord(EncodeCrashRecord(record));
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->kind, record.kind);
  EXPECT_EQ(decoded->input, record.input);
  EXPECT_EQ(decoded->report, record.report);
  EXPECT_EQ(decoded->count, record.count);
  EXPECT_EQ(decoded->first_seen_unix_ms, record.first_seen_unix_ms);
  EXPECT_EQ(decoded->last_seen_unix_ms, record.last_seen_unix_ms);
}

TEST(RecordCodecTest, FeaturesAreDeltaEncoded) {
  EntryMeta meta;
  for (uint32_t i = 0; i < 1000; ++i) meta.features.push_back(1000000 + i);
  // 1000 features one apart: the first delta takes 3 bytes, every other one 1 byte.
  EXPECT_LT(EncodeEntryMeta(meta).size(), 1020u);
}

TEST(RecordCodecTest, EveryTruncationIsAnError) {
  const std::string meta = EncodeEntryMeta(SampleMeta());
  for (size_t len = 0; len < meta.size(); ++len) {
    EXPECT_FALSE(DecodeEntryMeta(std::string_view(meta).substr(0, len)).ok()) << len;
  }
  const std::string crash = EncodeCrashRecord(SampleCrash());
  for (size_t len = 0; len < crash.size(); ++len) {
    EXPECT_FALSE(DecodeCrashRecord(std::string_view(crash).substr(0, len)).ok()) << len;
  }
}

TEST(RecordCodecTest, TrailingBytesAndNewerVersionsAreErrors) {
  EXPECT_FALSE(DecodeEntryMeta(EncodeEntryMeta(SampleMeta()) + "x").ok());
  EXPECT_FALSE(DecodeCrashRecord(EncodeCrashRecord(SampleCrash()) + "x").ok());
  std::string newer = EncodeEntryMeta(SampleMeta());
  newer[0] = static_cast<char>(kEntryMetaVersion + 1);
  Result<EntryMeta> decoded = DecodeEntryMeta(newer);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("newer pollen"), std::string::npos)
      << decoded.status().message();
}

TEST(RecordCodecTest, HugeDeclaredCountsAreErrorsNotAllocations) {
  std::string bytes(1, '\x01');
  AppendVarint(1, &bytes);                  // size
  AppendVarint(1, &bytes);                  // exec time
  AppendVarint(0, &bytes);                  // first seen
  AppendVarint(0, &bytes);                  // empty origin
  AppendVarint(uint64_t{1} << 60, &bytes);  // feature count no buffer could hold
  bytes += "\x01\x01";
  EXPECT_FALSE(DecodeEntryMeta(bytes).ok());

  std::string crash(1, static_cast<char>(kCrashRecordVersion));
  AppendVarint(uint64_t{1} << 62, &crash);  // kind length
  crash += "abc";
  EXPECT_FALSE(DecodeCrashRecord(crash).ok());
}

TEST(RecordCodecTest, FeatureBeyond32BitsIsAnError) {
  std::string bytes(1, '\x01');
  for (int i = 0; i < 4; ++i) AppendVarint(0, &bytes);  // size, exec, seen, origin
  AppendVarint(2, &bytes);
  AppendVarint(std::numeric_limits<uint32_t>::max(), &bytes);
  AppendVarint(1, &bytes);  // max + 1
  EXPECT_FALSE(DecodeEntryMeta(bytes).ok());
}

// Tables for the v2 tests: an odd number of counters (the last slot byte has an unused
// high nibble), an even one, and an empty one.
const CounterTable kOddTable{7, {0, 1, 2, 5, 9, 100, 4096}};
const CounterTable kEvenTable{8, {3, 4, 1000, (1u << 29) - 1}};
const CounterTable kEmptyTable{9, {}};

const CounterTable* FindTable(uint64_t id) {
  for (const CounterTable* table : {&kOddTable, &kEvenTable, &kEmptyTable}) {
    if (table->id == id) return table;
  }
  return nullptr;
}

// Re-encodes `meta` the way `bytes` was written: v1, or v2 over the same table.
std::string ReencodeLike(const EntryMeta& meta, std::string_view bytes) {
  Result<uint64_t> table_id = EntryMetaTableId(bytes);
  EXPECT_TRUE(table_id.ok()) << table_id.status().message();
  if (!table_id.ok() || *table_id == 0) return EncodeEntryMeta(meta);
  return EncodeEntryMeta(meta, *FindTable(*table_id));
}

void ExpectSameMeta(const EntryMeta& a, const EntryMeta& b) {
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.features, b.features);
  EXPECT_EQ(a.exec_time_us, b.exec_time_us);
  EXPECT_EQ(a.origin, b.origin);
  EXPECT_EQ(a.first_seen_unix_ms, b.first_seen_unix_ms);
}

// Features as a target produces them: one bucket per counter hit (counter * 8 + bucket),
// plus what the format must also keep: duplicates, several buckets of one counter, the
// largest feature.
std::vector<uint32_t> Features(std::initializer_list<std::pair<uint32_t, uint32_t>> hits) {
  std::vector<uint32_t> features;
  for (const auto& [counter, bucket] : hits) features.push_back(counter * 8 + bucket);
  std::sort(features.begin(), features.end());
  return features;
}

TEST(RecordCodecV1Test, RecordsWrittenByEarlierPollenStillDecode) {
  // Bytes as the first pollen wrote them (version 1): size 5, exec time 2, first seen -3
  // (zigzag 5), origin "x", features {1, 3, 3, 300}.
  const std::string v1("\x01\x05\x02\x05\x01x\x04\x01\x02\x00\xa9\x02", 12);
  for (const CounterTableLookup& tables : {CounterTableLookup{}, CounterTableLookup(FindTable)}) {
    Result<EntryMeta> meta = DecodeEntryMeta(v1, tables);
    ASSERT_TRUE(meta.ok()) << meta.status().message();
    EXPECT_EQ(meta->size, 5u);
    EXPECT_EQ(meta->exec_time_us, 2u);
    EXPECT_EQ(meta->first_seen_unix_ms, -3);
    EXPECT_EQ(meta->origin, "x");
    EXPECT_EQ(meta->features, (std::vector<uint32_t>{1, 3, 3, 300}));
  }
  EXPECT_EQ(EncodeEntryMeta(DecodeEntryMeta(v1).value()), v1);
  EXPECT_EQ(EntryMetaTableId(v1).value(), 0u);
}

TEST(RecordCodecV2Test, LayoutIsAsDocumented) {
  EntryMeta meta;
  meta.size = 5;
  meta.exec_time_us = 2;
  meta.first_seen_unix_ms = -3;
  meta.origin = "x";
  // Counter 1 bucket 3 and counter 5 bucket 0 go to slots 1 and 3; counter 5 bucket 2 (a
  // second bucket) and counter 6 (not in the table) are extras.
  meta.features = Features({{1, 3}, {5, 0}, {5, 2}, {6, 1}});
  const std::string expected(
      "\x02\x05\x02\x05\x01x"  // header as in v1
      "\x07"                   // table id
      "\x40\x10\x00\x00"       // slots: 0,4 | 0,1 | 0,0 | 0,(unused)
      "\x02\x2a\x07",          // extras 42 = 5*8+2, 49 = 6*8+1
      14);
  EXPECT_EQ(EncodeEntryMeta(meta, kOddTable), expected);
  Result<EntryMeta> decoded = DecodeEntryMeta(expected, FindTable);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  ExpectSameMeta(*decoded, meta);
  EXPECT_EQ(EntryMetaTableId(expected).value(), 7u);
}

TEST(RecordCodecV2Test, RoundTripsOverEveryTable) {
  const std::vector<std::vector<uint32_t>> feature_lists = {
      {},
      Features({{0, 0}}),
      Features({{0, 7}, {1, 0}, {2, 1}, {5, 2}, {9, 3}, {100, 4}, {4096, 5}}),  // every slot
      Features({{3, 0}, {4, 7}, {1000, 1}, {(1u << 29) - 1, 7}}),  // the largest feature
      Features({{0, 1}, {0, 1}, {0, 1}, {0, 2}, {0, 0}}),          // repeats, three buckets
      Features({{6, 0}, {7, 1}, {8, 2}, {4097, 3}}),               // none in the tables
      {0, 1, 1, 300, 70000, std::numeric_limits<uint32_t>::max()},
  };
  for (const CounterTable* table : {&kOddTable, &kEvenTable, &kEmptyTable}) {
    for (const std::vector<uint32_t>& features : feature_lists) {
      EntryMeta meta = SampleMeta();
      meta.features = features;
      const std::string bytes = EncodeEntryMeta(meta, *table);
      Result<EntryMeta> decoded = DecodeEntryMeta(bytes, FindTable);
      ASSERT_TRUE(decoded.ok()) << decoded.status().message();
      ExpectSameMeta(*decoded, meta);
      EXPECT_EQ(EntryMetaTableId(bytes).value(), table->id);
    }
  }
}

TEST(RecordCodecV2Test, RandomFeatureListsRoundTrip) {
  std::mt19937_64 rng(5);
  CounterTable table{3, {}};
  for (uint32_t c = 0; c < 500; ++c) {
    if (rng() % 3 == 0) table.counters.push_back(c);
  }
  for (int i = 0; i < 2000; ++i) {
    EntryMeta meta;
    const int n = static_cast<int>(rng() % 200);
    for (int j = 0; j < n; ++j) meta.features.push_back(static_cast<uint32_t>(rng() % 5000));
    std::sort(meta.features.begin(), meta.features.end());
    const std::string bytes = EncodeEntryMeta(meta, table);
    Result<EntryMeta> decoded =
        DecodeEntryMeta(bytes, [&](uint64_t id) { return id == 3 ? &table : nullptr; });
    ASSERT_TRUE(decoded.ok()) << decoded.status().message();
    ASSERT_EQ(decoded->features, meta.features);
  }
}

TEST(RecordCodecV2Test, AMissingTableIsAnErrorNamingIt) {
  const std::string bytes = EncodeEntryMeta(SampleMeta(), kOddTable);
  for (const CounterTableLookup& tables :
       {CounterTableLookup{}, CounterTableLookup([](uint64_t) { return nullptr; })}) {
    Result<EntryMeta> decoded = DecodeEntryMeta(bytes, tables);
    ASSERT_FALSE(decoded.ok());
    EXPECT_NE(decoded.status().message().find("counter table 7"), std::string::npos)
        << decoded.status().message();
  }
}

// A v2 record over kOddTable with header "\x02\x00\x00\x00\x00" and the given rest.
Result<EntryMeta> DecodeV2(std::string_view rest) {
  return DecodeEntryMeta(std::string("\x02\x00\x00\x00\x00", 5) + std::string(rest), FindTable);
}

TEST(RecordCodecV2Test, NonCanonicalAndInvalidSlotsAreErrors) {
  ASSERT_TRUE(DecodeV2(std::string("\x07\x40\x10\x00\x00\x00", 6)).ok());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {std::string("\x00\x00", 2), "table id 0"},
      {std::string("\x07\x40\x10\x00", 4), "truncated slots"},
      {std::string("\x07\x09\x00\x00\x00\x00", 6), "slot 0 holds 9"},
      {std::string("\x07\x00\x00\x00\xf0\x00", 6), "unused last slot"},
      {std::string("\x07\x00\x00\x00\x10\x00", 6), "unused last slot"},
      // Counter 1 (slot 1) holds bucket 3; an extra of bucket 2 should have been the slot.
      {std::string("\x07\x40\x00\x00\x00\x01\x0a", 7), "belongs in slot 1"},
      // Counter 2 (slot 2) is empty, yet an extra has it.
      {std::string("\x07\x00\x00\x00\x00\x01\x10", 7), "belongs in slot 2"},
      {std::string("\x07\x00\x00\x00\x00\x05\x01", 7), "exceeds"},
      {std::string("\x07\x00\x00\x00\x00\x00\x00", 7), "trailing"},
  };
  for (const auto& [rest, message] : bad) {
    Result<EntryMeta> decoded = DecodeV2(rest);
    ASSERT_FALSE(decoded.ok()) << message;
    EXPECT_NE(decoded.status().message().find(message), std::string::npos)
        << decoded.status().message();
  }
  // A duplicate of the slot's feature, and a larger bucket of the same counter, are fine.
  Result<EntryMeta> extra = DecodeV2(std::string("\x07\x40\x00\x00\x00\x02\x0b\x01", 8));
  ASSERT_TRUE(extra.ok()) << extra.status().message();
  EXPECT_EQ(extra->features, (std::vector<uint32_t>{11, 11, 12}));
}

TEST(RecordCodecV2Test, EveryTruncationIsAnError) {
  EntryMeta meta = SampleMeta();
  meta.features = Features({{0, 1}, {5, 2}, {5, 3}, {7, 0}, {4096, 4}});
  const std::string bytes = EncodeEntryMeta(meta, kOddTable);
  for (size_t len = 0; len < bytes.size(); ++len) {
    EXPECT_FALSE(DecodeEntryMeta(std::string_view(bytes).substr(0, len), FindTable).ok()) << len;
  }
  EXPECT_FALSE(DecodeEntryMeta(bytes + "x", FindTable).ok());
}

TEST(RecordCodecTest, TableIdOfGarbageIsAnError) {
  EXPECT_FALSE(EntryMetaTableId("").ok());
  EXPECT_FALSE(EntryMetaTableId("\x03").ok());
  EXPECT_FALSE(EntryMetaTableId(std::string("\x02\x00\x00\x00\x00", 5)).ok());
  EXPECT_FALSE(EntryMetaTableId(std::string("\x02\x00\x00\x00\x05", 5)).ok());
}

TEST(CounterTableCodecTest, RoundTripsAndPinsTheLayout) {
  for (const CounterTable* table : {&kOddTable, &kEvenTable, &kEmptyTable}) {
    Result<CounterTable> decoded = DecodeCounterTable(EncodeCounterTable(*table));
    ASSERT_TRUE(decoded.ok()) << decoded.status().message();
    EXPECT_EQ(decoded->id, table->id);
    EXPECT_EQ(decoded->counters, table->counters);
  }
  EXPECT_EQ(EncodeCounterTable({300, {2, 3, 200}}),
            std::string("\x01\xac\x02\x03\x02\x01\xc5\x01"));
}

TEST(CounterTableCodecTest, GarbageIsAnError) {
  const std::string good = EncodeCounterTable(kOddTable);
  for (size_t len = 0; len < good.size(); ++len) {
    EXPECT_FALSE(DecodeCounterTable(std::string_view(good).substr(0, len)).ok()) << len;
  }
  const std::vector<std::pair<std::string, std::string>> bad = {
      {good + "x", "trailing"},
      {std::string("\x02\x01\x00", 3), "newer pollen"},
      {std::string("\x01\x00\x00", 3), "invalid id 0"},
      {std::string("\x01\x01\x02\x05\x00", 5), "repeats"},
      {std::string("\x01\x01\x01\x80\x80\x80\x80\x02", 8), "not below"},  // 2^29
      {std::string("\x01\x01\x10\x01", 4), "exceeds"},
  };
  for (const auto& [bytes, message] : bad) {
    Result<CounterTable> decoded = DecodeCounterTable(bytes);
    ASSERT_FALSE(decoded.ok()) << message;
    EXPECT_NE(decoded.status().message().find(message), std::string::npos)
        << decoded.status().message();
  }
}

// The encoding is canonical, so whatever garbage happens to decode must re-encode to the
// same bytes: this catches decoders that accept and silently "fix" bad input.
TEST(RecordCodecTest, RandomBytesNeverCrashAndOnlyCanonicalInputDecodes) {
  std::mt19937_64 rng(1234);
  int decoded_meta = 0;
  int decoded_crash = 0;
  int decoded_table = 0;
  for (int i = 0; i < 30000; ++i) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 4 == 0 ? rng() % 16 : rng());
    if (!bytes.empty() && rng() % 2 == 0) bytes[0] = static_cast<char>(1 + rng() % 2);
    if (Result<EntryMeta> meta = DecodeEntryMeta(bytes, FindTable); meta.ok()) {
      ++decoded_meta;
      EXPECT_EQ(ReencodeLike(*meta, bytes), bytes);
    }
    if (Result<CrashRecord> crash = DecodeCrashRecord(bytes); crash.ok()) {
      ++decoded_crash;
      EXPECT_EQ(EncodeCrashRecord(*crash), bytes);
    }
    if (Result<CounterTable> table = DecodeCounterTable(bytes); table.ok()) {
      ++decoded_table;
      EXPECT_EQ(EncodeCounterTable(*table), bytes);
    }
  }
  // Sanity: the loop exercised the decoders past the version byte at least sometimes.
  EXPECT_LT(decoded_meta + decoded_crash + decoded_table, 30000);
}

TEST(RecordCodecTest, MutatedValidRecordsNeverCrash) {
  std::mt19937_64 rng(99);
  EntryMeta laid_out_meta = SampleMeta();
  laid_out_meta.features = Features({{0, 1}, {2, 2}, {5, 2}, {5, 3}, {7, 0}, {100, 6}});
  const std::string metas[] = {EncodeEntryMeta(SampleMeta()),
                               EncodeEntryMeta(laid_out_meta, kOddTable),
                               EncodeEntryMeta(laid_out_meta, kEvenTable)};
  const std::string crash = EncodeCrashRecord(SampleCrash());
  const std::string table = EncodeCounterTable(kOddTable);
  for (int i = 0; i < 10000; ++i) {
    std::string m = metas[i % 3];
    std::string c = crash;
    std::string t = table;
    for (int flips = 1 + rng() % 3; flips > 0; --flips) {
      m[rng() % m.size()] = static_cast<char>(rng());
      c[rng() % c.size()] = static_cast<char>(rng());
      t[rng() % t.size()] = static_cast<char>(rng());
    }
    if (Result<EntryMeta> decoded = DecodeEntryMeta(m, FindTable); decoded.ok()) {
      EXPECT_EQ(ReencodeLike(*decoded, m), m);
    }
    if (Result<CrashRecord> decoded = DecodeCrashRecord(c); decoded.ok()) {
      EXPECT_EQ(EncodeCrashRecord(*decoded), c);
    }
    if (Result<CounterTable> decoded = DecodeCounterTable(t); decoded.ok()) {
      EXPECT_EQ(EncodeCounterTable(*decoded), t);
    }
  }
}

}  // namespace
}  // namespace pollen::storage
