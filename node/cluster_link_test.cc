// ClusterLink against a fake broker client and a fake coordinator feed: what it publishes,
// and what it makes of each kind of message it receives.
#include "node/cluster_link.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <set>

#include "base/digest.h"
#include "base/sha1.h"

namespace pollen::node {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr size_t kCounters = 64;  // features 0..511 are in range

class FakeClient : public broker::BrokerClient {
 public:
  struct Sent {
    broker::MessageBody body;
    std::string to_node;
  };

  Status Publish(broker::MessageBody body, const std::string& to_node) override {
    if (auto* in = std::get_if<broker::NewInput>(&body)) seen.insert(in->hash);
    sent.push_back({std::move(body), to_node});
    return Status::Ok();
  }
  size_t Poll(int, std::vector<broker::ClusterMessage>* out, size_t max) override {
    size_t n = 0;
    for (; n < max && !incoming.empty(); n++) {
      if (auto* in = std::get_if<broker::NewInput>(&incoming.front().body)) seen.insert(in->hash);
      out->push_back(std::move(incoming.front()));
      incoming.pop_front();
    }
    return n;
  }
  void SetNodeStats(const broker::NodeStats&) override {}
  std::vector<base::Digest> Unseen(const std::vector<base::Digest>& hashes) const override {
    std::vector<base::Digest> unseen;
    for (const auto& h : hashes) {
      if (!seen.count(h)) unseen.push_back(h);
    }
    return unseen;
  }
  void Forget(const base::Digest& hash) override { seen.erase(hash); }
  broker::ClientStats stats() const override { return client_stats; }

  // The bodies of one kind sent so far, with their addressees.
  template <typename T>
  std::vector<std::pair<T, std::string>> SentOf() const {
    std::vector<std::pair<T, std::string>> out;
    for (const Sent& s : sent) {
      if (auto* b = std::get_if<T>(&s.body)) out.emplace_back(*b, s.to_node);
    }
    return out;
  }

  std::vector<Sent> sent;
  std::deque<broker::ClusterMessage> incoming;
  std::set<base::Digest> seen;
  broker::ClientStats client_stats;
};

// The coordinator's side, as far as the link sees it.
class FakeFeed : public CorpusFeed {
 public:
  FakeFeed() : corpus_(nullptr, "local"), coverage_(GlobalCoverage::Create(kCounters).value()) {
    coverage_->SetNumCounters(kCounters);
  }

  void ExecuteInput(std::vector<uint8_t> input, std::string origin) override {
    executed.push_back({std::move(input), std::move(origin)});
  }
  size_t PendingExecutions() const override { return executed.size(); }
  bool OfferEntry(std::vector<uint8_t> input, std::vector<uint32_t> features,
                  std::string origin) override {
    if (coverage_->CountNew(features.data(), features.size()) == 0) return false;
    Add(std::move(input), std::move(features), std::move(origin));
    return true;
  }
  const LiveCorpus& corpus() const override { return corpus_; }
  const GlobalCoverage& coverage() const override { return *coverage_; }
  uint32_t max_len() const override { return 16; }
  uint64_t executions() const override { return 0; }
  uint64_t failures() const override { return 0; }

  // Adds an entry as the coordinator does, and tells the observer.
  void Add(std::vector<uint8_t> data, std::vector<uint32_t> features, std::string origin = "") {
    coverage_->Add(features.data(), features.size());
    size_t before = corpus_.size();
    ASSERT_TRUE(corpus_.Add(std::move(data), std::move(features), 0, std::move(origin)).ok());
    if (observer != nullptr && corpus_.size() > before) {
      observer->OnEntryAdded(corpus_.entry(corpus_.size() - 1));
    }
  }

  struct Executed {
    std::vector<uint8_t> data;
    std::string origin;
  };
  std::vector<Executed> executed;
  CoordinatorObserver* observer = nullptr;

 private:
  LiveCorpus corpus_;
  std::unique_ptr<GlobalCoverage> coverage_;
};

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }
base::Digest HashOf(const std::string& s) { return base::Sha1(Bytes(s).data(), s.size()); }

broker::ClusterMessage From(const std::string& origin, broker::MessageBody body,
                            uint64_t session = 1) {
  return broker::ClusterMessage{{{"t", "b"}, origin, session, 1, ""}, std::move(body)};
}

broker::NewInput Input(const std::string& text, std::vector<uint32_t> features) {
  return broker::NewInput{HashOf(text), Bytes(text), std::move(features)};
}

