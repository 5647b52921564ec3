// `pollen broker` and several `pollen node` processes on loopback, fuzzing the gated test
// target (tests/targets/gated.cc), whose gates only a node given the key as a seed can pass:
// what that node finds reaches the others' corpora, a node that joins late too (digest
// recovery), and through a broker killed and started again; a node whose key the broker
// does not know fuzzes alone and says so; two campaigns on one broker stay apart; a failure
// found by one node is recorded by the others. Every wait polls with a deadline.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <functional>
#include <map>
#include <memory>
#include <sstream>

#include "base/clock.h"
#include "base/sha1.h"
#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Inputs that open the gated target's gates (and the one that crashes it).
const char kKeyA[] = "gate:A1x";
const char kKeyB[] = "B#9qZk2w";
const char kCrashKey[] = "!!Crash!";
constexpr int kDeadlineS = 30;

std::string HashOf(const std::string& s) {
  return base::Sha1Hex(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// A seed directory holding one input.
std::string SeedDir(const std::string& content) {
  std::string dir = MakeTempDir();
  WriteFile(dir + "/seed", content);
  return dir;
}

// The entries of a work directory's store, hash -> origin, from `pollen corpus ls`, which
// opens it read-only: it works while the node runs. Empty while there is no store yet.
std::map<std::string, std::string> CorpusOf(const std::string& workdir) {
  CommandResult r = RunCommand({PollenBin(), "corpus", "ls", workdir}, 30);
  std::map<std::string, std::string> entries;
  std::istringstream in(r.exit_code == 0 ? r.output : "");
  std::string hash, origin;
  uint64_t size, features;
  while (in >> hash >> size >> features >> origin) entries[hash] = origin;
  return entries;
}

class ClusterTest : public ::testing::Test {
 protected:
  ClusterTest() : dir_(MakeTempDir()) {}

  // Keys made with `pollen keygen`: the broker's, and authorised ones for `nodes`.
  void MakeKeys(const std::vector<std::string>& nodes) {
    keys_ = dir_ + "/keys";
    mkdir(keys_.c_str(), 0755);
    mkdir((keys_ + "/authorized").c_str(), 0755);
    ASSERT_EQ(RunCommand({PollenBin(), "keygen", keys_ + "/broker"}, 30).exit_code, 0);
    for (const std::string& n : nodes) {
      ASSERT_EQ(RunCommand({PollenBin(), "keygen", keys_ + "/authorized/" + n}, 30).exit_code, 0);
    }
  }

  // Starts `pollen broker` (CURVE if MakeKeys ran, else plain text) and returns its port.
  int StartBroker(const std::string& listen = "tcp://127.0.0.1:*") {
    std::vector<std::string> args = {PollenBin(), "broker", "--listen=" + listen,
                                     "--status-every=1"};
    args.push_back(keys_.empty() ? "--insecure-plaintext" : "--keys=" + keys_);
    broker_ = std::make_unique<Background>(args);
    if (!broker_->WaitForOutput("listening on", kDeadlineS)) return -1;
    int port = static_cast<int>(
        NumberAfter(broker_->output(), "listening on tcp://127\\.0\\.0\\.1:([0-9]+)"));
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(port);
    return port;
  }

  std::string Workdir(const std::string& id) const { return dir_ + "/" + id; }

  // The flags that make `id` a node of this test's cluster, with `key` as its key pair.
  std::vector<std::string> NodeArgs(const std::string& id, const std::string& key) const {
    std::vector<std::string> args = {PollenBin(),         "node",
                                     TestTarget("gated"), "--broker=" + endpoint_,
                                     "--node-id=" + id,   "--workdir=" + Workdir(id),
                                     "--workers=1",       "--status-every=1",
                                     "--delta-every=1",   "--digest-every=2",
                                     "--minimize-time=1"};
    if (keys_.empty()) {
      args.push_back("--insecure-plaintext");
    } else {
      args.push_back("--key=" + key);
      args.push_back("--broker-key=" + keys_ + "/broker.pub");
    }
    return args;
  }

  // Starts node `id` (authorised under its own name) with `flags` after the common ones.
  Background& StartNode(const std::string& id, const std::vector<std::string>& flags = {}) {
    std::vector<std::string> args = NodeArgs(id, keys_ + "/authorized/" + id);
    args.insert(args.end(), flags.begin(), flags.end());
    auto& node = nodes_[id];
    node = std::make_unique<Background>(args);
    final_output_.erase(id);
    return *node;
  }

  Background& Node(const std::string& id) { return *nodes_.at(id); }

  bool NodeSaid(const std::string& id, const std::string& text) {
    return Node(id).output().find(text) != std::string::npos;
  }

  bool HasEntry(const std::string& id, const std::string& hash) {
    return CorpusOf(Workdir(id)).count(hash) != 0;
  }

  // Reads every process's output (so none blocks on a full pipe) until `done` holds or the
  // deadline passes.
  bool WaitUntil(const std::function<bool()>& done, int timeout_s = kDeadlineS) {
    uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(timeout_s) * 1000;
    while (true) {
      if (broker_) broker_->ReadFor(0);
      for (auto& [id, node] : nodes_) node->ReadFor(0);
      if (done()) return true;
      if (base::MonotonicMs() >= deadline) return false;
      if (broker_) broker_->ReadFor(100);  // the broker prints every second
    }
  }

  // Ctrl-C for node `id`, and its exit.
  CommandResult Stop(const std::string& id) {
    kill(Node(id).pid(), SIGINT);
    CommandResult r = Node(id).Wait(kDeadlineS);
    final_output_[id] = r.output;
    return r;
  }

  // What node `id` printed: all of it once it has stopped, so far while it runs.
  std::string Output(const std::string& id) const {
    auto it = final_output_.find(id);
    return it != final_output_.end() ? it->second : nodes_.at(id)->output();
  }

  // Everything the processes printed, for failure messages.
  std::string Outputs() const {
    std::string all = "--- broker:\n" + (broker_ ? broker_->output() : "");
    for (const auto& [id, node] : nodes_) all += "--- " + id + ":\n" + Output(id);
    return all;
  }

  std::string dir_;
  std::string keys_;  // empty: plain text
  std::string endpoint_;
  std::unique_ptr<Background> broker_;
  std::map<std::string, std::unique_ptr<Background>> nodes_;
  std::map<std::string, std::string> final_output_;  // of the nodes stopped
};

TEST_F(ClusterTest, AnInputFoundByOneNodeReachesTheOthersAndALateJoiner) {
  MakeKeys({"node-a", "node-b", "node-c"});
  ASSERT_GT(StartBroker(), 0) << Outputs();
  // node-b is connected before node-a publishes its seed, so the seed itself reaches it
  // live (otherwise a derived input could come first and node-b cut it down to the key).
  StartNode("node-b");
  ASSERT_TRUE(WaitUntil([&] { return NodeSaid("node-b", "connected to the broker"); }))
      << Outputs();
  StartNode("node-a", {SeedDir(kKeyA)});
  const std::string found = HashOf(kKeyA);
  ASSERT_TRUE(WaitUntil([&] { return HasEntry("node-b", found); })) << Outputs();
  // node-c starts after the input went out: only a digest of node-a's can bring it.
  StartNode("node-c");
  ASSERT_TRUE(WaitUntil([&] { return HasEntry("node-c", found); })) << Outputs();

  for (const char* id : {"node-a", "node-b", "node-c"}) {
    CommandResult r = Stop(id);
    EXPECT_EQ(r.exit_code, 130) << id << ":\n" << r.output;
  }
  EXPECT_EQ(CorpusOf(Workdir("node-a"))[found], "local");
  // node-b received it first, before anything derived from it.
  EXPECT_EQ(CorpusOf(Workdir("node-b"))[found], "peer:node-a");
  EXPECT_EQ(CorpusOf(Workdir("node-c")).count(found), 1u);
  EXPECT_THAT(Output("node-b"), HasSubstr("\tPEER\t"));
  EXPECT_GT(NumberAfter(Output("node-c"), "hashes requested ([0-9]+)"), 0) << Outputs();
  // Whichever holder's digest node-c read first answered its request: node-b holds the
  // input too (this asserted node-a alone, and failed when node-b was first).
  EXPECT_GT(NumberAfter(Output("node-a"), "replied ([0-9]+)") +
                NumberAfter(Output("node-b"), "replied ([0-9]+)"),
            0)
      << Outputs();
  for (const char* id : {"node-a", "node-b", "node-c"}) {
    EXPECT_THAT(Output(id), Not(HasSubstr("error:"))) << id;
  }
}

TEST_F(ClusterTest, NodesCarryOnWhenTheBrokerDiesAndRejoinItsSuccessor) {
  MakeKeys({"node-a", "node-b", "node-d"});
  int port = StartBroker();
  ASSERT_GT(port, 0) << Outputs();
  StartNode("node-a", {SeedDir(kKeyA)});
  StartNode("node-b");
  ASSERT_TRUE(WaitUntil([&] { return HasEntry("node-b", HashOf(kKeyA)); })) << Outputs();

  size_t mark_a = Node("node-a").output().size(), mark_b = Node("node-b").output().size();
  kill(broker_->pid(), SIGKILL);
  broker_->Wait(kDeadlineS);
  broker_.reset();
  // Both fuzz on alone: their status lines go on, and say so.
  ASSERT_TRUE(WaitUntil([&] {
    return Node("node-a").output().find("offline\n", mark_a) != std::string::npos &&
           Node("node-b").output().find("offline\n", mark_b) != std::string::npos;
  })) << Outputs();
  ASSERT_EQ(StartBroker(endpoint_), port) << Outputs();
  ASSERT_TRUE(WaitUntil([&] {
    return NodeSaid("node-a", "reconnected to the broker") &&
           NodeSaid("node-b", "reconnected to the broker");
  })) << Outputs();

  // An input found after the restart, by a node that joins now, reaches both.
  StartNode("node-d", {SeedDir(kKeyB)});
  const std::string later = HashOf(kKeyB);
  ASSERT_TRUE(WaitUntil([&] { return HasEntry("node-a", later) && HasEntry("node-b", later); }))
      << Outputs();
  for (const char* id : {"node-a", "node-b", "node-d"}) {
    CommandResult r = Stop(id);
    EXPECT_EQ(r.exit_code, 130) << id << ":\n" << r.output;
  }
  EXPECT_EQ(CorpusOf(Workdir("node-a"))[later], "peer:node-d");
  EXPECT_THAT(Output("node-a"), HasSubstr("lost the connection to the broker"));
  EXPECT_GE(NumberAfter(Output("node-a"), "connections ([0-9]+)"), 2) << Outputs();
}

TEST_F(ClusterTest, ARestartedNodeResumesItsCorpusAndCatchesUp) {
  MakeKeys({"node-a", "node-b", "node-d"});
  ASSERT_GT(StartBroker(), 0) << Outputs();
  StartNode("node-a", {SeedDir(kKeyA)});
  StartNode("node-b");
  ASSERT_TRUE(WaitUntil([&] { return HasEntry("node-b", HashOf(kKeyA)); })) << Outputs();
  ASSERT_EQ(Stop("node-b").exit_code, 130) << Outputs();

  // Found while node-b is down.
  StartNode("node-d", {SeedDir(kKeyB)});
  const std::string missed = HashOf(kKeyB);
  ASSERT_TRUE(WaitUntil([&] { return HasEntry("node-a", missed); })) << Outputs();

  // Same work directory and node id: it restores its corpus, and asks for what it missed.
  StartNode("node-b");
  ASSERT_TRUE(WaitUntil([&] { return HasEntry("node-b", missed); })) << Outputs();
  for (const char* id : {"node-a", "node-b", "node-d"}) Stop(id);
  EXPECT_GT(NumberAfter(Output("node-b"), "([0-9]+) corpus entries restored"), 1) << Outputs();
  EXPECT_GT(NumberAfter(Output("node-b"), "hashes requested ([0-9]+)"), 0) << Outputs();
  EXPECT_EQ(CorpusOf(Workdir("node-b")).count(HashOf(kKeyA)), 1u);
}

TEST_F(ClusterTest, ANodeWhoseKeyIsNotAuthorisedFuzzesAloneAndSaysSo) {
  MakeKeys({"node-a"});
  ASSERT_EQ(RunCommand({PollenBin(), "keygen", keys_ + "/intruder"}, 30).exit_code, 0);
  ASSERT_GT(StartBroker(), 0) << Outputs();
  // Runs until it has said so (however long a busy machine takes), then is stopped.
  auto& node = nodes_["intruder"];
  node = std::make_unique<Background>(NodeArgs("intruder", keys_ + "/intruder"));
  ASSERT_TRUE(WaitUntil([&] {
    return NodeSaid("intruder", "refused this node's key") && NodeSaid("intruder", " REFUSED\n");
  })) << Outputs();
  CommandResult r = Stop("intruder");
  EXPECT_EQ(r.exit_code, 130) << r.output;  // stopped by SIGINT, as Ctrl-C
  EXPECT_THAT(r.output, HasSubstr("refused this node's key"));
  EXPECT_THAT(r.output, HasSubstr(" REFUSED\n"));
  EXPECT_THAT(r.output, Not(HasSubstr("connected to the broker at")));
  EXPECT_GT(NumberAfter(r.output, R"(corpus:\s+(\d+) entries)"), 0) << r.output;
  EXPECT_GT(NumberAfter(r.output, R"(executions:\s+(\d+))"), 0) << r.output;
  ASSERT_TRUE(WaitUntil([&] {
    return broker_->output().find("is not authorised") != std::string::npos;
  })) << Outputs();
}

TEST_F(ClusterTest, TwoCampaignsOnOneBrokerStayApart) {
  ASSERT_GT(StartBroker(), 0) << Outputs();
  StartNode("beta", {"--campaign=beta"});
  ASSERT_TRUE(WaitUntil([&] { return NodeSaid("beta", "connected to the broker"); })) << Outputs();
  // alpha-b is connected before alpha-a publishes its seed (see the first test).
  StartNode("alpha-b", {"--campaign=alpha"});
  ASSERT_TRUE(WaitUntil([&] { return NodeSaid("alpha-b", "connected to the broker"); }))
      << Outputs();
  StartNode("alpha-a", {"--campaign=alpha", SeedDir(kKeyA)});
  const std::string found = HashOf(kKeyA);
  ASSERT_TRUE(WaitUntil([&] { return HasEntry("alpha-b", found); })) << Outputs();
  ASSERT_TRUE(WaitUntil([&] { return broker_->output().find("campaigns 2") != std::string::npos; }))
      << Outputs();
  // Give beta the time it took alpha-b, and more: two more status lines of its own.
  size_t mark = Node("beta").output().size();
  ASSERT_TRUE(WaitUntil([&] {
    std::string later = Node("beta").output().substr(mark);
    size_t first = later.find("\tpulse\t");
    return first != std::string::npos && later.find("\tpulse\t", first + 1) != std::string::npos;
  })) << Outputs();
  for (const char* id : {"beta", "alpha-a", "alpha-b"}) Stop(id);
  EXPECT_EQ(CorpusOf(Workdir("beta")).count(found), 0u);
  EXPECT_EQ(CorpusOf(Workdir("alpha-b"))[found], "peer:alpha-a");
  EXPECT_THAT(Output("beta"), HasSubstr("received 0 "));
}

TEST_F(ClusterTest, AFailureFoundByOneNodeIsRecordedByTheOthers) {
  ASSERT_GT(StartBroker(), 0) << Outputs();
  StartNode("watcher");
  ASSERT_TRUE(WaitUntil([&] { return NodeSaid("watcher", "connected to the broker"); }))
      << Outputs();
  Background& finder = StartNode("finder", {SeedDir(kCrashKey)});
  CommandResult found = finder.Wait(kDeadlineS);
  ASSERT_EQ(found.exit_code, 1) << found.output;
  ASSERT_TRUE(WaitUntil([&] { return NodeSaid("watcher", "node finder found a failure"); }))
      << Outputs();
  Stop("watcher");
  CommandResult theirs =
      RunCommand({PollenBin(), "corpus", "ls", Workdir("finder"), "--crashes"}, 30);
  CommandResult ours =
      RunCommand({PollenBin(), "corpus", "ls", Workdir("watcher"), "--crashes"}, 30);
  ASSERT_EQ(theirs.exit_code, 0) << theirs.output;
  ASSERT_EQ(ours.exit_code, 0) << ours.output;
  std::string signature = theirs.output.substr(0, theirs.output.find(' '));
  ASSERT_FALSE(signature.empty());
  // Recorded with a count of 0: known from the cluster, never hit here.
  EXPECT_THAT(ours.output, HasSubstr(signature + " "));
  EXPECT_THAT(ours.output, HasSubstr(" 0 8\n"));
}

TEST(NodeCommandTest, BadFlagsAndKeysAreClearErrors) {
  std::string dir = MakeTempDir();
  ASSERT_EQ(RunCommand({PollenBin(), "keygen", dir + "/node"}, 30).exit_code, 0);
  const std::string target = TestTarget("gated");
  const std::string broker = "--broker=tcp://127.0.0.1:1";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "pollen node needs a TARGET"},
      {{target, "--insecure-plaintext"}, "needs --broker=ADDR"},
      {{target, broker}, "needs --key=PREFIX and --broker-key=FILE (CURVE) or, for local use"},
      {{target, broker, "--key=" + dir + "/node"}, "needs --key=PREFIX and --broker-key=FILE"},
      {{target, broker, "--insecure-plaintext", "--key=" + dir + "/node"}, "exclude each other"},
      {{target, broker, "--key=" + dir + "/absent", "--broker-key=" + dir + "/node.pub"},
       "cannot read key file " + dir + "/absent.key"},
      {{target, broker, "--key=" + dir + "/node", "--broker-key=" + dir + "/absent.pub"},
       "cannot read key file " + dir + "/absent.pub"},
      {{target, broker, "--insecure-plaintext", "--digest-every=0"}, "at least 1 second"},
      {{target, broker, "--insecure-plaintext", "--bogus"}, "unknown flag --bogus"},
      {{dir + "/no-target", broker, "--insecure-plaintext"}, "no-target"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {PollenBin(), "node"};
    args.insert(args.end(), flags.begin(), flags.end());
    CommandResult r = RunCommand(args, 30);
    EXPECT_EQ(r.exit_code, 2) << message << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(message));
  }
  CommandResult help = RunCommand({PollenBin(), "node", "--help"}, 30);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.output, HasSubstr("--broker-key"));
  EXPECT_THAT(help.output, HasSubstr("--keep-going"));  // and every flag of pollen fuzz
}

}  // namespace
}  // namespace pollen::testing
