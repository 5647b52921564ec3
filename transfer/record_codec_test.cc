#include "transfer/record_codec.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "transfer/transfer_test_util.h"

namespace pollen::transfer {
namespace {

using testing::MakeRecords;
using testing::Record;

std::string Encode(const std::vector<Record>& records) {
  std::string out;
  for (const auto& [name, data] : records) AppendRecord(&out, name, data);
  return out;
}

// Feeds `stream` in pieces cut at `cuts` (offsets) and collects the records.
Status Parse(RecordParser& parser, std::string_view stream, const std::vector<size_t>& cuts,
             std::vector<Record>* out) {
  const auto keep = [out](std::string_view name, std::string_view data) {
    out->emplace_back(std::string(name), std::string(data));
    return Status::Ok();
  };
  size_t at = 0;
  for (size_t cut : cuts) {
    if (Status s = parser.Feed(stream.substr(at, cut - at), keep); !s.ok()) return s;
    at = cut;
  }
  if (Status s = parser.Feed(stream.substr(at), keep); !s.ok()) return s;
  return parser.Finish();
}

TEST(TransferRecordCodecTest, AppendRecordWritesLittleEndianLengthsNameAndData) {
  std::string out = "x";
  AppendRecord(&out, "ab", "cde");
  EXPECT_EQ(out, std::string("x\x02\x00\x00\x00\x03\x00\x00\x00"
                             "abcde",
                             14));
  std::string big;
  AppendRecordHeader(&big, "n", 0x01020304);
  EXPECT_EQ(big, std::string("\x01\x00\x00\x00\x04\x03\x02\x01n", 9));
}

TEST(TransferRecordCodecTest, RoundTripInOnePieceByteByByteAndAtRandomCuts) {
  std::vector<Record> records = MakeRecords(50, 0, 300);
  records.emplace_back("zz-empty", "");
  const std::string stream = Encode(records);
  std::mt19937 rng(7);
  std::vector<std::vector<size_t>> splits = {{}};
  std::vector<size_t> every_byte;
  for (size_t i = 1; i < stream.size(); i++) every_byte.push_back(i);
  splits.push_back(every_byte);
  for (int round = 0; round < 20; round++) {
    std::vector<size_t> cuts;
    for (size_t at = rng() % 100; at < stream.size(); at += 1 + rng() % 200) cuts.push_back(at);
    splits.push_back(cuts);
  }
  for (const auto& cuts : splits) {
    RecordParser parser;
    std::vector<Record> out;
    ASSERT_TRUE(Parse(parser, stream, cuts, &out).ok());
    EXPECT_EQ(out, records);
    EXPECT_EQ(parser.records(), records.size());
    EXPECT_EQ(parser.bytes_fed(), stream.size());
    EXPECT_EQ(parser.buffered_bytes(), 0u);
  }
}

TEST(TransferRecordCodecTest, RecordsOfExactlyTheLimitPass) {
  StreamLimits limits;
  limits.max_record_bytes = 1000;
  limits.max_name_bytes = 10;
  const std::vector<Record> records = {{"0123456789", std::string(1000, 'm')}, {"b", ""}};
  RecordParser parser(limits);
  std::vector<Record> out;
  ASSERT_TRUE(Parse(parser, Encode(records), {3, 500}, &out).ok());
  EXPECT_EQ(out, records);
}

TEST(TransferRecordCodecTest, AnOversizedRecordIsRejectedBeforeItsDataIsBuffered) {
  StreamLimits limits;
  limits.max_record_bytes = 1000;
  std::string stream;
  AppendRecord(&stream, "ok", "fine");
  AppendRecord(&stream, "big", std::string(1001, 'b'));
  for (size_t piece : {size_t{1}, size_t{5}, stream.size()}) {
    RecordParser parser(limits);
    std::vector<std::string> names;
    Status s;
    for (size_t at = 0; at < stream.size() && s.ok(); at += piece) {
      s = parser.Feed(std::string_view(stream).substr(at, piece),
                      [&](std::string_view name, std::string_view) {
                        names.emplace_back(name);
                        return Status::Ok();
                      });
    }
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.message(),
              "record 2 at stream offset 14: data size 1001 exceeds the limit of 1000 bytes");
    EXPECT_EQ(names, std::vector<std::string>{"ok"});
    EXPECT_LE(parser.buffered_bytes(), kRecordHeaderBytes) << "piece " << piece;
    EXPECT_LT(parser.max_buffered_bytes(), 1001u) << "piece " << piece;
  }
}

TEST(TransferRecordCodecTest, ALongNameIsRejectedBeforeItIsBuffered) {
  std::string stream;
  AppendRecord(&stream, std::string(256, 'n'), "data");
  RecordParser parser;
  Status s;
  for (size_t at = 0; at < stream.size() && s.ok(); at++) {
    s = parser.Feed(std::string_view(stream).substr(at, 1),
                    [](std::string_view, std::string_view) { return Status::Ok(); });
  }
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "record 1 at stream offset 0: name length 256 exceeds the limit of 255 bytes");
  EXPECT_LE(parser.max_buffered_bytes(), kRecordHeaderBytes);
}