class ClusterLinkTest : public ::testing::Test {
 protected:
  ClusterLinkTest() {
    auto client = std::make_unique<FakeClient>();
    client_ = client.get();
    ClusterLinkOptions options;
    options.delta_interval_ms = 1000000;  // deltas and pages only when a test asks
    options.digest_interval_ms = 1000000;
    options.max_pending_executions = 2;
    options.stop_connect_wait_ms = 0;
    link_ = std::make_unique<ClusterLink>(options, std::move(client), nullptr);
    feed_.observer = link_.get();
  }

  void Receive(broker::ClusterMessage m) {
    client_->incoming.push_back(std::move(m));
    link_->OnTurn(feed_);
  }

  FakeClient* client_;
  FakeFeed feed_;
  std::unique_ptr<ClusterLink> link_;
};

TEST_F(ClusterLinkTest, PublishesOwnEntriesOnlyWhenTheyAddToWhatTheClusterHas) {
  link_->OnStart(feed_);
  Receive(From("peer", broker::CoverageDelta{{8, 9}, 2}));
  feed_.Add(Bytes("mine"), {8, 16});  // 16 is new to the cluster
  feed_.Add(Bytes("known"), {9});     // the delta had it
  auto inputs = client_->SentOf<broker::NewInput>();
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].first.hash, HashOf("mine"));
  EXPECT_THAT(inputs[0].first.features, ElementsAre(8, 16));
  EXPECT_EQ(inputs[0].second, "");
  EXPECT_EQ(link_->counters().inputs_published, 1u);
  EXPECT_EQ(link_->counters().inputs_known, 1u);
}

TEST_F(ClusterLinkTest, TrustsFeaturesOfThisBuildAndRunsEverythingElse) {
  link_->OnStart(feed_);
  Receive(From("peer", Input("trusted", {24, 25})));
  Receive(From("peer", Input("featureless", {})));
  Receive(From("peer", Input("out of the map's range", {8, 4096})));
  Receive(From("peer", Input("longer than max_len, 16", {40})));
  Receive(From("peer", Input("dropped: the backlog is full", {})));
  ASSERT_EQ(feed_.corpus().size(), 1u);
  EXPECT_EQ(feed_.corpus().entry(0).origin, "peer:peer");
  ASSERT_EQ(feed_.executed.size(), 2u);
  EXPECT_EQ(feed_.executed[0].data, Bytes("featureless"));
  EXPECT_EQ(feed_.executed[0].origin, "peer:peer");
  EXPECT_EQ(feed_.executed[1].data, Bytes("out of the map's range"));
  EXPECT_EQ(link_->counters().inputs_trusted, 1u);
  EXPECT_EQ(link_->counters().inputs_executed, 2u);
  EXPECT_EQ(link_->counters().backlog_drops, 2u);
  EXPECT_EQ(link_->counters().inputs_kept, 1u);
  // Nothing received goes out again.
  EXPECT_THAT(client_->SentOf<broker::NewInput>(), IsEmpty());
}

TEST_F(ClusterLinkTest, AsksAgainForAnInputDroppedFromAFullBacklog) {
  link_->OnStart(feed_);
  Receive(From("peer", Input("run one", {})));
  Receive(From("peer", Input("run two", {})));
  Receive(From("peer", Input("dropped", {})));
  ASSERT_EQ(link_->counters().backlog_drops, 1u);
  feed_.executed.clear();  // the backlog ran
  Receive(From("peer", broker::CorpusDigest{
                           3, 0, {HashOf("run one"), HashOf("dropped"), HashOf("run two")}}));
  auto requests = client_->SentOf<broker::MissingRequest>();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_THAT(requests[0].first.hashes, ElementsAre(HashOf("dropped")));
  Receive(From("peer", Input("dropped", {})));
  ASSERT_EQ(feed_.executed.size(), 1u);
  EXPECT_EQ(feed_.executed[0].data, Bytes("dropped"));
}

TEST_F(ClusterLinkTest, KeepsAReceivedInputOnlyWhenItAddsCoverageHere) {
  link_->OnStart(feed_);
  feed_.Add(Bytes("mine"), {8, 9});
  Receive(From("peer", Input("nothing new", {8})));
  Receive(From("peer", Input("mine", {8, 9})));  // held already
  EXPECT_EQ(feed_.corpus().size(), 1u);
  EXPECT_EQ(link_->counters().inputs_kept, 0u);
  EXPECT_EQ(link_->counters().inputs_held, 1u);
}

