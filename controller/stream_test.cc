// Corpus streams through an in-process controller on loopback TCP with CURVE: push from a
// directory and pull into another, interrupted transfers resumed, pushed inputs counted in
// heartbeats and pulled after a cursor, kept over a restart and through a merge.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "controller/client/record_names.h"
#include "controller/client/stream_client.h"
#include "controller/stream_test_util.h"
#include "transfer/directory_records.h"
#include "transfer/transfer_test_util.h"

namespace pollen::controller {
namespace {

using namespace ::pollen::controller::testing;  // NOLINT: test helpers
using transfer::testing::MemorySink;

class StreamTest : public StreamControllerTest {
 protected:
  void Restart() {
    node_.reset();
    controller_.reset();
    Start();
  }

  Result<PushResult> PushDir(const std::string& dir, const std::string& push_id = "push-test") {
    return PushStream(client_, CampaignRef{"json", ""}, push_id, DirectoryOpener(dir));
  }

  Result<transfer::TransferCounters> PullDir(const std::string& dir, const std::string& resource,
                                             const std::string& after = "") {
    transfer::DirectorySinkOptions options;
    options.sync = false;
    auto sink = transfer::DirectorySink::Open(dir, options);
    if (!sink.ok()) return sink.status();
    return PullStream(client_, resource, after, sink->get());
  }

  // The status, taken once per turn of the controller's loop, shows one failed stream and
  // none running (the counters only grow: a stale status cannot pass for this one).
  bool OneFailedNoneActive() {
    const StreamCounters c = (*controller_)->status().streams;
    return c.failed == 1 && c.active == 0;
  }

  uint64_t PushedSeq() {
    auto reply = node_->Call<HeartbeatReply>(HeartbeatRequest{"node-a", {}}, kStreamTimeoutMs);
    EXPECT_TRUE(reply.ok()) << reply.status().message();
    return reply.ok() ? reply->pushed_seq : 0;
  }
};

TEST_F(StreamTest, TenThousandFilesPushedFromADirectoryArePulledIntoAnotherWithTheSameBytes) {
  Start();
  const std::string seeds = data_.path() + "/seeds", pulled = data_.path() + "/pulled";
  WriteCorpusDir(seeds, 10000, 64, 1200);
  Result<PushResult> pushed = PushDir(seeds);
  ASSERT_TRUE(pushed.ok()) << pushed.status().message();
  EXPECT_EQ(pushed->counters.records, 10000u);
  EXPECT_EQ(pushed->resumed_after, "");
  EXPECT_EQ(PushedSeq(), 10000u);

  Result<transfer::TransferCounters> got = PullDir(pulled, CorpusResource("json"));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->records, 10000u);
  EXPECT_EQ(ContentsByHash(pulled), ContentsByHash(seeds));
  EXPECT_EQ(CountFiles(pulled), 10000u);  // named by SHA-1: as many files as contents
  // The pull's end reaches the controller after PullStream returned.
  EXPECT_TRUE(WaitUntil([&] { return (*controller_)->status().streams.completed == 2; }));
  EXPECT_EQ((*controller_)->status().streams.failed, 0u);
  EXPECT_EQ((*controller_)->status().streams.active, 0u);

  // Pushing the same directory again adds nothing new.
  ASSERT_TRUE(PushDir(seeds).ok());
  EXPECT_EQ(PushedSeq(), 10000u);
  auto info = node_->Call<CorpusInfoReply>(CorpusInfoRequest{{"json", ""}}, kStreamTimeoutMs);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->pushed_entries, 10000u);
  EXPECT_EQ(info->pull_entries, 10000u);
}

TEST_F(StreamTest, APullStoppedAfterNRecordsResumesAfterItsLastCommittedName) {
  Start();
  const std::string seeds = data_.path() + "/seeds";
  WriteCorpusDir(seeds, 10000, 64, 600);
  ASSERT_TRUE(PushDir(seeds).ok());

  MemorySink first(/*fail_after=*/4321);
  Result<transfer::TransferCounters> stopped =
      PullStream(client_, CorpusResource("json"), "", &first);
  ASSERT_FALSE(stopped.ok());
  EXPECT_NE(stopped.status().message().find("disk full (test)"), std::string::npos)
      << stopped.status().message();
  ASSERT_EQ(first.records.size(), 4321u);

  MemorySink second;
  Result<transfer::TransferCounters> rest =
      PullStream(client_, CorpusResource("json"), first.records.back().first, &second);
  ASSERT_TRUE(rest.ok()) << rest.status().message();
  EXPECT_EQ(second.records.size(), 10000u - 4321u);  // nothing sent twice
  std::map<std::string, std::string> all;
  for (const auto& sink : {&first, &second}) {
    for (const auto& [name, data] : sink->records) all[name] = data;
  }
  EXPECT_EQ(all.size(), 10000u);
  EXPECT_EQ(all, ContentsByHash(seeds));
  // The failed stream was ended on the controller too.
  EXPECT_TRUE(WaitUntil([&] { return OneFailedNoneActive(); }));
}

