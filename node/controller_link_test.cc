// ControllerLink and its ControllerSession against a real controller in process (loopback
// TCP, plain text; one test with CURVE) and a fake coordinator feed: registration,
// heartbeats and their figures, the inputs that reach the merged corpus and those that do
// not, crashes, `pollen stop`, minimize requests, a controller that goes away and comes
// back, and a full queue. Every wait polls with a deadline.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "node/controller_link_test_util.h"

namespace pollen::node::testing {
namespace {

TEST_F(ControllerLinkTest, RegistersAndItsHeartbeatsCarryTheNodesFigures) {
  StartController();
  feed_.executions_ = 5000;
  feed_.failures_ = 1;
  feed_.Add("abc", {1, 2, 3});
  StartLink();
  EXPECT_FALSE(link_->StopRequested());
  std::optional<controller::NodeStatus> node;
  ASSERT_TRUE(TurnUntil([&] {
    node = NodeInStatus("node-a");
    return node && node->stats.executions == 5000;
  }));
  EXPECT_EQ(node->host, "host-node-a");
  EXPECT_EQ(node->workers, 2u);
  EXPECT_EQ(node->state, controller::NodeState::kAlive);
  EXPECT_EQ(node->stats.features, 3u);
  EXPECT_EQ(node->stats.corpus_entries, 1u);
  EXPECT_EQ(node->stats.crashes, 1u);
  EXPECT_GT(node->stats.rss_bytes, 0u);  // this test process's, at least
  auto campaigns = Ask<controller::CampaignsReply>(controller::ListCampaignsRequest{});
  ASSERT_EQ(campaigns.campaigns.size(), 1u);
  EXPECT_EQ(campaigns.campaigns[0].options, "--max-len=16");

  // Executions go on: the next heartbeats say so.
  feed_.executions_ = 9000;
  ASSERT_TRUE(TurnUntil([&] {
    node = NodeInStatus("node-a");
    return node && node->stats.executions == 9000 && link_->session().counters().inputs_sent == 1;
  }));
  EXPECT_THAT(link_->StatusFields(), HasSubstr("\tcontroller: sent 1 crashes 0"));
  EXPECT_GE(link_->session().counters().heartbeats, 2u);
}

// A node that stops (a run with --time, an interrupt) says so in a last heartbeat: the
// controller shows it as left, counts it neither alive nor lost, and never reports it lost.
TEST_F(ControllerLinkTest, ANodeThatStopsSaysItIsLeavingAndIsShownLeftNotLost) {
  StartController();
  StartLink();
  ASSERT_TRUE(TurnUntil([&] {
    std::optional<controller::NodeStatus> node = NodeInStatus("node-a");
    return node && node->state == controller::NodeState::kAlive;
  }));
  link_->OnStop(feed_);
  std::optional<controller::NodeStatus> node = NodeInStatus("node-a");
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->state, controller::NodeState::kLeft);
  auto status = Ask<controller::StatusReply>(controller::StatusRequest{kCampaign});
  ASSERT_EQ(status.campaigns.size(), 1u);
  EXPECT_EQ(status.campaigns[0].nodes_alive, 0u);
  EXPECT_EQ(status.campaigns[0].nodes_lost, 0u);
  link_.reset();
}

TEST_F(ControllerLinkTest, LocalEntriesReachTheMergedCorpusAndPeerEntriesDoNot) {
  StartController();
  // The restored corpus: one entry found here, one received from a peer in an earlier run.
  feed_.Add("restored", {1, 2});
  feed_.Add("restored-from-peer", {3}, "peer:node-b");
  StartLink();
  feed_.Add("found", {4, 5});
  feed_.Add("from-peer", {6}, "peer:node-b");
  ASSERT_TRUE(TurnUntil([&] { return MergedEntries() == 2; }));
  link_->OnStop(feed_);  // delivers whatever still waits
  EXPECT_EQ(MergedEntries(), 2u);
  ControllerSessionCounters c = link_->session().counters();
  EXPECT_EQ(c.inputs_sent, 2u);
  EXPECT_EQ(c.inputs_added, 2u);
  EXPECT_EQ(c.inputs_queued, 0u);
  EXPECT_EQ(link_->counters().inputs_from_peers, 1u);
  link_.reset();
}

TEST_F(ControllerLinkTest, ACrashIsReportedOnceWithItsReproducer) {
  StartController();
  StartLink();
  link_->OnNewFailure(MakeFailure("sig-1"), Bytes("HI!"));
  link_->OnNewFailure(MakeFailure("sig-1"), Bytes("HI!"));  // the same signature again
  ASSERT_TRUE(TurnUntil([&] { return Crashes().size() == 1; }));
  link_->OnStop(feed_);
  std::vector<controller::CrashSummary> crashes = Crashes();
  ASSERT_EQ(crashes.size(), 1u);
  EXPECT_EQ(crashes[0].signature, "sig-1");
  EXPECT_EQ(crashes[0].kind, "SEGV");
  EXPECT_EQ(crashes[0].count, 1u);
  EXPECT_EQ(crashes[0].input_size, 3u);
  EXPECT_TRUE(crashes[0].minimized);
  auto detail =
      Ask<controller::CrashDetailReply>(controller::GetCrashRequest{{kCampaign, ""}, "sig-1"});
  EXPECT_EQ(detail.input, Bytes("HI!"));
  EXPECT_THAT(detail.report, HasSubstr("AddressSanitizer"));
  EXPECT_EQ(link_->session().counters().crashes_sent, 1u);
  link_.reset();
}

// A reproducer larger than a message (here over a 64 KiB limit) goes in a pushCrash stream;
// without streams it could not be sent at all.
TEST_F(ControllerLinkTest, PollenStopBecomesAStopRequestAndANewNodeOfTheCampaignStopsAtOnce) {
  StartController();
  StartLink();
  EXPECT_FALSE(link_->StopRequested());
  Ask<controller::CampaignStateReply>(controller::StopCampaignRequest{{kCampaign, ""}});
  ASSERT_TRUE(TurnUntil([&] { return link_->StopRequested(); }));

  auto late = MakeLink("node-b");
  ASSERT_TRUE(late->Start(kTimeoutMs));
  EXPECT_TRUE(late->StopRequested());  // from the registration's answer
  late->OnStart(feed_);
  late->OnStop(feed_);
}

TEST_F(ControllerLinkTest, AMinimizeRequestIsAnsweredWithAMinimizedReport) {
  StartController();
  // A crash of an earlier run, in this node's store.
  TempDir store_dir;
  auto store = storage::CorpusStore::Open(
      store_dir.path() + "/corpus", {"json_fuzzer", "0123456789abcdef"}, storage::StoreOptions{});
  ASSERT_TRUE(store.ok()) << store.status().message();
  const std::vector<uint8_t> big = Bytes("xxxxHI!xxx");
  ASSERT_TRUE((*store)->PutCrash("sig-2", {"SEGV", big, "report", 1, 1, 1}).ok());
  int calls = 0;
  auto minimize = [&](const std::vector<uint8_t>& input, const Failure& failure) {
    calls++;
    EXPECT_EQ(input, big);
    EXPECT_EQ(failure.kind, "SEGV");
    CrashMinimizeResult r;
    r.input = Bytes("HI!");
    r.failure = failure;
    r.failure.report = "minimized report";
    return r;
  };
  link_ = MakeLink("node-a", nullptr, nullptr, minimize, store->get());
  ASSERT_TRUE(link_->Start(kTimeoutMs));
  link_->OnStart(feed_);
  // The node reported it without minimizing it (as a node interrupted while minimizing does).
  Ask<controller::CrashReply>(
      controller::CrashRequest{"node-a", "sig-2", "SEGV", big, "report", /*minimized=*/false});
  ASSERT_TRUE(TurnUntil([&] {
    std::vector<controller::CrashSummary> c = Crashes();
    return c.size() == 1 && c[0].minimized;
  }));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(Crashes()[0].input_size, 3u);
  EXPECT_EQ(link_->counters().minimized, 1u);
}

TEST_F(ControllerLinkTest, AControllerThatWasAwayGetsTheNodeRegisteredAgainAndCaughtUp) {
  StartController();
  const std::string endpoint = endpoint_;
  StartLink();
  feed_.Add("before", {1});
  // The joining fetch done too: one started after the controller stopped would hold the
  // session's thread for its 10 s connection timeout (docs/controller.md, "Left to do").
  ASSERT_TRUE(
      TurnUntil([&] { return MergedEntries() == 1 && link_->session().counters().joined; }));

  StopController();
  feed_.Add("while-away", {2});
  link_->OnNewFailure(MakeFailure("sig-3"), Bytes("boom"));
  ASSERT_TRUE(TurnUntil([&] { return link_->session().state() == ControllerState::kUnreachable; }));
  EXPECT_THAT(link_->StatusFields(), HasSubstr(" offline"));

  StartController(endpoint);  // the same address and data directory
  ASSERT_TRUE(TurnUntil([&] { return MergedEntries() == 2 && Crashes().size() == 1; }));
  EXPECT_GE(link_->session().counters().registrations, 2u);
  EXPECT_EQ(link_->session().state(), ControllerState::kRegistered);
  std::optional<controller::NodeStatus> node = NodeInStatus("node-a");
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->state, controller::NodeState::kAlive);
}

