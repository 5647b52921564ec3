// ControllerLink and its ControllerSession against a real controller in process (loopback
// TCP, plain text; one test with CURVE) and a fake coordinator feed: registration,
// heartbeats and their figures, the inputs that reach the merged corpus and those that do
// not, crashes, `pollen stop`, minimize requests, a controller that goes away and comes
// back, and a full queue. Every wait polls with a deadline.
#include "node/controller_link.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "base/digest.h"
#include "controller/client/stream_client.h"
#include "controller/controller_test_util.h"
#include "transfer/transfer_test_util.h"

namespace pollen::node {
namespace {

using controller::testing::RunningController;
using controller::testing::TempDir;
using controller::testing::WaitUntil;
using ::testing::HasSubstr;

constexpr size_t kCounters = 64;
constexpr int kTimeoutMs = 10000;
const char kCampaign[] = "json";

// The coordinator's side, as far as the link sees it.
class FakeFeed : public CorpusFeed {
 public:
  FakeFeed() : corpus_(nullptr, "local"), coverage_(GlobalCoverage::Create(kCounters).value()) {
    coverage_->SetNumCounters(kCounters);
  }

  // Records what the link hands over; nothing runs, nothing joins the corpus.
  void ExecuteInput(std::vector<uint8_t> input, std::string origin) override {
    executed.emplace_back(input.begin(), input.end());
    EXPECT_EQ(origin, "controller");
  }
  size_t PendingExecutions() const override { return pending; }
  bool OfferEntry(std::vector<uint8_t> input, std::vector<uint32_t> features,
                  std::string origin) override {
    offered[std::string(input.begin(), input.end())] = std::move(features);
    EXPECT_EQ(origin, "controller");
    return false;
  }
  const LiveCorpus& corpus() const override { return corpus_; }
  const GlobalCoverage& coverage() const override { return *coverage_; }
  uint32_t max_len() const override { return 16; }
  uint64_t executions() const override { return executions_; }
  uint64_t failures() const override { return failures_; }

  // Adds an entry as the coordinator does, and tells the observer (if set: entries added
  // before OnStart are the restored corpus).
  void Add(const std::string& text, std::vector<uint32_t> features, std::string origin = "local") {
    coverage_->Add(features.data(), features.size());
    size_t before = corpus_.size();
    ASSERT_TRUE(
        corpus_.Add({text.begin(), text.end()}, std::move(features), 0, std::move(origin)).ok());
    if (observer != nullptr && corpus_.size() > before) {
      observer->OnEntryAdded(corpus_.entry(corpus_.size() - 1));
    }
  }

  CoordinatorObserver* observer = nullptr;
  std::vector<std::string> executed;
  std::map<std::string, std::vector<uint32_t>> offered;
  size_t pending = 0;
  uint64_t executions_ = 0;
  uint64_t failures_ = 0;

 private:
  LiveCorpus corpus_;
  std::unique_ptr<GlobalCoverage> coverage_;
};

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

Failure MakeFailure(const std::string& signature) {
  Failure f;
  f.kind = "SEGV";
  f.signature = signature;
  f.report = "==1==ERROR: AddressSanitizer: SEGV on unknown address";
  return f;
}

class ControllerLinkTest : public ::testing::Test {
 protected:
  ~ControllerLinkTest() override {
    if (link_ != nullptr) link_->OnStop(feed_);  // stops the session's thread
  }

  // Starts a controller on `listen` (any port by default) over the test's data directory.
  void StartController(const std::string& listen = "tcp://127.0.0.1:*",
                       const std::function<void(controller::ControllerOptions&)>& adjust =
                           nullptr) {
    controller::ControllerOptions options;
    options.listen = listen;
    options.data_dir = data_.path();
    options.allow_plaintext = true;
    options.merge_every_ms = 0;
    if (adjust) adjust(options);
    auto started = controller::StartController(options);
    ASSERT_TRUE(started.ok()) << started.status().message();
    controller_ = std::make_unique<RunningController>(std::move(started).value());
    endpoint_ = (*controller_)->endpoint();
    controller::ControllerClientOptions client;
    client.controller = endpoint_;
    dev_ = controller::ConnectController(client).value();
  }

  void StopController() {
    dev_.reset();
    controller_.reset();
  }