// A source that fails after `limit` records: a push interrupted on the client's side.
class FailingSource : public transfer::RecordSource {
 public:
  FailingSource(std::unique_ptr<transfer::RecordSource> inner, size_t limit)
      : inner_(std::move(inner)), limit_(limit) {}
  Result<bool> Next(std::string* name, std::string* data) override {
    if (given_++ == limit_) return Status::Error("interrupted (test)");
    return inner_->Next(name, data);
  }

 private:
  std::unique_ptr<transfer::RecordSource> inner_;
  size_t limit_;
  size_t given_ = 0;
};

TEST_F(StreamTest, AnInterruptedPushResumesAfterTheLastRecordTheControllerCommitted) {
  Start();
  const std::string seeds = data_.path() + "/seeds";
  WriteCorpusDir(seeds, 10000, 64, 600);
  const PushSourceOpener failing =
      [&](const std::string& after) -> Result<std::unique_ptr<transfer::RecordSource>> {
    auto source = DirectoryOpener(seeds)(after);
    if (!source.ok()) return source.status();
    return std::unique_ptr<transfer::RecordSource>(
        new FailingSource(std::move(source).value(), 6000));
  };
  Result<PushResult> first = PushStream(client_, {"json", ""}, "push-a", failing);
  ASSERT_FALSE(first.ok());
  // Once the controller has seen the client's error, everything sent before it is committed.
  ASSERT_TRUE(WaitUntil([&] { return OneFailedNoneActive(); }));
  const uint64_t kept = PushedSeq();
  EXPECT_GT(kept, 0u);
  EXPECT_LE(kept, 6000u);

  Result<PushResult> second = PushDir(seeds, "push-a");
  ASSERT_TRUE(second.ok()) << second.status().message();
  char cursor[32];
  std::snprintf(cursor, sizeof(cursor), "f-%06llu", static_cast<unsigned long long>(kept - 1));
  EXPECT_EQ(second->resumed_after, cursor);  // exactly the last record committed
  EXPECT_EQ(second->counters.records, 10000u - kept);
  EXPECT_EQ(PushedSeq(), 10000u);

  // Complete: the cursor is forgotten, and a later push of that id sends everything (the
  // controller counts them as known).
  Result<PushResult> again = PushDir(seeds, "push-a");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->resumed_after, "");
  EXPECT_EQ(again->counters.records, 10000u);
  EXPECT_EQ(PushedSeq(), 10000u);
}

TEST_F(StreamTest, PushedInputsAreCountedPulledAfterACursorAndKeptOverARestart) {
  Start();
  const std::string seeds = data_.path() + "/seeds";
  WriteCorpusDir(seeds, 5, 100, 200);
  EXPECT_EQ(PushedSeq(), 0u);
  {  // Nothing pushed yet: the pushed resource is empty.
    MemorySink sink;
    ASSERT_TRUE(PullStream(client_, PushedResource("json"), "", &sink).ok());
    EXPECT_TRUE(sink.records.empty());
  }
  ASSERT_TRUE(PushDir(seeds).ok());
  EXPECT_EQ(PushedSeq(), 5u);

  Restart();
  EXPECT_EQ(PushedSeq(), 5u);
  MemorySink all;
  ASSERT_TRUE(PullStream(client_, PushedResource("json"), "", &all).ok());
  ASSERT_EQ(all.records.size(), 5u);
  uint64_t seq;
  base::Digest hash;
  ASSERT_TRUE(ParsePushedRecordName(all.records[4].first, &seq, &hash));
  EXPECT_EQ(seq, 5u);
  EXPECT_EQ(base::DigestHex(hash),
            base::Sha1Hex(reinterpret_cast<const uint8_t*>(all.records[4].second.data()),
                          all.records[4].second.size()));

  // A node that ran the first two pulls the rest: by its last name, or by the number.
  MemorySink by_name, by_seq;
  ASSERT_TRUE(PullStream(client_, PushedResource("json"), all.records[1].first, &by_name).ok());
  ASSERT_TRUE(PullStream(client_, PushedResource("json"), PushedCursorAfter(2), &by_seq).ok());
  ASSERT_EQ(by_name.records.size(), 3u);
  EXPECT_EQ(by_name.records, by_seq.records);
  EXPECT_EQ(by_name.records[0], all.records[2]);

  // One new input and one already pushed: one more entry, numbered 6.
  const std::string more = data_.path() + "/more";
  WriteCorpusDir(more, 1, 100, 200, /*seed=*/99);
  std::filesystem::copy_file(seeds + "/f-000003", more + "/g-dup");
  ASSERT_TRUE(PushDir(more, "push-more").ok());
  EXPECT_EQ(PushedSeq(), 6u);
  MemorySink newest;
  ASSERT_TRUE(PullStream(client_, PushedResource("json"), PushedCursorAfter(5), &newest).ok());
  ASSERT_EQ(newest.records.size(), 1u);
  EXPECT_EQ(newest.records[0].second, ::pollen::testing::ReadFile(more + "/f-000000"));
}

