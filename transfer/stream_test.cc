// StreamSender and StreamReceiver against each other, without a transport.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "transfer/record_codec.h"
#include "transfer/stream_receiver.h"
#include "transfer/stream_sender.h"
#include "transfer/transfer_test_util.h"

namespace pollen::transfer {
namespace {

using testing::MakeRecords;
using testing::MemorySink;
using testing::Pump;
using testing::Record;
using testing::VectorSource;

// Chunks carrying `stream` cut every `chunk` bytes, the last one marked.
std::vector<StreamChunk> Chunks(const std::string& stream, size_t chunk, uint64_t id = 0) {
  std::vector<StreamChunk> out;
  for (size_t at = 0, seq = 0; at < stream.size() || out.empty(); at += chunk, seq++) {
    out.push_back({id, seq, stream.substr(at, chunk), at + chunk >= stream.size()});
  }
  return out;
}

TEST(TransferStreamTest, RoundTripWithChunksSmallerAndLargerThanRecords) {
  StreamLimits limits;
  limits.max_record_bytes = 5000;
  std::vector<Record> records = MakeRecords(200, 0, 3000, 3);
  records.insert(records.begin(), {"a-empty", ""});
  records.emplace_back("z-max", std::string(limits.max_record_bytes, 'M'));
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{100}, size_t{4096}, size_t{256} << 10}) {
    for (uint32_t window : {1u, 3u, 8u}) {
      VectorSource source(records);
      MemorySink sink;
      StreamSender sender(&source, chunk, limits, 42);
      StreamReceiver receiver(&sink, limits, window, 42);
      testing::PumpResult result = Pump(sender, receiver, window);
      ASSERT_TRUE(result.status.ok()) << result.status.message();
      EXPECT_TRUE(sender.done());
      EXPECT_TRUE(receiver.done());
      EXPECT_EQ(sink.records, records) << "chunk " << chunk << " window " << window;
      EXPECT_EQ(sender.counters().records, records.size());
      EXPECT_EQ(receiver.counters().records, records.size());
      EXPECT_EQ(receiver.counters().record_bytes, sender.counters().record_bytes);
      EXPECT_EQ(receiver.counters().stream_bytes, sender.counters().stream_bytes);
      EXPECT_EQ(receiver.counters().chunks, sender.counters().chunks);
      EXPECT_EQ(receiver.last_committed(), "z-max");
      EXPECT_LE(result.max_queued, window);
    }
  }
}

TEST(TransferStreamTest, ChunksAreSlicesOfTheRecordStreamAndOnlyTheLastIsMarked) {
  const std::vector<Record> records = MakeRecords(10, 10, 50);
  std::string stream;
  for (const auto& [name, data] : records) AppendRecord(&stream, name, data);
  VectorSource source(records);
  StreamSender sender(&source, 64, {}, 9);
  sender.AddCredit(1000);
  std::string joined;
  uint64_t seq = 0;
  while (!sender.done()) {
    auto chunk = sender.NextChunk();
    ASSERT_TRUE(chunk.ok() && chunk->has_value());
    const StreamChunk& c = **chunk;
    EXPECT_EQ(c.stream_id, 9u);
    EXPECT_EQ(c.seq, seq++);
    EXPECT_EQ(c.last, joined.size() + c.data.size() == stream.size());
    if (!c.last) EXPECT_EQ(c.data.size(), 64u);
    joined += c.data;
  }
  EXPECT_EQ(joined, stream);
  EXPECT_FALSE(sender.NextChunk()->has_value());  // nothing after the last chunk
}

TEST(TransferStreamTest, AnEmptySourceGivesOneEmptyLastChunk) {
  VectorSource source({});
  StreamSender sender(&source);
  sender.AddCredit(5);
  auto chunk = sender.NextChunk();
  ASSERT_TRUE(chunk.ok() && chunk->has_value());
  EXPECT_TRUE((*chunk)->last);
  EXPECT_TRUE((*chunk)->data.empty());
  MemorySink sink;
  StreamReceiver receiver(&sink);
  receiver.InitialCredit();
  EXPECT_TRUE(receiver.OnChunk(**chunk).ok());
  EXPECT_TRUE(receiver.done());
  EXPECT_TRUE(sink.records.empty());
}

TEST(TransferStreamTest, TheSenderNeverEmitsMoreChunksThanGranted) {
  VectorSource source(MakeRecords(100, 100, 100));
  StreamSender sender(&source, 10);
  EXPECT_FALSE(sender.NextChunk()->has_value());  // no credit yet
  uint64_t emitted = 0, granted = 0;
  for (uint32_t grant : {3u, 1u, 0u, 7u, 2u}) {
    sender.AddCredit(grant);
    granted += grant;
    for (;;) {
      auto chunk = sender.NextChunk();
      ASSERT_TRUE(chunk.ok());
      if (!chunk->has_value()) break;
      emitted++;
      ASSERT_LE(emitted, granted);
    }
    EXPECT_EQ(emitted, granted);
    EXPECT_EQ(sender.credit(), 0u);
  }
  EXPECT_FALSE(sender.done());
}

