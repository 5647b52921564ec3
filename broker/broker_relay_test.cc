// A broker and BrokerClients in one process, on loopback: what reaches whom.
#include <gtest/gtest.h>

#include "broker/broker.h"
#include "broker/broker_test_util.h"
#include "broker/client/broker_client.h"

namespace pollen::broker {
namespace {

using namespace ::pollen::broker::testing;  // NOLINT: test helpers

class BrokerRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    keys_ = CurveSetup::Make(4);
    broker_ = std::make_unique<RunningBroker>(StartBroker(keys_.Options()).value());
  }

  std::unique_ptr<TestNode> Node(int key, const std::string& id,
                                 const Campaign& campaign = TestCampaign()) {
    return std::make_unique<TestNode>(NodeOptions((*broker_)->endpoint(), id, campaign,
                                                  keys_.nodes[key], keys_.broker.public_key));
  }

  bool WaitForNodes(const std::vector<TestNode*>& nodes, size_t n) {
    return WaitForBroker(**broker_, nodes, [n](const BrokerStatus& s) { return s.nodes == n; });
  }

  CurveSetup keys_;
  std::unique_ptr<RunningBroker> broker_;
};

TEST_F(BrokerRelayTest, AnInputReachesTheOtherTwoNodesExactlyOnce) {
  auto a = Node(0, "a"), b = Node(1, "b"), c = Node(2, "c");
  std::vector<TestNode*> all = {a.get(), b.get(), c.get()};
  ASSERT_TRUE(WaitForNodes(all, 3));

  ASSERT_TRUE(a->client->Publish(MakeInput("found by a")).ok());
  ASSERT_TRUE(a->client->Publish(MakeInput("found by a")).ok());  // dropped by a itself
  ASSERT_TRUE(
      PollUntil(all, [&] { return b->CountInput("found by a") && c->CountInput("found by a"); }));
  // A later node that finds the same input: the broker drops it. Its next input shows
  // that nothing else came before (each connection delivers in order).
  auto d = Node(3, "d");
  all.push_back(d.get());
  ASSERT_TRUE(WaitForNodes(all, 4));
  ASSERT_TRUE(d->client->Publish(MakeInput("found by a")).ok());
  ASSERT_TRUE(d->client->Publish(MakeInput("found by d")).ok());
  ASSERT_TRUE(PollUntil(all, [&] {
    return a->CountInput("found by d") && b->CountInput("found by d") &&
           c->CountInput("found by d");
  }));

  EXPECT_EQ(a->CountInput("found by a"), 0u);  // never sent back to its origin
  EXPECT_EQ(b->CountInput("found by a"), 1u);
  EXPECT_EQ(c->CountInput("found by a"), 1u);
  EXPECT_EQ(d->CountInput("found by a"), 0u);
  const auto& got = std::get<NewInput>(b->inbox.front().body);
  EXPECT_EQ(got.hash, MakeInput("found by a").hash);
  EXPECT_EQ(got.features, (std::vector<uint32_t>{8, 17, 4096}));
  EXPECT_EQ(b->inbox.front().header.origin, "a");
  EXPECT_EQ(a->client->stats().inputs_sent, 1u);
  EXPECT_EQ(a->client->stats().drops[DropReason::kDuplicate], 1u);
  EXPECT_EQ((*broker_)->status().totals.drops[DropReason::kDuplicate], 1u);
  EXPECT_EQ(b->client->stats().inputs_received, 2u);
  EXPECT_EQ(b->client->stats().lost, 0u);
  for (TestNode* n : all) EXPECT_EQ(n->Count(MessageKind::kHeartbeat), 0u);  // kept by the broker
}

