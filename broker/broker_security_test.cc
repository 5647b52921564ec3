// What the broker and the clients do with peers they should not trust: unknown keys,
// garbage frames, malformed or misaddressed messages. Nothing crashes; everything is counted.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <zmq.hpp>

#include "broker/broker.h"
#include "broker/broker_test_util.h"
#include "broker/client/broker_client.h"
#include "broker/client/message_codec.h"
#include "broker/client/relay_header.h"

namespace pollen::broker {
namespace {

using namespace ::pollen::broker::testing;  // NOLINT: test helpers

class BrokerSecurityTest : public ::testing::Test {
 protected:
  void SetUp() override { keys_ = CurveSetup::Make(3); }

  void Start(BrokerOptions options) {
    broker_ = std::make_unique<RunningBroker>(StartBroker(options).value());
  }

  std::unique_ptr<TestNode> Node(int key, const std::string& id) {
    return std::make_unique<TestNode>(NodeOptions((*broker_)->endpoint(), id, TestCampaign(),
                                                  keys_.nodes[key], keys_.broker.public_key));
  }

  // a and b still exchange inputs.
  void ExpectRelayWorks(TestNode* a, TestNode* b, const std::string& text) {
    ASSERT_TRUE(a->client->Publish(MakeInput(text)).ok());
    EXPECT_TRUE(PollUntil({a, b}, [&] { return b->CountInput(text) > 0; })) << text;
  }

  uint64_t Drops(DropReason r) { return (*broker_)->status().totals.drops[r]; }