TEST(TransferStreamTest, TheReceiverGrantsCreditInBatchesOfHalfTheWindow) {
  std::string stream;
  AppendRecord(&stream, "a", std::string(200, 'a'));
  const std::vector<StreamChunk> chunks = Chunks(stream, 10);
  MemorySink sink;
  StreamReceiver receiver(&sink, {}, 8);
  EXPECT_EQ(receiver.InitialCredit(), 8u);
  std::vector<uint32_t> grants;
  for (size_t i = 0; i < 12; i++) {
    ASSERT_TRUE(receiver.OnChunk(chunks[i]).ok()) << i;
    grants.push_back(receiver.TakeCredit());
  }
  EXPECT_EQ(grants, (std::vector<uint32_t>{0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4}));
  MemorySink sink1;
  StreamReceiver one(&sink1, {}, 1);
  EXPECT_EQ(one.InitialCredit(), 1u);
  for (size_t i = 0; i < 3; i++) {
    ASSERT_TRUE(one.OnChunk(chunks[i]).ok());
    EXPECT_EQ(one.TakeCredit(), 1u);
  }
}

TEST(TransferStreamTest, TheSenderRefusesRecordsTheReceiverWouldRefuse) {
  StreamLimits limits;
  limits.max_record_bytes = 100;
  const struct {
    std::vector<Record> records;
    const char* message;
  } cases[] = {
      {{{"a", "1"}, {"../etc/passwd", "x"}}, "record 2 to send: invalid record name"},
      {{{"/abs", "x"}}, "record 1 to send: invalid record name \"/abs\": absolute path"},
      {{{std::string("a\0b", 3), "x"}}, "contains a NUL byte"},
      {{{std::string(256, 'n'), "x"}}, "256 bytes, more than the limit of 255"},
      {{{"big", std::string(101, 'b')}},
       "record 1 to send \"big\": 101 bytes, more than the limit of 100"},
      {{{"b", "1"}, {"a", "2"}},
       "record 2 to send \"a\" comes after \"b\": names must be in ascending order"},
      {{{"b", "1"}, {"b", "2"}}, "names must be in ascending order"},
  };
  for (const auto& c : cases) {
    VectorSource source(c.records);
    StreamSender sender(&source, 1 << 10, limits);
    sender.AddCredit(10);
    auto chunk = sender.NextChunk();
    ASSERT_FALSE(chunk.ok());
    EXPECT_NE(chunk.status().message().find(c.message), std::string::npos)
        << chunk.status().message();
    EXPECT_FALSE(sender.NextChunk().ok());  // the error stays
  }
}

TEST(TransferStreamTest, TheReceiverRefusesInvalidNamesAndCommitsNothingAfter) {
  const std::vector<std::string> bad_names = {"../x", "/x", std::string("x\0", 2),
                                              std::string(256, 'x')};
  for (const std::string& bad : bad_names) {
    std::string stream;
    AppendRecord(&stream, "a", "1");
    AppendRecord(&stream, bad, "2");
    AppendRecord(&stream, "zz", "3");
    MemorySink sink;
    StreamReceiver receiver(&sink);
    receiver.InitialCredit();
    Status s;
    for (const StreamChunk& chunk : Chunks(stream, 4)) {
      if (s = receiver.OnChunk(chunk); !s.ok()) break;
    }
    ASSERT_FALSE(s.ok()) << PrintableName(bad);
    EXPECT_NE(s.message().find("record 2 at stream offset 10:"), std::string::npos) << s.message();
    EXPECT_EQ(sink.records, (std::vector<Record>{{"a", "1"}}));
    EXPECT_FALSE(receiver.done());
    EXPECT_EQ(receiver.TakeCredit(), 0u);
  }
}

TEST(TransferStreamTest, TheReceiverRefusesNamesOutOfOrder) {
  std::string stream;
  AppendRecord(&stream, "b", "1");
  AppendRecord(&stream, "a", "2");
  MemorySink sink;
  StreamReceiver receiver(&sink);
  receiver.InitialCredit();
  Status s = receiver.OnChunk(StreamChunk{0, 0, stream, true});
  EXPECT_EQ(s.message(), "record 2 \"a\" comes after \"b\": names must be in ascending order");
  EXPECT_EQ(sink.records.size(), 1u);
}

TEST(TransferStreamTest, TheReceiverChecksSequenceCreditStreamAndChunkSize) {
  std::string stream;
  AppendRecord(&stream, "a", std::string(100, 'a'));
  const auto run = [&](uint32_t window, const std::vector<StreamChunk>& chunks,
                       size_t max_chunk = 1 << 20) {
    MemorySink sink;
    StreamLimits limits;
    limits.max_chunk_bytes = max_chunk;
    StreamReceiver receiver(&sink, limits, window, 5);
    receiver.InitialCredit();
    for (const StreamChunk& chunk : chunks) {
      if (Status s = receiver.OnChunk(chunk); !s.ok()) return s.message();
    }
    return std::string("ok");
  };
  std::vector<StreamChunk> chunks = Chunks(stream, 10, 5);
  EXPECT_EQ(run(100, chunks), "ok");
  EXPECT_EQ(run(3, chunks), "chunk 3 was sent without credit");
  std::vector<StreamChunk> skipped = chunks;
  skipped.erase(skipped.begin() + 2);
  EXPECT_EQ(run(100, skipped), "chunk 3 arrived where chunk 2 was expected (lost or reordered)");
  std::vector<StreamChunk> other = chunks;
  other[1].stream_id = 6;
  EXPECT_EQ(run(100, other), "chunk 1 of stream 6, expected stream 5");
  EXPECT_EQ(run(100, chunks, 9), "chunk 0 has 10 bytes, more than the limit of 9");
  std::vector<StreamChunk> extra = chunks;
  extra.push_back({5, chunks.size(), "", true});
  EXPECT_EQ(run(100, extra), "chunk " + std::to_string(chunks.size()) + " after the last chunk");
}