TEST_F(BrokerRelayTest, TwoCampaignsOnOneBrokerStayApart) {
  auto a1 = Node(0, "a1", TestCampaign("build-1")), a2 = Node(1, "a2", TestCampaign("build-1"));
  auto b1 = Node(2, "b1", TestCampaign("build-2")), b2 = Node(3, "b2", TestCampaign("build-2"));
  std::vector<TestNode*> all = {a1.get(), a2.get(), b1.get(), b2.get()};
  ASSERT_TRUE(WaitForBroker(
      **broker_, all, [](const BrokerStatus& s) { return s.nodes == 4 && s.campaigns == 2; }));

  ASSERT_TRUE(a1->client->Publish(MakeInput("campaign 1")).ok());
  ASSERT_TRUE(a1->client->Publish(CoverageDelta{{1, 2, 3}, 3}).ok());
  ASSERT_TRUE(b1->client->Publish(MakeInput("campaign 2")).ok());
  ASSERT_TRUE(PollUntil(
      all, [&] { return a2->Count(MessageKind::kCoverageDelta) && b2->CountInput("campaign 2"); }));
  ASSERT_TRUE(b2->client->Publish(MakeInput("campaign 2, later")).ok());  // after a1's, at b1
  ASSERT_TRUE(PollUntil(all, [&] { return b1->CountInput("campaign 2, later") > 0; }));

  EXPECT_EQ(a2->CountInput("campaign 1"), 1u);
  EXPECT_EQ(a2->CountInput("campaign 2"), 0u);
  EXPECT_EQ(b1->inbox.size(), 1u);  // only its campaign's input
  EXPECT_EQ(b2->inbox.size(), 1u);
  EXPECT_EQ(b2->Count(MessageKind::kCoverageDelta), 0u);
}

TEST_F(BrokerRelayTest, ALateNodeRecoversWhatItMissedThroughTheDigest) {
  auto a = Node(0, "a"), b = Node(1, "b");
  ASSERT_TRUE(WaitForNodes({a.get(), b.get()}, 2));
  NewInput early = MakeInput("before c joined");
  ASSERT_TRUE(a->client->Publish(early).ok());
  ASSERT_TRUE(PollUntil({a.get(), b.get()}, [&] { return b->CountInput("before c joined") > 0; }));

  auto c = Node(2, "c");
  std::vector<TestNode*> all = {a.get(), b.get(), c.get()};
  ASSERT_TRUE(WaitForNodes(all, 3));
  // a announces its corpus; c asks for what it has not seen; a answers c alone.
  ASSERT_TRUE(a->client->Publish(CorpusDigest{1, 0, {early.hash}}).ok());
  ASSERT_TRUE(PollUntil(all, [&] { return c->Count(MessageKind::kDigest) > 0; }));
  const auto& digest = std::get<CorpusDigest>(c->inbox.back().body);
  std::vector<base::Digest> missing = c->client->Unseen(digest.hashes);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_TRUE(b->client->Unseen(digest.hashes).empty());
  ASSERT_TRUE(c->client->Publish(MissingRequest{missing}, "a").ok());
  ASSERT_TRUE(PollUntil(all, [&] { return a->Count(MessageKind::kMissingRequest) > 0; }));
  EXPECT_EQ(a->inbox.back().header.origin, "c");
  ASSERT_TRUE(a->client->Publish(early, "c").ok());  // a reply: not deduplicated by the broker
  ASSERT_TRUE(PollUntil(all, [&] { return c->CountInput("before c joined") > 0; }));
  ASSERT_TRUE(a->client->Publish(MakeInput("after the reply")).ok());
  ASSERT_TRUE(PollUntil(
      all, [&] { return b->CountInput("after the reply") && c->CountInput("after the reply"); }));
  EXPECT_EQ(b->CountInput("before c joined"), 1u);  // the reply went to c only
  EXPECT_EQ(b->Count(MessageKind::kMissingRequest), 0u);
}