  // A link for node `node_id` of campaign "json" with short intervals; `adjust` changes the
  // session's options.
  std::unique_ptr<ControllerLink> MakeLink(
      const std::string& node_id,
      const std::function<void(ControllerSessionOptions&)>& adjust = nullptr,
      ControllerClientFactory connect = nullptr, CrashMinimizerFn minimize = nullptr,
      storage::CorpusStore* store = nullptr) {
    ControllerSessionOptions s;
    s.registration = {
        node_id,           kCampaign, "json_fuzzer", "0123456789abcdef", "--max-len=16",
        "host-" + node_id, 2};
    s.endpoint = endpoint_;
    s.heartbeat_interval_ms = 100;
    s.batch_interval_ms = 50;
    s.request_timeout_ms = 2000;
    s.register_timeout_ms = 300;
    s.retry_interval_ms = 100;
    controller::ControllerClientOptions streams;
    streams.controller = endpoint_;
    s.streams = streams;
    s.pull_retry_ms = 200;
    if (adjust) adjust(s);
    if (!connect) {
      std::string endpoint = endpoint_;
      connect = [endpoint] {
        controller::ControllerClientOptions client;
        client.controller = endpoint;
        return controller::ConnectController(client);
      };
    }
    ControllerLinkOptions options;
    options.campaign = kCampaign;
    options.stats_interval_ms = 50;
    options.stop_flush_ms = 5000;
    return std::make_unique<ControllerLink>(
        options, std::make_unique<ControllerSession>(std::move(s), std::move(connect)),
        std::move(minimize), store);
  }

  // Makes link_ for node-a, starts it (expecting an answer when `answered`) and OnStart.
  void StartLink(const std::function<void(ControllerSessionOptions&)>& adjust = nullptr,
                 bool answered = true) {
    link_ = MakeLink("node-a", adjust);
    EXPECT_EQ(link_->Start(answered ? kTimeoutMs : 300), answered);
    link_->OnStart(feed_);
    feed_.observer = link_.get();
  }

  // Turns the link (as the coordinator's loop does) until `done` or the deadline.
  bool TurnUntil(const std::function<bool()>& done) {
    return WaitUntil(done, kTimeoutMs, [&] { link_->OnTurn(feed_); });
  }

  template <typename T>
  T Ask(const controller::Request& request) {
    Result<T> reply = dev_->Call<T>(request, kTimeoutMs);
    if (!reply.ok()) {
      ADD_FAILURE() << reply.status().message();
      return T{};
    }
    return std::move(reply).value();
  }

  // Pushes `records` (name, bytes) to the campaign, as `pollen corpus push` does.
  Result<controller::PushResult> Push(const std::string& push_id,
                                      std::vector<transfer::testing::Record> records) {
    controller::ControllerClientOptions client;
    client.controller = endpoint_;
    return controller::PushStream(
        client, {kCampaign, ""}, push_id, [records](const std::string& after) {
          return Result<std::unique_ptr<transfer::RecordSource>>(
              std::make_unique<transfer::testing::VectorSource>(records, after));
        });
  }

  uint64_t MergedEntries() {
    Result<controller::CorpusInfoReply> info = dev_->Call<controller::CorpusInfoReply>(
        controller::CorpusInfoRequest{{kCampaign, ""}}, kTimeoutMs);
    return info.ok() ? info->entries : 0;  // no campaign yet: 0
  }

  std::vector<controller::CrashSummary> Crashes() {
    Result<controller::CrashListReply> list = dev_->Call<controller::CrashListReply>(
        controller::ListCrashesRequest{{kCampaign, ""}, ""}, kTimeoutMs);
    return list.ok() ? list->crashes : std::vector<controller::CrashSummary>{};
  }

  std::optional<controller::NodeStatus> NodeInStatus(const std::string& id) {
    auto status = Ask<controller::StatusReply>(controller::StatusRequest{kCampaign});
    for (const auto& n : status.nodes) {
      if (n.node_id == id) return n;
    }
    return std::nullopt;
  }