TEST(TransferRecordCodecTest, InvalidNamesAreRejectedBeforeTheirDataIsBuffered) {
  const std::vector<std::string> bad_names = {"../escape", "/abs", std::string("a\0b", 3), ""};
  for (const std::string& bad : bad_names) {
    std::string stream;
    AppendRecord(&stream, "good", "1");
    AppendRecord(&stream, bad, std::string(5000, 'd'));
    for (size_t piece : {size_t{1}, size_t{100}, stream.size()}) {
      RecordParser parser;
      int calls = 0;
      Status s;
      for (size_t at = 0; at < stream.size() && s.ok(); at += piece) {
        s = parser.Feed(std::string_view(stream).substr(at, piece),
                        [&](std::string_view, std::string_view) {
                          calls++;
                          return Status::Ok();
                        });
      }
      ASSERT_FALSE(s.ok()) << PrintableName(bad);
      EXPECT_NE(s.message().find("record 2 at stream offset 13: invalid record name"),
                std::string::npos)
          << s.message();
      EXPECT_EQ(calls, 1);
      EXPECT_LE(parser.buffered_bytes(), kRecordHeaderBytes + bad.size());
      EXPECT_LT(parser.max_buffered_bytes(), 5000u);
    }
  }
}

TEST(TransferRecordCodecTest, ATruncatedStreamIsAnErrorThatSaysWhere) {
  std::string stream;
  AppendRecord(&stream, "first", "11111");
  AppendRecord(&stream, "second", "2222222222");
  const size_t second = 8 + 5 + 5;
  const struct {
    size_t length;
    const char* message;
  } cases[] = {
      {second + 3,
       "truncated stream: it ends inside record 2 at stream offset 18 (3 of its 8 header bytes "
       "received)"},
      {second + 8 + 2,
       "truncated stream: it ends inside record 2 at stream offset 18 (2 of its 6 name bytes "
       "received)"},
      {second + 8 + 6 + 4,
       "truncated stream: it ends inside record 2 at stream offset 18 (name \"second\", 4 of its "
       "10 data bytes received)"},
  };
  for (const auto& c : cases) {
    RecordParser parser;
    std::vector<Record> out;
    Status s = Parse(parser, std::string_view(stream).substr(0, c.length), {7}, &out);
    EXPECT_EQ(s.message(), c.message);
    ASSERT_EQ(out.size(), 1u);  // the record before the cut was delivered
    EXPECT_EQ(out[0], Record("first", "11111"));
  }
}

TEST(TransferRecordCodecTest, AfterAnErrorNothingMoreIsDelivered) {
  std::string stream;
  for (const char* name : {"a", "b", "c", "d"}) AppendRecord(&stream, name, "x");
  RecordParser parser;
  std::vector<std::string> names;
  const auto keep = [&](std::string_view name, std::string_view) {
    names.emplace_back(name);
    return name == "b" ? Status::Error("sink full") : Status::Ok();
  };
  Status s = parser.Feed(stream, keep);
  EXPECT_EQ(s.message(), "sink full");
  EXPECT_EQ(parser.Feed(stream, keep).message(), "sink full");
  EXPECT_EQ(parser.Finish().message(), "sink full");
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(parser.records(), 1u);
}

}  // namespace
}  // namespace pollen::transfer
