#include "storage/record_codec.h"

#include <cstdint>
#include <limits>
#include <random>
#include <string>

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
  newer[0] = static_cast<char>(kRecordVersion + 1);
  Result<EntryMeta> decoded = DecodeEntryMeta(newer);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("newer pollen"), std::string::npos)
      << decoded.status().message();
}

TEST(RecordCodecTest, HugeDeclaredCountsAreErrorsNotAllocations) {
  std::string bytes(1, static_cast<char>(kRecordVersion));
  AppendVarint(1, &bytes);                  // size
  AppendVarint(1, &bytes);                  // exec time
  AppendVarint(0, &bytes);                  // first seen
  AppendVarint(0, &bytes);                  // empty origin
  AppendVarint(uint64_t{1} << 60, &bytes);  // feature count no buffer could hold
  bytes += "\x01\x01";
  EXPECT_FALSE(DecodeEntryMeta(bytes).ok());

  std::string crash(1, static_cast<char>(kRecordVersion));
  AppendVarint(uint64_t{1} << 62, &crash);  // kind length
  crash += "abc";
  EXPECT_FALSE(DecodeCrashRecord(crash).ok());
}

TEST(RecordCodecTest, FeatureBeyond32BitsIsAnError) {
  std::string bytes(1, static_cast<char>(kRecordVersion));
  for (int i = 0; i < 4; ++i) AppendVarint(0, &bytes);  // size, exec, seen, origin
  AppendVarint(2, &bytes);
  AppendVarint(std::numeric_limits<uint32_t>::max(), &bytes);
  AppendVarint(1, &bytes);  // max + 1
  EXPECT_FALSE(DecodeEntryMeta(bytes).ok());
}

// The encoding is canonical, so whatever garbage happens to decode must re-encode to the
// same bytes: this catches decoders that accept and silently "fix" bad input.
TEST(RecordCodecTest, RandomBytesNeverCrashAndOnlyCanonicalInputDecodes) {
  std::mt19937_64 rng(1234);
  int decoded_meta = 0;
  int decoded_crash = 0;
  for (int i = 0; i < 10000; ++i) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (!bytes.empty() && rng() % 2 == 0) bytes[0] = static_cast<char>(kRecordVersion);
    if (Result<EntryMeta> meta = DecodeEntryMeta(bytes); meta.ok()) {
      ++decoded_meta;
      EXPECT_EQ(EncodeEntryMeta(*meta), bytes);
    }
    if (Result<CrashRecord> crash = DecodeCrashRecord(bytes); crash.ok()) {
      ++decoded_crash;
      EXPECT_EQ(EncodeCrashRecord(*crash), bytes);
    }
  }
  // Sanity: the loop exercised the decoders past the version byte at least sometimes.
  EXPECT_LT(decoded_meta + decoded_crash, 10000);
}

TEST(RecordCodecTest, MutatedValidRecordsNeverCrash) {
  std::mt19937_64 rng(99);
  const std::string meta = EncodeEntryMeta(SampleMeta());
  const std::string crash = EncodeCrashRecord(SampleCrash());
  for (int i = 0; i < 10000; ++i) {
    std::string m = meta;
    std::string c = crash;
    for (int flips = 1 + rng() % 3; flips > 0; --flips) {
      m[rng() % m.size()] = static_cast<char>(rng());
      c[rng() % c.size()] = static_cast<char>(rng());
    }
    if (Result<EntryMeta> decoded = DecodeEntryMeta(m); decoded.ok()) {
      EXPECT_EQ(EncodeEntryMeta(*decoded), m);
    }
    if (Result<CrashRecord> decoded = DecodeCrashRecord(c); decoded.ok()) {
      EXPECT_EQ(EncodeCrashRecord(*decoded), c);
    }
  }
}

}  // namespace
}  // namespace pollen::storage
