// The controller in process, on loopback TCP with CURVE, with fake nodes and a developer
// host as clients: registry, heartbeats and lost nodes, merged corpus, crash triage,
// start/stop, and a restart on the same data directory.
#include <gtest/gtest.h>

#include "controller/client/controller_client.h"
#include "controller/controller.h"
#include "controller/controller_test_util.h"

namespace pollen::controller {
namespace {

using namespace ::pollen::controller::testing;  // NOLINT: test helpers

constexpr int kTimeoutMs = 10000;

class ControllerServiceTest : public ::testing::Test {
 protected:
  void Start(uint64_t lost_after_ms = 15000, uint64_t merge_every_ms = 0) {
    ControllerOptions options = keys_.Options(data_.path());
    options.lost_after_ms = lost_after_ms;
    options.merge_every_ms = merge_every_ms;  // 0: on demand only, the tests decide when
    controller_ = std::make_unique<RunningController>(StartController(options).value());
    node_a_ = keys_.Client((*controller_)->endpoint(), 0);
    node_b_ = keys_.Client((*controller_)->endpoint(), 1);
    dev_ = keys_.Client((*controller_)->endpoint(), 2);
  }

  void Restart() {
    node_a_.reset();
    node_b_.reset();
    dev_.reset();
    controller_.reset();
    Start();
  }

  template <typename T>
  T Call(ControllerClient& client, const Request& request) {
    Result<T> reply = client.Call<T>(request, kTimeoutMs);
    if (!reply.ok()) {
      ADD_FAILURE() << reply.status().message();
      return T{};
    }
    return std::move(reply).value();
  }

  ErrorReply CallError(ControllerClient& client, const Request& request) {
    Result<Reply> reply = client.Request(request, kTimeoutMs);
    if (!reply.ok() || !std::holds_alternative<ErrorReply>(reply.value())) {
      ADD_FAILURE() << "no error reply: " << reply.status().message();
      return {};
    }
    return std::get<ErrorReply>(reply.value());
  }

  void RegisterBoth() {
    Call<RegisterReply>(*node_a_, MakeRegister("node-a"));
    Call<RegisterReply>(*node_b_, MakeRegister("node-b"));
  }

  static const NodeStatus* FindNode(const StatusReply& status, const std::string& id) {
    for (const NodeStatus& n : status.nodes) {
      if (n.node_id == id) return &n;
    }
    return nullptr;
  }