  CurveSetup keys_;
  std::unique_ptr<RunningBroker> broker_;
};

TEST_F(BrokerSecurityTest, ANodeWithoutAnAuthorisedKeyIsRefused) {
  Start(keys_.Options());
  auto a = Node(0, "a"), b = Node(1, "b");
  TestNode intruder(NodeOptions((*broker_)->endpoint(), "intruder", TestCampaign(),
                                net::GenerateKeyPair().value(), keys_.broker.public_key));
  std::vector<TestNode*> all = {a.get(), b.get(), &intruder};
  ASSERT_TRUE(WaitForBroker(**broker_, all, [](const BrokerStatus& s) {
    return s.nodes == 2 && s.totals.handshakes_refused > 0;
  }));
  ASSERT_TRUE(PollUntil(all, [&] { return intruder.client->stats().auth_failures > 0; }));
  ASSERT_TRUE(
      intruder.client->Publish(MakeInput("from the intruder")).ok());  // queued, never delivered
  ExpectRelayWorks(a.get(), b.get(), "from a");
  ExpectRelayWorks(b.get(), a.get(), "from b");
  EXPECT_TRUE(intruder.inbox.empty());
  EXPECT_FALSE(intruder.client->stats().connected);
  EXPECT_EQ(a->CountInput("from the intruder") + b->CountInput("from the intruder"), 0u);
  EXPECT_EQ((*broker_)->status().nodes, 2u);
}

// libzmq gives up on a connection the broker refused; the client connects again by itself,
// so a key authorised while the node runs lets it in without a restart.
TEST_F(BrokerSecurityTest, ARefusedNodeGetsInOnceItsKeyIsAuthorised) {
  Start(keys_.Options());
  auto a = Node(0, "a");
  const net::CurveKeyPair late_keys = net::GenerateKeyPair().value();
  ClientOptions late_options = NodeOptions((*broker_)->endpoint(), "late", TestCampaign(),
                                           late_keys, keys_.broker.public_key);
  late_options.refused_retry_ms = 100;
  TestNode late(late_options);
  std::vector<TestNode*> all = {a.get(), &late};
  ASSERT_TRUE(PollUntil(all, [&] { return late.client->stats().auth_failures > 0; }));
  EXPECT_FALSE(late.client->stats().connected);

  ASSERT_TRUE(net::WriteKeyPair(keys_.dir + "/authorized/late", late_keys, false).ok());
  ASSERT_TRUE(PollUntil(all, [&] { return late.client->stats().connected; }));
  ASSERT_TRUE(WaitForBroker(**broker_, all, [](const BrokerStatus& s) { return s.nodes == 2; }));
  ExpectRelayWorks(a.get(), &late, "to the late node");
  ExpectRelayWorks(&late, a.get(), "from the late node");
  EXPECT_GE(late.client->stats().connects, 1u);
}

TEST_F(BrokerSecurityTest, WrongBrokerKeyOrPlainTextGetsNothing) {
  Start(keys_.Options());
  auto a = Node(0, "a"), b = Node(1, "b");
  TestNode wrong_server_key(NodeOptions((*broker_)->endpoint(), "w", TestCampaign(), keys_.nodes[2],
                                        net::GenerateKeyPair()->public_key));
  TestNode plain(NodeOptions((*broker_)->endpoint(), "p"));
  std::vector<TestNode*> all = {a.get(), b.get(), &wrong_server_key, &plain};
  ASSERT_TRUE(WaitForBroker(**broker_, all, [](const BrokerStatus& s) { return s.nodes == 2; }));
  ExpectRelayWorks(a.get(), b.get(), "from a");
  PollUntil(
      all, [] { return false; }, 300);  // give them every chance to receive something
  EXPECT_TRUE(wrong_server_key.inbox.empty());
  EXPECT_TRUE(plain.inbox.empty());
  EXPECT_EQ((*broker_)->status().nodes, 2u);
}

TEST_F(BrokerSecurityTest, ABrokerWithoutKeysNeedsPlainTextAskedFor) {
  BrokerOptions options;
  options.listen = "tcp://127.0.0.1:*";
  auto refused = StartBroker(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--insecure-plaintext"), std::string::npos);
  options.allow_plaintext = true;
  EXPECT_TRUE(StartBroker(options).ok());
}

TEST_F(BrokerSecurityTest, MalformedMessagesAreDroppedAndCountedByReason) {
  BrokerOptions options = keys_.Options();
  options.limits.max_message_bytes = 64 * 1024;
  Start(options);
  auto a = Node(0, "a"), b = Node(1, "b");
  ASSERT_TRUE(WaitForBroker(**broker_, {a.get(), b.get()},
                            [](const BrokerStatus& s) { return s.nodes == 2; }));

  // An authorised peer that sends whatever it likes.
  zmq::context_t context(1);
  zmq::socket_t rogue(context, zmq::socket_type::dealer);
  rogue.set(zmq::sockopt::linger, 0);
  rogue.set(zmq::sockopt::curve_serverkey, keys_.broker.public_key);
  rogue.set(zmq::sockopt::curve_publickey, keys_.nodes[2].public_key);
  rogue.set(zmq::sockopt::curve_secretkey, keys_.nodes[2].secret_key);
  rogue.connect((*broker_)->endpoint());
  auto send = [&](const std::vector<uint8_t>& bytes) {
    rogue.send(zmq::buffer(bytes), zmq::send_flags::none);
  };
  ClusterMessage hello = MakeMessage(NodeStats{});
  hello.header.origin = "rogue";
  std::vector<uint8_t> valid = EncodeMessage(MakeMessage(MakeInput("rogue input")));

  send({1, 2, 3});                         // garbage
  send(std::vector<uint8_t>(4096, 0xAB));  // garbage, word-sized
  send(std::vector<uint8_t>(valid.begin(), valid.begin() + valid.size() / 2));  // truncated
  std::vector<uint8_t> wrong_version = valid;
  // After the segment table and the root pointer, the root struct's data: protocolVersion.
  ASSERT_EQ(wrong_version[16], schema::CLUSTER_PROTOCOL_VERSION);
  wrong_version[16] = 99;
  send(wrong_version);
  send(EncodeMessage(MakeMessage(MakeInput(std::string(100 * 1024, 'o')))));  // oversized
  rogue.send(zmq::buffer(valid), zmq::send_flags::sndmore);                   // two frames
  rogue.send(zmq::buffer(valid), zmq::send_flags::none);
  send(EncodeMessage(hello));  // joins the campaign as "rogue"
  send(EncodeMessage(MakeMessage(MakeInput("other campaign"), TestCampaign("build-2"))));
  ClusterMessage other_origin = MakeMessage(MakeInput("other origin"));
  other_origin.header.origin = "b";
  send(EncodeMessage(other_origin));  // not the node it said it was
  ClusterMessage to_nobody = MakeMessage(MakeInput("to nobody"));
  to_nobody.header.origin = "rogue";
  to_nobody.header.to_node = "nobody";
  send(EncodeMessage(to_nobody));

  std::vector<TestNode*> all = {a.get(), b.get()};
  ASSERT_TRUE(WaitForBroker(**broker_, all,
                            [](const BrokerStatus& s) { return s.totals.messages_in >= 13; }));
  EXPECT_EQ(Drops(DropReason::kMalformed), 4u);
  EXPECT_EQ(Drops(DropReason::kWrongVersion), 1u);
  EXPECT_EQ(Drops(DropReason::kOversized), 1u);
  EXPECT_EQ(Drops(DropReason::kWrongCampaign), 1u);
  EXPECT_EQ(Drops(DropReason::kBadOrigin), 1u);
  EXPECT_EQ(Drops(DropReason::kUnknownNode), 1u);
  EXPECT_EQ((*broker_)->status().nodes, 3u);
  ExpectRelayWorks(a.get(), b.get(), "still fine");
  EXPECT_EQ(b->inbox.size(), 1u);  // nothing the rogue sent got through
  EXPECT_EQ(a->inbox.size(), 0u);
}

TEST_F(BrokerSecurityTest, GarbageOnTheTcpPortHurtsNobody) {
  Start(keys_.Options());
  auto a = Node(0, "a"), b = Node(1, "b");
  ASSERT_TRUE(WaitForBroker(**broker_, {a.get(), b.get()},
                            [](const BrokerStatus& s) { return s.nodes == 2; }));
  std::string endpoint = (*broker_)->endpoint();
  int port = std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
  for (int round = 0; round < 20; round++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    std::string junk =
        round % 2 ? std::string(10000, static_cast<char>(0xff)) : "GET / HTTP/1.0\r\n\r\n";
    ssize_t written = write(fd, junk.data(), junk.size());
    (void)written;  // the broker may hang up first
    close(fd);
  }
  ExpectRelayWorks(a.get(), b.get(), "after the garbage");
  ExpectRelayWorks(b.get(), a.get(), "and back");
}

// A fake broker sends a client what a real one never would: the client drops it all.
TEST_F(BrokerSecurityTest, AClientDropsWhatItShouldNeverReceive) {
  zmq::context_t context(1);
  zmq::socket_t fake(context, zmq::socket_type::router);
  fake.set(zmq::sockopt::linger, 0);
  fake.bind("tcp://127.0.0.1:*");
  TestNode node(NodeOptions(fake.get(zmq::sockopt::last_endpoint), "me"));
  zmq::message_t routing_id, first;
  ASSERT_TRUE(PollUntil(
      {&node}, [&] { return fake.recv(routing_id, zmq::recv_flags::dontwait).has_value(); }));
  while (fake.recv(first, zmq::recv_flags::dontwait)) {
    if (!first.more()) break;
  }
  uint64_t delivery = 0;
  auto send = [&](const std::vector<uint8_t>& payload, bool with_header = true) {
    fake.send(zmq::buffer(routing_id.to_string()), zmq::send_flags::sndmore);
    if (with_header) {
      fake.send(zmq::buffer(EncodeRelayHeader({7, ++delivery})), zmq::send_flags::sndmore);
    }
    fake.send(zmq::buffer(payload), zmq::send_flags::none);
  };
  auto from = [](const std::string& origin, MessageBody body,
                 const Campaign& campaign = TestCampaign()) {
    ClusterMessage m = MakeMessage(std::move(body), campaign);
    m.header.origin = origin;
    return EncodeMessage(m);
  };
  NewInput forged = MakeInput("forged");
  forged.hash[0] ^= 1;
  send({1, 2, 3, 4, 5, 6, 7, 8});                  // malformed
  send(from("x", MakeInput("no header")), false);  // malformed: no relay header
  send(from("x", MakeInput("other campaign"), TestCampaign("build-2")));
  send(from("me", MakeInput("from myself")));  // bad origin
  send(from("x", forged));                     // bad hash
  send(from("x", MakeInput("good")));
  send(from("y", MakeInput("good")));  // duplicate
  ClusterMessage for_other = MakeMessage(MakeInput("for z"));
  for_other.header.to_node = "z";
  send(EncodeMessage(for_other));  // addressed to another node
  delivery += 5;                   // five deliveries "lost"
  send(from("x", MakeInput("last")));

  ASSERT_TRUE(PollUntil({&node}, [&] { return node.CountInput("last") > 0; }));
  ClientStats s = node.client->stats();
  EXPECT_EQ(node.inbox.size(), 2u);
  EXPECT_EQ(node.CountInput("good"), 1u);
  EXPECT_EQ(s.drops[DropReason::kMalformed], 2u);
  EXPECT_EQ(s.drops[DropReason::kWrongCampaign], 1u);
  EXPECT_EQ(s.drops[DropReason::kBadOrigin], 1u);
  EXPECT_EQ(s.drops[DropReason::kBadHash], 1u);
  EXPECT_EQ(s.drops[DropReason::kDuplicate], 1u);
  EXPECT_EQ(s.drops[DropReason::kUnknownNode], 1u);
  EXPECT_EQ(s.lost, 5u);
}

}  // namespace
}  // namespace pollen::broker