TEST(TransferStreamTest, ATruncatedStreamFailsAndKeepsWhatWasCommitted) {
  std::string stream;
  AppendRecord(&stream, "a", "first");
  AppendRecord(&stream, "b", "second");
  AppendRecord(&stream, "c", "third, cut short");
  stream.resize(stream.size() - 5);
  MemorySink sink;
  StreamReceiver receiver(&sink);
  receiver.InitialCredit();
  Status s;
  for (const StreamChunk& chunk : Chunks(stream, 8)) {
    s = receiver.OnChunk(chunk);
    if (!s.ok()) break;
    receiver.TakeCredit();
  }
  EXPECT_EQ(s.message(),
            "truncated stream: it ends inside record 3 at stream offset 29 (name \"c\", 11 of "
            "its 16 data bytes received)");
  EXPECT_EQ(sink.records, (std::vector<Record>{{"a", "first"}, {"b", "second"}}));
  EXPECT_FALSE(receiver.done());
  EXPECT_EQ(receiver.last_committed(), "b");
}

TEST(TransferStreamTest, ASinkErrorStopsTheStreamAndNamesTheRecord) {
  VectorSource source(MakeRecords(10, 5, 5));
  MemorySink sink(4);
  StreamSender sender(&source, 16);
  StreamReceiver receiver(&sink);
  testing::PumpResult result = Pump(sender, receiver, kDefaultWindow);
  EXPECT_EQ(result.status.message(), "record 5 \"rec-000004\": disk full (test)");
  EXPECT_EQ(sink.records.size(), 4u);
}

// The receiver's memory: each chunk is consumed within OnChunk; what it holds between
// chunks is at most one incomplete record. With at most `window` chunks in flight (checked
// by Pump), the receiving side holds at most window × chunk + one record.
TEST(TransferStreamTest, TheReceiverBuffersAtMostOneRecord) {
  StreamLimits limits;
  limits.max_record_bytes = 1 << 20;
  std::vector<Record> records = MakeRecords(20, 0, 200 << 10, 5);
  records.emplace_back("z-largest", std::string(limits.max_record_bytes, 'L'));
  size_t largest = 0;
  for (const auto& r : records) largest = std::max(largest, r.first.size() + r.second.size());
  const size_t chunk = 4096;
  const uint32_t window = 8;
  VectorSource source(records);
  MemorySink sink;
  StreamSender sender(&source, chunk, limits);
  StreamReceiver receiver(&sink, limits, window);
  testing::PumpResult result = Pump(sender, receiver, window);
  ASSERT_TRUE(result.status.ok()) << result.status.message();
  EXPECT_EQ(sink.records.size(), records.size());
  EXPECT_LE(result.max_queued, window);
  EXPECT_LE(receiver.max_buffered_bytes(), kRecordHeaderBytes + largest);
  EXPECT_GT(receiver.max_buffered_bytes(), limits.max_record_bytes);  // the big one was buffered
  EXPECT_LE(result.max_queued * chunk + receiver.max_buffered_bytes(),
            window * chunk + kRecordHeaderBytes + largest);
}

TEST(TransferStreamTest, AnInterruptedTransferResumesAfterTheLastCommittedName) {
  const std::vector<Record> records = MakeRecords(10000, 0, 64, 11);
  MemorySink sink;
  {  // the first attempt stops half way: the connection dropped
    VectorSource source(records);
    StreamSender sender(&source, 1000);
    StreamReceiver receiver(&sink);
    testing::PumpResult result = Pump(sender, receiver, kDefaultWindow, 200);
    ASSERT_TRUE(result.status.ok());
    ASSERT_FALSE(receiver.done());
    ASSERT_GT(sink.records.size(), 1000u);
    ASSERT_LT(sink.records.size(), 9000u);
    EXPECT_EQ(receiver.last_committed(), sink.records.back().first);
  }
  const std::string cursor = sink.records.back().first;
  VectorSource source(records, cursor);
  StreamSender sender(&source, 1000);
  StreamReceiver receiver(&sink);
  testing::PumpResult result = Pump(sender, receiver, kDefaultWindow);
  ASSERT_TRUE(result.status.ok()) << result.status.message();
  EXPECT_EQ(sink.records, records);  // each exactly once, in order
}

}  // namespace
}  // namespace pollen::transfer
