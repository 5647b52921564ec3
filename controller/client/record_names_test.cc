#include "controller/client/record_names.h"

#include <gtest/gtest.h>

#include "base/sha1.h"

namespace pollen::controller {
namespace {

TEST(RecordNamesTest, ResourcesParseAndBadOnesAreExplained) {
  Result<ParsedResource> r = ParseResource(CorpusResource("json"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->kind, ParsedResource::Kind::kCorpus);
  EXPECT_EQ(r->campaign.name, "json");
  EXPECT_EQ(r->campaign.build_id, "");
  r = ParseResource(EntriesResource("json", "b1"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, ParsedResource::Kind::kEntries);
  EXPECT_EQ(r->campaign.build_id, "b1");
  r = ParseResource(PushedResource("json"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, ParsedResource::Kind::kPushed);
  for (const char* bad : {"corpus/", "corpus/../x", "corpus/json/../up", "corpus/.hidden",
                          "pushed/json/b1", "crashes/json", "", "corpus"}) {
    Result<ParsedResource> refused = ParseResource(bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.status().message().find("unknown stream resource"), std::string::npos);
  }
}

TEST(RecordNamesTest, PushedNamesAscendWithTheirNumbersAndCursorsFallBetween) {
  base::Digest a{}, b{};
  a.fill(0xff);
  b.fill(0x00);
  const std::string first = PushedRecordName(1, a), second = PushedRecordName(2, b);
  EXPECT_EQ(first, "0000000000000001-" + std::string(40, 'f'));
  EXPECT_LT(first, second);
  EXPECT_LT(first, PushedCursorAfter(1));
  EXPECT_LT(PushedCursorAfter(1), second);
  EXPECT_EQ(PushedCursorAfter(0), "");
  uint64_t seq;
  base::Digest hash;
  ASSERT_TRUE(ParsePushedRecordName(second, &seq, &hash));
  EXPECT_EQ(seq, 2u);
  EXPECT_EQ(hash, b);
  EXPECT_FALSE(ParsePushedRecordName("0000000000000001_" + std::string(40, 'f'), &seq, &hash));
  EXPECT_FALSE(ParsePushedRecordName("000000000000000G-" + std::string(40, 'f'), &seq, &hash));
  EXPECT_FALSE(ParsePushedRecordName(PushedCursorAfter(3), &seq, &hash));
  EXPECT_EQ(base::ParseDigestHex(base::DigestHex(a)), a);
}

TEST(RecordNamesTest, EntryRecordsCarryFeaturesAndInput) {
  std::string record;
  EncodeEntryRecord({3, 70, 1000000}, std::string("in\0put", 6), &record);
  std::vector<uint32_t> features;
  std::string_view input;
  ASSERT_TRUE(DecodeEntryRecord(record, 1 << 20, &features, &input).ok());
  EXPECT_EQ(features, (std::vector<uint32_t>{3, 70, 1000000}));
  EXPECT_EQ(input, std::string_view("in\0put", 6));
  EncodeEntryRecord({}, "", &record);
  ASSERT_TRUE(DecodeEntryRecord(record, 1 << 20, &features, &input).ok());
  EXPECT_TRUE(features.empty());
  EXPECT_TRUE(input.empty());
  EXPECT_FALSE(DecodeEntryRecord("abc", 1 << 20, &features, &input).ok());
  EXPECT_FALSE(DecodeEntryRecord(std::string("\x09\0\0\0ab", 6), 1 << 20, &features, &input).ok());
  EncodeEntryRecord({1, 2, 3}, "x", &record);
  EXPECT_FALSE(DecodeEntryRecord(record, 2, &features, &input).ok());  // too many features
}

}  // namespace
}  // namespace pollen::controller