  Keys keys_;
  TempDir data_;
  std::unique_ptr<RunningController> controller_;
  std::unique_ptr<ControllerClient> node_a_, node_b_, dev_;
};

// Lost after 3 s of silence: generous, so that on a busy machine the first status call still
// comes before either node could be lost (the registry's own test covers the rule with a
// clock it sets: registry_test.cc); the wait for the loss below allows 10 s.
TEST_F(ControllerServiceTest, StatusShowsRegisteredNodesAndASilentOneBecomesLost) {
  constexpr uint64_t kLostAfterMs = 3000;
  Start(kLostAfterMs);
  RegisterBoth();
  Call<HeartbeatReply>(*node_a_,
                       HeartbeatRequest{"node-a", {1000, 50000, 40, 120, 30, 0, 64 << 20}});
  Call<HeartbeatReply>(*node_b_,
                       HeartbeatRequest{"node-b", {3000, 90000, 45, 110, 25, 1, 32 << 20}});

  StatusReply status = Call<StatusReply>(*dev_, StatusRequest{});
  ASSERT_EQ(status.campaigns.size(), 1u);
  const CampaignStatus& c = status.campaigns[0];
  EXPECT_EQ(c.name, "json");
  EXPECT_EQ(c.build_id, "0123456789abcdef");
  EXPECT_EQ(c.nodes_alive, 2u);
  EXPECT_EQ(c.execs_per_second, 4000u);
  EXPECT_EQ(c.executions, 140000u);
  EXPECT_EQ(c.edges, 45u);
  EXPECT_EQ(c.features, 120u);
  EXPECT_EQ(c.rss_bytes, uint64_t{96} << 20);
  ASSERT_EQ(status.nodes.size(), 2u);
  EXPECT_EQ(FindNode(status, "node-a")->host, "host-node-a");
  EXPECT_EQ(FindNode(status, "node-a")->workers, 4u);

  // node-b keeps beating, node-a says nothing more.
  bool lost = WaitUntil(
      [&] {
        StatusReply s = Call<StatusReply>(*dev_, StatusRequest{"json"});
        const NodeStatus* a = FindNode(s, "node-a");
        const NodeStatus* b = FindNode(s, "node-b");
        return a && b && a->state == NodeState::kLost && b->state == NodeState::kAlive &&
               s.campaigns[0].nodes_alive == 1 && s.campaigns[0].nodes_lost == 1 &&
               s.campaigns[0].execs_per_second == 3000 && a->last_heartbeat_age_ms > kLostAfterMs;
      },
      kTimeoutMs,
      [&] {
        Call<HeartbeatReply>(*node_b_, HeartbeatRequest{"node-b", {3000}});
      });
  EXPECT_TRUE(lost);
  // What the lost node did still counts (node-b's last beats carried no figures): a
  // campaign's executions and edges do not fall when nodes go.
  StatusReply after = Call<StatusReply>(*dev_, StatusRequest{"json"});
  EXPECT_EQ(after.campaigns[0].executions, 50000u);
  EXPECT_EQ(after.campaigns[0].edges, 40u);
  EXPECT_TRUE(WaitUntil([&] { return (*controller_)->status().nodes_lost == 1; }, kTimeoutMs,
                        [&] {
                          Call<HeartbeatReply>(*node_b_, HeartbeatRequest{"node-b", {}});
                        }));

  CampaignsReply list = Call<CampaignsReply>(*dev_, ListCampaignsRequest{});
  ASSERT_EQ(list.campaigns.size(), 1u);
  EXPECT_EQ(list.campaigns[0].target, "json_fuzzer");
  EXPECT_EQ(list.campaigns[0].options, "-max_len=4096");
  EXPECT_EQ(list.campaigns[0].nodes_lost, 1u);

  // A heartbeat brings it back.
  Call<HeartbeatReply>(*node_a_, HeartbeatRequest{"node-a", {}});
  EXPECT_EQ(FindNode(Call<StatusReply>(*dev_, StatusRequest{}), "node-a")->state,
            NodeState::kAlive);
}

TEST_F(ControllerServiceTest, ACrashFoundOnTwoNodesAppearsOnceWithCountTwo) {
  Start();
  RegisterBoth();
  const std::string sig = "heap-buffer-overflow in ParseValue json_reader.cpp:123";
  auto crash = [&](const std::string& node, const std::string& input, bool minimized) {
    return CrashRequest{node,
                        sig,
                        "heap-buffer-overflow",
                        std::vector<uint8_t>(input.begin(), input.end()),
                        "report: " + input,
                        minimized};
  };
  CrashReply first = Call<CrashReply>(*node_a_, crash("node-a", "[[[[[[[[[[1", false));
  EXPECT_TRUE(first.new_signature);
  CrashReply second = Call<CrashReply>(*node_b_, crash("node-b", "[[[1", false));
  EXPECT_FALSE(second.new_signature);
  EXPECT_EQ(second.count, 2u);

  CrashListReply list = Call<CrashListReply>(*dev_, ListCrashesRequest{{"json", ""}, ""});
  ASSERT_EQ(list.crashes.size(), 1u);
  EXPECT_EQ(list.crashes[0].signature, sig);
  EXPECT_EQ(list.crashes[0].count, 2u);
  EXPECT_EQ(list.crashes[0].nodes, 2u);
  EXPECT_EQ(list.crashes[0].input_size, 4u);
  CrashDetailReply detail = Call<CrashDetailReply>(*dev_, GetCrashRequest{{"json", ""}, sig});
  EXPECT_EQ(std::string(detail.input.begin(), detail.input.end()), "[[[1");
  EXPECT_EQ(detail.report, "report: [[[1");
  EXPECT_EQ(CallError(*dev_, GetCrashRequest{{"json", ""}, "no such"}).code, ErrorCode::kNotFound);
  EXPECT_EQ(Call<StatusReply>(*dev_, StatusRequest{}).campaigns[0].crashes, 1u);

  // Nobody minimized it: a reporter is asked, on its heartbeat reply, once.
  HeartbeatReply hb = Call<HeartbeatReply>(*node_a_, HeartbeatRequest{"node-a", {}});
  EXPECT_EQ(hb.minimize, (std::vector<std::string>{sig}));
  EXPECT_TRUE(Call<HeartbeatReply>(*node_b_, HeartbeatRequest{"node-b", {}}).minimize.empty());
  EXPECT_TRUE(Call<HeartbeatReply>(*node_a_, HeartbeatRequest{"node-a", {}}).minimize.empty());
  CrashReply minimized = Call<CrashReply>(*node_a_, crash("node-a", "[1", true));
  EXPECT_TRUE(minimized.minimized);
  EXPECT_EQ(minimized.count, 2u);  // an answer to the request: no new occurrence
  list = Call<CrashListReply>(*dev_, ListCrashesRequest{{"json", ""}, ""});
  EXPECT_TRUE(list.crashes[0].minimized);
  EXPECT_EQ(list.crashes[0].input_size, 2u);
}

TEST_F(ControllerServiceTest, InputsFromTwoNodesMergeIntoTheCampaignCorpus) {
  Start();
  RegisterBoth();
  InputsReply a = Call<InputsReply>(
      *node_a_, NewInputsRequest{"node-a", {MakeEntry("a", {1, 2}), MakeEntry("y", {3, 4})}});
  EXPECT_EQ(a.added, 2u);
  // The same input again, one adding nothing, one adding a feature, one covering "a" and more.
  InputsReply b = Call<InputsReply>(
      *node_b_, NewInputsRequest{"node-b",
                                 {MakeEntry("y", {3, 4}), MakeEntry("z", {1, 4}),
                                  MakeEntry("w", {5}), MakeEntry("bb", {1, 2, 6})}});
  EXPECT_EQ(b.added, 2u);
  EXPECT_EQ(b.duplicates, 1u);
  EXPECT_EQ(b.not_needed, 1u);
  CorpusInfoReply info = Call<CorpusInfoReply>(*dev_, CorpusInfoRequest{{"json", ""}});
  EXPECT_EQ(info.entries, 4u);
  EXPECT_EQ(info.bytes, 5u);
  EXPECT_EQ(info.features, 6u);
  EXPECT_EQ(info.build_id, "0123456789abcdef");
  EXPECT_EQ(info.last_merge_unix_ms, 0);

  // On demand: the cover drops "a" (bb covers it), the features stay.
  MergeReply merge = Call<MergeReply>(*dev_, MergeCorpusRequest{{"json", ""}});
  EXPECT_EQ(merge.entries_before, 4u);
  EXPECT_EQ(merge.entries_after, 3u);
  EXPECT_EQ(merge.features, 6u);
  info = Call<CorpusInfoReply>(*dev_, CorpusInfoRequest{{"json", ""}});
  EXPECT_EQ(info.entries, 3u);
  EXPECT_EQ(info.features, 6u);
  EXPECT_GT(info.last_merge_unix_ms, 0);
  EXPECT_EQ((*controller_)->status().merges, 1u);
  EXPECT_EQ(Call<StatusReply>(*dev_, StatusRequest{}).campaigns[0].corpus_entries, 3u);
}

TEST_F(ControllerServiceTest, ACorpusThatGrewIsMergedPeriodically) {
  Start(15000, /*merge_every_ms=*/300);
  RegisterBoth();
  Call<InputsReply>(*node_a_, NewInputsRequest{"node-a", {MakeEntry("a", {1, 2})}});
  Call<InputsReply>(*node_b_, NewInputsRequest{"node-b", {MakeEntry("bb", {1, 2, 3})}});
  EXPECT_TRUE(WaitUntil([&] {
    return (*controller_)->status().merges >= 1 &&
           Call<CorpusInfoReply>(*dev_, CorpusInfoRequest{{"json", ""}}).entries == 1;
  }));
  CorpusInfoReply info = Call<CorpusInfoReply>(*dev_, CorpusInfoRequest{{"json", ""}});
  EXPECT_EQ(info.features, 3u);
  EXPECT_GT(info.last_merge_unix_ms, 0);
  // Nothing grew since: no more merges.
  const uint64_t merges = (*controller_)->status().merges;
  WaitUntil([] { return false; }, 1000);
  EXPECT_EQ((*controller_)->status().merges, merges);
}

TEST_F(ControllerServiceTest, ARestartKeepsCampaignsCorpusCrashesAndCounts) {
  Start();
  RegisterBoth();
  Call<InputsReply>(*node_a_,
                    NewInputsRequest{"node-a", {MakeEntry("a", {1}), MakeEntry("b", {2})}});
  auto crash = [](const std::string& node, const std::string& sig) {
    return CrashRequest{node, sig, "oom", {1, 2, 3}, "out of memory", false};
  };
  Call<CrashReply>(*node_a_, crash("node-a", "sig-1"));
  Call<CrashReply>(*node_b_, crash("node-b", "sig-1"));
  Call<CrashReply>(*node_b_, crash("node-b", "sig-2"));
  Call<CampaignStateReply>(*dev_, StopCampaignRequest{{"json", ""}});
  Call<HeartbeatReply>(*node_a_, HeartbeatRequest{"node-a", {7, 8, 9, 10, 11, 12, 13}});

  Restart();

  CampaignsReply campaigns = Call<CampaignsReply>(*dev_, ListCampaignsRequest{});
  ASSERT_EQ(campaigns.campaigns.size(), 1u);
  EXPECT_EQ(campaigns.campaigns[0].name, "json");
  EXPECT_TRUE(campaigns.campaigns[0].stopped);
  EXPECT_EQ(campaigns.campaigns[0].build_id, "0123456789abcdef");
  CorpusInfoReply info = Call<CorpusInfoReply>(*dev_, CorpusInfoRequest{{"json", ""}});
  EXPECT_EQ(info.entries, 2u);
  EXPECT_EQ(info.features, 2u);
  CrashListReply crashes = Call<CrashListReply>(*dev_, ListCrashesRequest{{"json", ""}, ""});
  ASSERT_EQ(crashes.crashes.size(), 2u);
  EXPECT_EQ(crashes.crashes[0].count, 2u);
  EXPECT_EQ(crashes.crashes[0].nodes, 2u);
  EXPECT_EQ(crashes.crashes[1].count, 1u);
  // The nodes are known, with their last figures (saved when the controller stopped).
  StatusReply status = Call<StatusReply>(*dev_, StatusRequest{});
  ASSERT_NE(FindNode(status, "node-a"), nullptr);
  EXPECT_EQ(FindNode(status, "node-a")->stats, (NodeStats{7, 8, 9, 10, 11, 12, 13}));
  EXPECT_EQ(status.campaigns[0].crashes, 2u);
  EXPECT_EQ(status.campaigns[0].corpus_entries, 2u);

  // Nodes carry on without registering again; what they send counts on from before.
  HeartbeatReply hb = Call<HeartbeatReply>(*node_a_, HeartbeatRequest{"node-a", {}});
  EXPECT_TRUE(hb.stop);
  EXPECT_EQ(Call<CrashReply>(*node_a_, crash("node-a", "sig-1")).count, 3u);
  InputsReply again =
      Call<InputsReply>(*node_b_, NewInputsRequest{"node-b", {MakeEntry("a", {1})}});
  EXPECT_EQ(again.duplicates, 1u);
}

TEST_F(ControllerServiceTest, AStoppedCampaignTellsItsNodesToStop) {
  Start();
  RegisterBoth();
  EXPECT_FALSE(Call<HeartbeatReply>(*node_a_, HeartbeatRequest{"node-a", {}}).stop);
  CampaignStateReply stopped = Call<CampaignStateReply>(*dev_, StopCampaignRequest{{"json", ""}});
  EXPECT_TRUE(stopped.stopped);
  EXPECT_TRUE(Call<HeartbeatReply>(*node_a_, HeartbeatRequest{"node-a", {}}).stop);
  EXPECT_TRUE(Call<HeartbeatReply>(*node_b_, HeartbeatRequest{"node-b", {}}).stop);
  EXPECT_TRUE(Call<RegisterReply>(*node_a_, MakeRegister("node-a")).stopped);
  EXPECT_TRUE(Call<StatusReply>(*dev_, StatusRequest{}).campaigns[0].stopped);
  Call<CampaignStateReply>(*dev_, StartCampaignRequest{{"json", ""}});
  EXPECT_FALSE(Call<HeartbeatReply>(*node_a_, HeartbeatRequest{"node-a", {}}).stop);
  EXPECT_EQ(CallError(*dev_, StopCampaignRequest{{"nope", ""}}).code, ErrorCode::kUnknownCampaign);
}

TEST_F(ControllerServiceTest, NodesMustRegisterAndCampaignsKeepTheirTarget) {
  Start();
  ErrorReply unknown = CallError(*node_a_, HeartbeatRequest{"node-a", {}});
  EXPECT_EQ(unknown.code, ErrorCode::kUnknownNode);
  EXPECT_NE(unknown.message.find("register"), std::string::npos);
  EXPECT_EQ(CallError(*node_a_, NewInputsRequest{"node-a", {MakeEntry("x", {1})}}).code,
            ErrorCode::kUnknownNode);
  RegisterBoth();
  RegisterRequest other = MakeRegister("node-c");
  other.target = "xml_fuzzer";
  EXPECT_EQ(CallError(*dev_, other).code, ErrorCode::kConflict);
  // A new build becomes the campaign's current one; the old build keeps its own corpus.
  Call<InputsReply>(*node_a_, NewInputsRequest{"node-a", {MakeEntry("old", {1})}});
  Call<RegisterReply>(*node_b_, MakeRegister("node-b", "json", "fedcba9876543210"));
  Call<InputsReply>(*node_b_,
                    NewInputsRequest{"node-b", {MakeEntry("new", {1}), MakeEntry("n2", {2})}});
  EXPECT_EQ(Call<CorpusInfoReply>(*dev_, CorpusInfoRequest{{"json", ""}}).entries, 2u);
  EXPECT_EQ(Call<CorpusInfoReply>(*dev_, CorpusInfoRequest{{"json", "0123456789abcdef"}}).entries,
            1u);
  EXPECT_EQ(CallError(*dev_, CorpusInfoRequest{{"json", "0000000000000000"}}).code,
            ErrorCode::kUnknownCampaign);
  CampaignsReply list = Call<CampaignsReply>(*dev_, ListCampaignsRequest{});
  EXPECT_EQ(list.campaigns[0].build_id, "fedcba9876543210");
  EXPECT_EQ(list.campaigns[0].builds.size(), 2u);
}

}  // namespace
}  // namespace pollen::controller