TEST_F(ClusterLinkTest, AsksADigestsOriginForWhatItNeitherSawNorHolds) {
  link_->OnStart(feed_);
  feed_.Add(Bytes("held"), {8});
  Receive(From("peer", Input("seen", {8})));
  Receive(From("peer",
               broker::CorpusDigest{3, 0, {HashOf("held"), HashOf("missing"), HashOf("seen")}}));
  auto requests = client_->SentOf<broker::MissingRequest>();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_THAT(requests[0].first.hashes, ElementsAre(HashOf("missing")));
  EXPECT_EQ(requests[0].second, "peer");
}

TEST_F(ClusterLinkTest, AnswersAMissingRequestToTheRequesterAlone) {
  link_->OnStart(feed_);
  feed_.Add(Bytes("mine"), {8});
  client_->sent.clear();
  Receive(From("asker", broker::MissingRequest{{HashOf("mine"), HashOf("never had it")}}));
  auto replies = client_->SentOf<broker::NewInput>();
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].first.bytes, Bytes("mine"));
  EXPECT_THAT(replies[0].first.features, ElementsAre(8));
  EXPECT_EQ(replies[0].second, "asker");
}

TEST_F(ClusterLinkTest, SendsADigestPageToEachNewSession) {
  link_->OnStart(feed_);
  feed_.Add(Bytes("mine"), {8});
  Receive(From("peer", broker::CoverageDelta{{9}, 1}, /*session=*/1));
  Receive(From("peer", broker::CoverageDelta{{10}, 2}, /*session=*/1));
  Receive(From("peer", broker::CoverageDelta{{11}, 3}, /*session=*/2));  // restarted
  auto pages = client_->SentOf<broker::CorpusDigest>();
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_THAT(pages[0].first.hashes, ElementsAre(HashOf("mine")));
  EXPECT_EQ(pages[0].second, "peer");
  EXPECT_EQ(pages[1].second, "peer");
}

TEST_F(ClusterLinkTest, DeltasCarryRestoredCoverageThenWhatWasFoundHere) {
  feed_.observer = nullptr;  // restored from the store before the run starts
  feed_.Add(Bytes("restored"), {8, 9});
  feed_.observer = link_.get();
  link_->OnStart(feed_);
  link_->OnStop(feed_);  // sends the pending delta
  feed_.Add(Bytes("found"), {9, 17});
  feed_.Add(Bytes("received"), {30}, "peer:other");
  link_->OnStop(feed_);
  auto deltas = client_->SentOf<broker::CoverageDelta>();
  ASSERT_EQ(deltas.size(), 2u);
  EXPECT_THAT(deltas[0].first.features, ElementsAre(8, 9));
  EXPECT_THAT(deltas[1].first.features, ElementsAre(17));
  EXPECT_EQ(deltas[1].first.total_features, 4u);
  // The restored entry was sent or announced before: it is not published again.
  auto inputs = client_->SentOf<broker::NewInput>();
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].first.hash, HashOf("found"));
}

TEST_F(ClusterLinkTest, PublishesEachFailureOnceAndNotOnesTheClusterReported) {
  link_->OnStart(feed_);
  Receive(From("peer", broker::CrashReport{"sig-1", "SEGV", HashOf("x"), Bytes("x")}));
  Failure known{"SEGV", "", "", {}, "sig-1", ""};
  Failure fresh{"ABRT", "", "", {}, "sig-2", ""};
  link_->OnNewFailure(known, Bytes("x"));
  link_->OnNewFailure(fresh, Bytes("y"));
  link_->OnNewFailure(fresh, Bytes("y"));
  auto crashes = client_->SentOf<broker::CrashReport>();
  ASSERT_EQ(crashes.size(), 1u);
  EXPECT_EQ(crashes[0].first.signature, "sig-2");
  EXPECT_EQ(crashes[0].first.input, Bytes("y"));
  EXPECT_EQ(crashes[0].first.input_hash, HashOf("y"));
}

TEST(ContentHashTest, HexRoundTrips) {
  base::Digest h = HashOf("abc");
  EXPECT_EQ(base::DigestHex(h), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(base::ParseDigestHex("A9993E364706816ABA3E25717850C26C9CD0D89D"), h);
  EXPECT_FALSE(base::ParseDigestHex("a9993e").has_value());
  EXPECT_FALSE(base::ParseDigestHex("g9993e364706816aba3e25717850c26c9cd0d89d").has_value());
}

}  // namespace
}  // namespace pollen::node