TEST_F(ControllerLinkTest, AFullQueueCountsDropsAndTheCorpusGoesAgainWhenTheControllerIsBack) {
  StartController();
  const std::string endpoint = endpoint_;
  StopController();  // its address is known and nobody answers there
  StartLink([](ControllerSessionOptions& s) { s.max_queued_inputs = 4; }, /*answered=*/false);
  for (int i = 0; i < 10; i++) feed_.Add("input-" + std::to_string(i), {static_cast<uint32_t>(i)});
  ControllerSessionCounters c = link_->session().counters();
  EXPECT_EQ(c.inputs_dropped, 6u);
  EXPECT_EQ(c.inputs_queued, 4u);
  EXPECT_THAT(link_->StatusFields(), HasSubstr("queued 4 dropped 6 offline"));

  StartController(endpoint);
  ASSERT_TRUE(TurnUntil([&] { return MergedEntries() == 10; }));
  EXPECT_EQ(link_->session().counters().inputs_dropped, 6u);  // the corpus went again: no more
  EXPECT_GE(link_->counters().resyncs, 2u);
}

TEST_F(ControllerLinkTest, ARefusedKeyIsSaidAndTheNodeFuzzesOn) {
  controller::testing::Keys keys;
  auto started = controller::StartController(keys.Options(data_.path()));
  ASSERT_TRUE(started.ok()) << started.status().message();
  controller_ = std::make_unique<RunningController>(std::move(started).value());
  endpoint_ = (*controller_)->endpoint();
  controller::ControllerClientOptions intruder;
  intruder.controller = endpoint_;
  intruder.keys = net::GenerateKeyPair().value();
  intruder.controller_public_key = keys.setup.broker.public_key;
  link_ =
      MakeLink("node-a", nullptr, [intruder] { return controller::ConnectController(intruder); });
  EXPECT_FALSE(link_->Start(1000));
  link_->OnStart(feed_);
  feed_.observer = link_.get();
  ASSERT_TRUE(TurnUntil([&] { return link_->session().state() == ControllerState::kRefused; }));
  EXPECT_THAT(link_->StatusFields(), HasSubstr(" REFUSED"));
  feed_.Add("kept-for-later", {1});
  EXPECT_EQ(link_->session().counters().inputs_queued, 1u);
  EXPECT_GE(link_->session().counters().refusals, 1u);
}

}  // namespace
}  // namespace pollen::node::testing