TEST_F(StreamTest, AMergeKeepsPushedInputsAndAPullSendsBothKindsOnce) {
  Start();
  // Two node inputs with features (one superseded by the merge), one input both published
  // by a node and pushed, and two pushed ones without features.
  InputEntry a = MakeEntry("node input a", {1, 2});
  InputEntry b = MakeEntry("node input b", {1, 2, 3});
  InputEntry both = MakeEntry("pushed and published", {9});
  auto inserted =
      node_->Call<InputsReply>(NewInputsRequest{"node-a", {a, b, both}}, kStreamTimeoutMs);
  ASSERT_TRUE(inserted.ok()) << inserted.status().message();
  const std::string seeds = data_.path() + "/seeds";
  std::filesystem::create_directories(seeds);
  ::pollen::testing::WriteFile(seeds + "/1", "pushed one");
  ::pollen::testing::WriteFile(seeds + "/2", "pushed two");
  ::pollen::testing::WriteFile(seeds + "/3", "pushed and published");
  ASSERT_TRUE(PushDir(seeds).ok());

  auto merged = node_->Call<MergeReply>(MergeCorpusRequest{{"json", ""}}, 60000);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->entries_after, 2u);  // b and `both`: a is superseded

  const std::string pulled = data_.path() + "/pulled";
  Result<transfer::TransferCounters> got = PullDir(pulled, CorpusResource("json"));
  ASSERT_TRUE(got.ok()) << got.status().message();
  std::vector<std::string> contents;
  for (const auto& [hash, data] : ContentsByHash(pulled)) contents.push_back(data);
  std::sort(contents.begin(), contents.end());
  EXPECT_EQ(contents, (std::vector<std::string>{"node input b", "pushed and published",
                                                "pushed one", "pushed two"}));
  EXPECT_EQ(got->records, 4u);
  auto info = node_->Call<CorpusInfoReply>(CorpusInfoRequest{{"json", ""}}, kStreamTimeoutMs);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->entries, 2u);
  EXPECT_EQ(info->pushed_entries, 3u);
  EXPECT_EQ(info->pull_entries, 4u);

  // For a node of this build: the same records with their features (none for pushed ones).
  MemorySink entries;
  ASSERT_TRUE(PullStream(client_, EntriesResource("json", "0123456789abcdef"), "", &entries).ok());
  std::map<std::string, std::vector<uint32_t>> features;
  for (const auto& [name, data] : entries.records) {
    std::vector<uint32_t> f;
    std::string_view input;
    ASSERT_TRUE(DecodeEntryRecord(data, 1 << 20, &f, &input).ok());
    EXPECT_EQ(name, base::Sha1Hex(reinterpret_cast<const uint8_t*>(input.data()), input.size()));
    features[std::string(input)] = f;
  }
  EXPECT_EQ(features, (std::map<std::string, std::vector<uint32_t>>{{"node input b", {1, 2, 3}},
                                                                    {"pushed and published", {9}},
                                                                    {"pushed one", {}},
                                                                    {"pushed two", {}}}));
}

TEST_F(StreamTest, AnInterruptedPullStopsAtOnceAndTheControllerIsTold) {
  Start();
  const std::string seeds = data_.path() + "/seeds";
  WriteCorpusDir(seeds, 2000, 1000, 2000);
  ASSERT_TRUE(PushDir(seeds).ok());
  StreamClientOptions options;
  uint64_t chunks = 0;
  options.should_stop = [&] { return chunks >= 3; };
  MemorySink sink;
  Result<transfer::TransferCounters> pulled = PullStream(
      client_, CorpusResource("json"), "", &sink,
      [&](const transfer::TransferCounters&) { chunks++; }, options);
  ASSERT_FALSE(pulled.ok());
  EXPECT_EQ(pulled.status().message(), "interrupted");
  EXPECT_EQ(chunks, 3u);
  EXPECT_LT(sink.records.size(), 2000u);
  EXPECT_TRUE(WaitUntil([&] { return OneFailedNoneActive(); }));
}

TEST_F(StreamTest, UnknownCampaignsBuildsAndResourcesAreClearErrors) {
  Start();
  MemorySink sink;
  Result<transfer::TransferCounters> r = PullStream(client_, "corpus/nope", "", &sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no campaign 'nope'"), std::string::npos)
      << r.status().message();
  r = PullStream(client_, "corpus/json/0000000000000000", "", &sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("0000000000000000"), std::string::npos)
      << r.status().message();
  r = PullStream(client_, "crashes/json", "", &sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown stream resource"), std::string::npos)
      << r.status().message();
  Result<PushResult> p = PushStream(client_, {"nope", ""}, "push-x", DirectoryOpener(data_.path()));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("created by the first node"), std::string::npos)
      << p.status().message();
  // A key the controller does not know is told so, at once.
  ControllerClientOptions stranger = client_;
  stranger.keys = net::GenerateKeyPair().value();
  r = PullStream(stranger, CorpusResource("json"), "", &sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("refused this key"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace pollen::controller