  TempDir data_;
  std::unique_ptr<RunningController> controller_;
  std::string endpoint_;
  std::unique_ptr<controller::ControllerClient> dev_;
  FakeFeed feed_;
  std::unique_ptr<ControllerLink> link_;
};

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
TEST_F(ControllerLinkTest, ACrashTooLargeForAMessageIsStreamed) {
  StartController();
  StartLink([](ControllerSessionOptions& s) { s.limits.max_message_bytes = 64 << 10; });
  const std::vector<uint8_t> big(200 << 10, 'x');
  link_->OnNewFailure(MakeFailure("sig-big"), big);
  // The controller holds the crash once the stream has ended; the node counts it streamed
  // when the controller's answer comes, a turn or more later (a TSan run showed the gap).
  ASSERT_TRUE(TurnUntil(
      [&] { return link_->session().counters().crashes_streamed == 1 && Crashes().size() == 1; }));
  EXPECT_EQ(Crashes()[0].input_size, big.size());
  EXPECT_EQ(link_->session().counters().too_large, 0u);
  link_->OnStop(feed_);
  link_.reset();

  // Without streams: dropped and counted, never sent.
  link_ = MakeLink("node-b", [](ControllerSessionOptions& s) {
    s.limits.max_message_bytes = 64 << 10;
    s.streams.reset();
  });
  ASSERT_TRUE(link_->Start(kTimeoutMs));
  link_->OnStart(feed_);
  link_->OnNewFailure(MakeFailure("sig-big-2"), big);
  EXPECT_EQ(link_->session().counters().too_large, 1u);
  link_->OnStop(feed_);
  EXPECT_EQ(Crashes().size(), 1u);
  link_.reset();
}

// A controller that refuses the stream (its record limit, 100 KiB here, is below the
// reproducer) refuses it every time: the node tries 3 times, then drops the crash.
TEST_F(ControllerLinkTest, AStreamedCrashTheControllerRefusesIsDroppedAfterThreeTries) {
  StartController("tcp://127.0.0.1:*", [](controller::ControllerOptions& o) {
    o.limits.stream.max_record_bytes = 100 << 10;
  });
  StartLink([](ControllerSessionOptions& s) { s.limits.max_message_bytes = 64 << 10; });
  link_->OnNewFailure(MakeFailure("sig-big"), std::vector<uint8_t>(200 << 10, 'x'));
  ASSERT_TRUE(TurnUntil([&] { return link_->session().counters().crashes_dropped == 1; }));
  EXPECT_EQ(link_->session().counters().crashes_streamed, 0u);
  EXPECT_TRUE(Crashes().empty());
  link_->OnStop(feed_);
  link_.reset();
}

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
  ASSERT_TRUE(TurnUntil(
      [&] { return MergedEntries() == 1 && link_->session().counters().joined; }));

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

TEST_F(ControllerLinkTest, AJoiningNodeGetsTheMergedCorpusOfferedAndItsPushedInputsRun) {
  StartController();
  // Another node published three entries, and a developer pushed two inputs.
  Ask<controller::RegisterReply>(controller::testing::MakeRegister("node-b"));
  Ask<controller::InputsReply>(controller::NewInputsRequest{
      "node-b",
      {controller::testing::MakeEntry("held here", {1}),
       controller::testing::MakeEntry("entry two", {2, 3}),
       controller::testing::MakeEntry("entry three", {4})}});
  Result<controller::PushResult> pushed =
      Push("push-test", {{"a", "pushed one"}, {"b", "pushed two"}});
  ASSERT_TRUE(pushed.ok()) << pushed.status().message();
  feed_.Add("held here", {1});  // the restored corpus holds one of them

  // The executions are full at first: the pushed inputs wait, the entries do not.
  feed_.pending = 100000;
  StartLink();
  ASSERT_TRUE(TurnUntil([&] { return feed_.offered.size() == 2; }));
  EXPECT_EQ(feed_.offered["entry two"], (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(feed_.offered["entry three"], (std::vector<uint32_t>{4}));
  ASSERT_TRUE(TurnUntil([&] { return link_->session().counters().joined; }));
  for (int i = 0; i < 10; i++) link_->OnTurn(feed_);
  EXPECT_TRUE(feed_.executed.empty());
  feed_.pending = 0;
  ASSERT_TRUE(TurnUntil([&] { return feed_.executed.size() == 2; }));
  std::sort(feed_.executed.begin(), feed_.executed.end());
  EXPECT_EQ(feed_.executed, (std::vector<std::string>{"pushed one", "pushed two"}));
  EXPECT_EQ(link_->counters().fetched_held, 1u);
  EXPECT_EQ(link_->counters().fetched_offered, 2u);
  EXPECT_EQ(link_->session().counters().fetched, 5u);
  EXPECT_EQ(link_->session().counters().pushed, 0u);  // all in the joining fetch
  EXPECT_THAT(link_->StatusFields(), HasSubstr(" fetched 5 pushed 0"));
}

// How soon is not judged here (a busy machine stretches it; TurnUntil's deadline is 10 s):
// that the input comes while the node runs, through the push path and not a new join, once.
TEST_F(ControllerLinkTest, AnInputPushedWhileTheNodeRunsReachesIt) {
  StartController();
  StartLink();
  ASSERT_TRUE(TurnUntil([&] { return link_->session().counters().joined; }));
  Result<controller::PushResult> pushed = Push("push-late", {{"x", "pushed late"}});
  ASSERT_TRUE(pushed.ok()) << pushed.status().message();
  ASSERT_TRUE(TurnUntil([&] { return feed_.executed.size() == 1; }));
  EXPECT_EQ(feed_.executed[0], "pushed late");
  EXPECT_EQ(link_->session().counters().pushed, 1u);
  // Nothing more comes: the cursor is past it.
  const uint64_t now = link_->session().counters().heartbeats;
  ASSERT_TRUE(TurnUntil([&] { return link_->session().counters().heartbeats >= now + 2; }));
  EXPECT_EQ(feed_.executed.size(), 1u);
  EXPECT_EQ(link_->session().counters().pushed, 1u);
}

}  // namespace
}  // namespace pollen::node
