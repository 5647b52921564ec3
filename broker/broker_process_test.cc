// `pollen keygen` and `pollen broker` as processes: key files, flag and set-up errors, the
// status line, and a broker killed with SIGKILL and started again under running clients.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include "broker/broker_test_util.h"
#include "broker/client/broker_client.h"
#include "net/curve_keys.h"
#include "tests/test_util.h"

namespace pollen::broker {
namespace {

using ::pollen::testing::Background;
using ::pollen::testing::CommandResult;
using ::pollen::testing::MakeTempDir;
using ::pollen::testing::NumberAfter;
using ::pollen::testing::PollenBin;
using ::pollen::testing::RunCommand;
using ::pollen::testing::WriteFile;
using ::testing::HasSubstr;
using namespace ::pollen::broker::testing;  // NOLINT: test helpers

CommandResult Pollen(std::vector<std::string> args) {
  args.insert(args.begin(), PollenBin());
  return RunCommand(args, 60);
}

std::vector<std::string> BrokerArgs(const std::vector<std::string>& flags) {
  std::vector<std::string> args = {PollenBin(), "broker"};
  args.insert(args.end(), flags.begin(), flags.end());
  return args;
}

// A keys directory made with `pollen keygen`: broker.key/.pub, authorized/node-N.pub and
// the nodes' .key files beside it.
struct KeysDir {
  std::string dir;
  std::vector<net::CurveKeyPair> nodes;
  std::string broker_public_key;
};

KeysDir MakeKeysWithKeygen(int nodes) {
  KeysDir k;
  k.dir = MakeTempDir();
  EXPECT_EQ(Pollen({"keygen", k.dir + "/broker"}).exit_code, 0);
  mkdir((k.dir + "/authorized").c_str(), 0755);
  for (int i = 0; i < nodes; i++) {
    std::string prefix = k.dir + "/authorized/node-" + std::to_string(i);
    EXPECT_EQ(Pollen({"keygen", prefix}).exit_code, 0);
    k.nodes.push_back(net::ReadSecretKey(prefix + ".key").value());
  }
  k.broker_public_key = net::ReadPublicKey(k.dir + "/broker.pub").value();
  return k;
}

// The port a broker announced in its "listening on" line.
int ListeningPort(Background& broker) {
  if (!broker.WaitForOutput("listening on", 30)) return -1;
  return static_cast<int>(
      NumberAfter(broker.output(), "listening on tcp://127\\.0\\.0\\.1:([0-9]+)"));
}

// Collects the broker's output until done(output) holds (at most 60 s), polling the nodes
// meanwhile so that they keep their connection going.
bool WaitForBrokerOutput(Background& broker, const std::function<bool(const std::string&)>& done,
                         const std::vector<TestNode*>& nodes) {
  for (int i = 0; i < 60; i++) {
    if (done(broker.output())) return true;
    broker.WaitForOutput("\x01never", 1);  // reads what comes for one second
    PollUntil(
        nodes, [] { return false; }, 50);
  }
  return done(broker.output());
}

bool WaitForOutputPolling(Background& broker, const std::string& needle,
                          const std::vector<TestNode*>& nodes) {
  return WaitForBrokerOutput(
      broker, [&](const std::string& out) { return out.find(needle) != std::string::npos; }, nodes);
}

TEST(BrokerProcessTest, KeygenWritesAPrivateSecretAndAPublicKey) {
  std::string dir = MakeTempDir();
  CommandResult r = Pollen({"keygen", dir + "/node"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote " + dir + "/node.key"));
  struct stat st;
  ASSERT_EQ(stat((dir + "/node.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto pair = net::ReadSecretKey(dir + "/node.key");
  ASSERT_TRUE(pair.ok());
  EXPECT_EQ(net::ReadPublicKey(dir + "/node.pub").value(), pair->public_key);
  EXPECT_THAT(r.output, HasSubstr(pair->public_key));

  r = Pollen({"keygen", dir + "/node"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("already exists (use --force"));
  EXPECT_EQ(Pollen({"keygen", dir + "/node", "--force"}).exit_code, 0);
  EXPECT_NE(net::ReadSecretKey(dir + "/node.key")->secret_key, pair->secret_key);
  r = Pollen({"keygen"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("needs one PREFIX"));
  r = Pollen({"keygen", dir + "/no/such/dir/node"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("cannot write"));
}

TEST(BrokerProcessTest, BadFlagsAndKeysAreClearErrors) {
  std::string dir = MakeTempDir();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "needs --listen=ADDR"},
      {{"--listen=tcp://127.0.0.1:*"},
       "needs --keys=DIR (CURVE) or, for local use, --insecure-plaintext"},
      {{"--listen=tcp://127.0.0.1:*", "--keys=" + dir, "--insecure-plaintext"},
       "exclude each other"},
      {{"--listen=tcp://127.0.0.1:*", "--insecure-plaintext", "--bogus"}, "unknown flag --bogus"},
      {{"--listen=tcp://127.0.0.1:*", "--insecure-plaintext", "extra"}, "takes no arguments"},
      {{"--listen=tcp://127.0.0.1:*", "--insecure-plaintext", "--status-every=x"},
       "--status-every expects"},
      {{"--listen=bogus", "--insecure-plaintext"}, "cannot listen on bogus"},
      {{"--listen=tcp://127.0.0.1:99999", "--insecure-plaintext"},
       "the port must be * or 1 to 65535"},
      {{"--listen=tcp://127.0.0.1", "--insecure-plaintext"}, "the port must be * or 1 to 65535"},
      {{"--listen=tcp://127.0.0.1:*", "--keys=" + dir + "/absent"},
       "cannot read key file " + dir + "/absent/broker.key"},
  };
  for (const auto& [flags, message] : cases) {
    CommandResult r = RunCommand(BrokerArgs(flags), 60);
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_THAT(r.output, HasSubstr(message));
  }
  WriteFile(dir + "/broker.key", "not a key\n");
  CommandResult r = RunCommand(BrokerArgs({"--listen=tcp://127.0.0.1:*", "--keys=" + dir}), 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("does not hold a CURVE key"));
  EXPECT_EQ(Pollen({"keygen", dir + "/broker", "--force"}).exit_code, 0);
  r = RunCommand(BrokerArgs({"--listen=tcp://127.0.0.1:*", "--keys=" + dir}), 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("cannot read authorised keys directory " + dir + "/authorized"));
}

TEST(BrokerProcessTest, AnAddressInUseIsAClearError) {
  Background first(BrokerArgs({"--listen=tcp://127.0.0.1:*", "--insecure-plaintext"}));
  int port = ListeningPort(first);
  ASSERT_GT(port, 0) << first.output();
  std::string address = "tcp://127.0.0.1:" + std::to_string(port);
  CommandResult second =
      RunCommand(BrokerArgs({"--listen=" + address, "--insecure-plaintext"}), 60);
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_THAT(second.output, HasSubstr("cannot listen on " + address + ": Address already in use"));
}

TEST(BrokerProcessTest, StatusLineCountsNodesAndRefusals) {
  KeysDir keys = MakeKeysWithKeygen(2);
  Background broker(
      BrokerArgs({"--listen=tcp://127.0.0.1:*", "--keys=" + keys.dir, "--status-every=1"}));
  int port = ListeningPort(broker);
  ASSERT_GT(port, 0) << broker.output();
  std::string endpoint = "tcp://127.0.0.1:" + std::to_string(port);
  TestNode a(NodeOptions(endpoint, "a", TestCampaign(), keys.nodes[0], keys.broker_public_key));
  TestNode b(NodeOptions(endpoint, "b", TestCampaign(), keys.nodes[1], keys.broker_public_key));
  TestNode intruder(NodeOptions(endpoint, "x", TestCampaign(), net::GenerateKeyPair().value(),
                                keys.broker_public_key));
  ASSERT_TRUE(a.client->Publish(MakeInput("hello")).ok());
  ASSERT_TRUE(WaitForOutputPolling(broker, "nodes 2 campaigns 1", {&a, &b, &intruder}))
      << broker.output();
  ASSERT_TRUE(WaitForBrokerOutput(
      broker, [](const std::string& out) { return NumberAfter(out, "refused ([1-9][0-9]*)") > 0; },
      {&a, &b, &intruder}))
      << broker.output();
  EXPECT_THAT(broker.output(), HasSubstr("CURVE, keys in " + keys.dir));
  EXPECT_THAT(broker.output(), HasSubstr("is not authorised"));
}

TEST(BrokerProcessTest, ABrokerKilledAndStartedAgainIsFoundByItsNodes) {
  KeysDir keys = MakeKeysWithKeygen(3);
  auto broker = std::make_unique<Background>(
      BrokerArgs({"--listen=tcp://127.0.0.1:*", "--keys=" + keys.dir, "--status-every=1"}));
  int port = ListeningPort(*broker);
  ASSERT_GT(port, 0) << broker->output();
  std::string endpoint = "tcp://127.0.0.1:" + std::to_string(port);
  std::vector<std::unique_ptr<TestNode>> nodes;
  std::vector<TestNode*> all;
  for (int i = 0; i < 3; i++) {
    nodes.push_back(std::make_unique<TestNode>(NodeOptions(endpoint, "node-" + std::to_string(i),
                                                           TestCampaign(), keys.nodes[i],
                                                           keys.broker_public_key)));
    all.push_back(nodes.back().get());
  }
  TestNode &a = *nodes[0], &b = *nodes[1], &c = *nodes[2];
  ASSERT_TRUE(WaitForOutputPolling(*broker, "nodes 3", all)) << broker->output();
  ASSERT_TRUE(a.client->Publish(MakeInput("before the kill")).ok());
  ASSERT_TRUE(PollUntil(
      all, [&] { return b.CountInput("before the kill") && c.CountInput("before the kill"); }));

  kill(broker->pid(), SIGKILL);
  broker->Wait(10);
  broker = std::make_unique<Background>(
      BrokerArgs({"--listen=" + endpoint, "--keys=" + keys.dir, "--status-every=1"}));
  ASSERT_EQ(ListeningPort(*broker), port) << broker->output();
  ASSERT_TRUE(WaitForOutputPolling(*broker, "nodes 3", all)) << broker->output();
  ASSERT_TRUE(c.client->Publish(MakeInput("after the restart")).ok());
  ASSERT_TRUE(PollUntil(
      all, [&] { return a.CountInput("after the restart") && b.CountInput("after the restart"); }));
  EXPECT_EQ(b.CountInput("before the kill"), 1u);
  for (TestNode* n : all) EXPECT_GE(n->client->stats().connects, 2u);
}

}  // namespace
}  // namespace pollen::broker