TEST_F(BrokerRelayTest, ASlowNodeMissesMessagesAndBlocksNobody) {
  broker_.reset();
  BrokerOptions options = keys_.Options();
  options.high_water_mark = 100;
  broker_ = std::make_unique<RunningBroker>(StartBroker(options).value());
  auto a = Node(0, "a"), b = Node(1, "b");
  ClientOptions slow_options = NodeOptions((*broker_)->endpoint(), "slow", TestCampaign(),
                                           keys_.nodes[2], keys_.broker.public_key);
  slow_options.high_water_mark = 100;
  TestNode slow(slow_options);
  ASSERT_TRUE(WaitForNodes({a.get(), b.get(), &slow}, 3));

  // `slow` stops reading while a publishes far more (24 MB) than the queues and socket
  // buffers between the broker and it can hold; b keeps up (a waits for it every 50 inputs,
  // within the broker's high-water mark).
  constexpr int kInputs = 3000, kChunk = 50;
  std::string padding(8192, 'p');
  for (int i = 0; i < kInputs; i += kChunk) {
    for (int j = i; j < i + kChunk; j++) {
      ASSERT_TRUE(a->client->Publish(MakeInput(std::to_string(j) + padding)).ok());
    }
    ASSERT_TRUE(PollUntil({a.get(), b.get()},
                          [&] { return b->Count(MessageKind::kNewInput) == size_t(i + kChunk); }));
  }
  uint64_t dropped_for_slow = (*broker_)->status().totals.drops[DropReason::kSlowPeer];
  EXPECT_GT(dropped_for_slow, 0u);
  EXPECT_EQ(b->client->stats().lost, 0u);

  // Once it reads again it gets what was queued, then what comes next: a first marker
  // once its queue has room again, then "end". The gaps in the broker's numbering of its
  // deliveries tell it exactly how many it missed.
  int markers = 0;
  ASSERT_TRUE(PollUntil({a.get(), b.get(), &slow}, [&] {
    if (slow.Count(MessageKind::kCoverageDelta) > 0) return true;
    if (markers < 100) {
      EXPECT_TRUE(a->client->Publish(CoverageDelta{{uint32_t(markers++)}, 1}).ok());
    }
    return false;
  }));
  ASSERT_TRUE(a->client->Publish(MakeInput("end")).ok());
  ASSERT_TRUE(PollUntil({a.get(), b.get(), &slow}, [&] { return slow.CountInput("end") > 0; }));
  ClientStats s = slow.client->stats();
  EXPECT_GT(s.lost, 0u);
  EXPECT_EQ(s.received + s.lost, kInputs + markers + 1u);
  EXPECT_EQ(s.lost, (*broker_)->status().totals.drops[DropReason::kSlowPeer]);
  EXPECT_EQ(s.disconnects, 0u);
}

TEST_F(BrokerRelayTest, ClientsCarryOnAfterTheBrokerRestarts) {
  auto a = Node(0, "a"), b = Node(1, "b"), c = Node(2, "c");
  std::vector<TestNode*> all = {a.get(), b.get(), c.get()};
  ASSERT_TRUE(WaitForNodes(all, 3));
  ASSERT_TRUE(a->client->Publish(MakeInput("before the restart")).ok());
  ASSERT_TRUE(PollUntil(all, [&] {
    return b->CountInput("before the restart") && c->CountInput("before the restart");
  }));
  uint64_t seq_before = b->inbox.back().header.seq;

  std::string endpoint = (*broker_)->endpoint();
  broker_.reset();  // gone: sockets closed, state lost
  PollUntil(
      all, [&] { return !a->client->stats().connected && !b->client->stats().connected; }, 5000);
  broker_ = std::make_unique<RunningBroker>(StartBroker(keys_.Options(endpoint)).value());
  // Nobody is told: each client reconnects and announces itself to the new broker.
  ASSERT_TRUE(WaitForNodes(all, 3));
  ASSERT_TRUE(a->client->Publish(MakeInput("after the restart")).ok());
  ASSERT_TRUE(PollUntil(all, [&] {
    return b->CountInput("after the restart") && c->CountInput("after the restart");
  }));
  EXPECT_EQ(b->CountInput("before the restart"), 1u);
  EXPECT_GT(b->inbox.back().header.seq, seq_before);  // a's numbering went on
  EXPECT_GE(a->client->stats().connects, 2u);
  EXPECT_EQ(b->client->stats().lost, 0u);
}

TEST_F(BrokerRelayTest, SilentNodesAreForgotten) {
  broker_.reset();
  BrokerOptions options = keys_.Options();
  options.peer_timeout_ms = 300;
  broker_ = std::make_unique<RunningBroker>(StartBroker(options).value());
  auto a = Node(0, "a"), b = Node(1, "b");
  ASSERT_TRUE(WaitForNodes({a.get(), b.get()}, 2));
  b.reset();
  ASSERT_TRUE(WaitForNodes({a.get()}, 1));
}

}  // namespace
}  // namespace pollen::broker
