// `pollen controller` and several `pollen node --controller` processes on loopback (plain
// text), checked through the developer commands (`pollen crashes list`, `pollen status
// --once`, `pollen stop`): a crash found on two nodes is one crash counted twice; `pollen
// stop` ends every node of the campaign with exit code 0 within seconds, and a node started
// afterwards does not fuzz; a node restarted after the controller was restarted shows up
// alive again, as does one that ran through the outage. Every wait polls with a deadline.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

#include "base/clock.h"
#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kDeadlineS = 30;

// One row of `pollen crashes list`.
struct CrashRow {
  std::string signature;
  std::string kind;
  long count = 0;
  long nodes = 0;
};

class ControllerClusterTest : public ::testing::Test {
 protected:
  ControllerClusterTest() : dir_(MakeTempDir()) {}

  // Starts `pollen controller` on `listen` over the test's data directory; false when it
  // did not say where it listens.
  bool StartController(const std::string& listen = "tcp://127.0.0.1:*") {
    controller_ = std::make_unique<Background>(std::vector<std::string>{
        PollenBin(), "controller", "--listen=" + listen, "--data=" + dir_ + "/controller",
        "--insecure-plaintext", "--status-every=1"});
    if (!controller_->WaitForOutput("controller listening on", kDeadlineS)) return false;
    long port = NumberAfter(controller_->output(),
                            "controller listening on tcp://127\\.0\\.0\\.1:([0-9]+)");
    if (port <= 0) return false;
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(port);
    return true;
  }

  // Ctrl-C for the controller, and its exit code.
  int StopController() {
    kill(controller_->pid(), SIGINT);
    CommandResult r = controller_->Wait(kDeadlineS);
    controller_output_ += r.output;
    controller_.reset();
    return r.exit_code;
  }

  // Starts node `id` fuzzing `target` with the controller, `flags` after the common ones.
  Background& StartNode(const std::string& id, const std::string& target,
                        const std::vector<std::string>& flags = {}) {
    std::vector<std::string> args = {PollenBin(),
                                     "node",
                                     target,
                                     "--controller=" + endpoint_,
                                     "--insecure-plaintext",
                                     "--node-id=" + id,
                                     "--workdir=" + dir_ + "/" + id,
                                     "--workers=1",
                                     "--status-every=1",
                                     "--controller-every=1",
                                     "--minimize-time=1"};
    args.insert(args.end(), flags.begin(), flags.end());
    auto& node = nodes_[id];
    node = std::make_unique<Background>(args);
    running_[id] = true;
    return *node;
  }

  Background& Node(const std::string& id) { return *nodes_.at(id); }

  // Waits for node `id` to exit, keeping its output.
  CommandResult WaitNode(const std::string& id, int timeout_s = kDeadlineS) {
    CommandResult r = Node(id).Wait(timeout_s);
    ended_output_[id] += r.output;
    running_[id] = false;
    return r;
  }

  CommandResult StopNode(const std::string& id) {
    kill(Node(id).pid(), SIGINT);
    return WaitNode(id);
  }

  // A developer command against the controller (`pollen status --once` ...).
  CommandResult Dev(std::vector<std::string> args) {
    args.insert(args.begin(), PollenBin());
    args.push_back("--controller=" + endpoint_);
    args.push_back("--insecure-plaintext");
    return RunCommand(args, kDeadlineS);
  }

  std::vector<CrashRow> Crashes(const std::string& campaign) {
    CommandResult r = Dev({"crashes", "list", campaign});
    std::vector<CrashRow> rows;
    if (r.exit_code != 0) return rows;
    static const std::regex row("^([0-9a-f]{16}) +(\\S+) +([0-9]+) +([0-9]+) ");
    std::istringstream in(r.output);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_search(line, m, row)) {
        rows.push_back({m[1], m[2], std::stol(m[3]), std::stol(m[4])});
      }
    }
    return rows;
  }

  // Whether `pollen status --once` shows node `id` of `campaign` alive.
  bool ShownAlive(const std::string& id, const std::string& campaign) {
    CommandResult r = Dev({"status", campaign, "--once"});
    last_status_ = r.output;
    return r.exit_code == 0 &&
           std::regex_search(r.output, std::regex("(^|\n)" + id + " +" + campaign + " +alive "));
  }

  // Reads every process's output (so none blocks on a full pipe) until `done` holds or the
  // deadline passes.
  bool WaitUntil(const std::function<bool()>& done, int timeout_s = kDeadlineS) {
    uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(timeout_s) * 1000;
    while (true) {
      for (auto& [id, node] : nodes_) node->ReadFor(0);
      if (done()) return true;
      if (base::MonotonicMs() >= deadline) return false;
      if (controller_) {
        controller_->ReadFor(200);  // it prints every second
      } else {
        for (auto& [id, node] : nodes_) node->ReadFor(50);
      }
    }
  }

  bool NodeSaid(const std::string& id, const std::string& text) {
    return Output(id).find(text) != std::string::npos;
  }

  // What node `id` printed in all its runs: so far while it runs.
  std::string Output(const std::string& id) const {
    auto ended = ended_output_.find(id);
    std::string out = ended != ended_output_.end() ? ended->second : "";
    if (running_.at(id)) out += nodes_.at(id)->output();
    return out;
  }

  // Everything the processes printed, for failure messages.
  std::string Outputs() const {
    std::string all =
        "--- controller:\n" + controller_output_ + (controller_ ? controller_->output() : "");
    for (const auto& [id, node] : nodes_) all += "--- " + id + ":\n" + Output(id);
    return all + "--- last status:\n" + last_status_;
  }

  std::string dir_;
  std::string endpoint_;
  std::unique_ptr<Background> controller_;
  std::string controller_output_;  // of controllers stopped
  std::map<std::string, std::unique_ptr<Background>> nodes_;
  std::map<std::string, bool> running_;
  std::map<std::string, std::string> ended_output_;  // of the runs of each node that ended
  std::string last_status_;
};

TEST_F(ControllerClusterTest, ACrashFoundOnTwoNodesAppearsOnceWithCountTwo) {
  ASSERT_TRUE(StartController()) << Outputs();
  const std::string campaign = "shallow_crash_fuzzer";
  StartNode("node-a", Example("shallow_crash"), {"--keep-going"});
  StartNode("node-b", Example("shallow_crash"), {"--keep-going"});
  std::vector<CrashRow> rows;
  ASSERT_TRUE(WaitUntil([&] {
    rows = Crashes(campaign);
    return rows.size() == 1 && rows[0].count == 2;
  })) << Outputs();
  // Both nodes found it (each reports a signature once; what they printed may still be on
  // its way), and both go on fuzzing.
  EXPECT_TRUE(WaitUntil([&] {
    return NodeSaid("node-a", "FAILURE") && NodeSaid("node-b", "FAILURE");
  })) << Outputs();
  for (const char* id : {"node-a", "node-b"}) {
    CommandResult r = StopNode(id);
    EXPECT_EQ(r.exit_code, 1) << id << ":\n" << r.output;  // Ctrl-C after a failure
  }
  rows = Crashes(campaign);
  ASSERT_EQ(rows.size(), 1u) << Outputs();
  EXPECT_EQ(rows[0].count, 2);
  EXPECT_EQ(rows[0].nodes, 2);
  EXPECT_EQ(rows[0].kind, "SEGV");
  for (const char* id : {"node-a", "node-b"}) {
    EXPECT_THAT(Output(id), HasSubstr("crashes sent 1")) << id;
    EXPECT_THAT(Output(id), Not(HasSubstr("without the controller"))) << id;
  }
}

TEST_F(ControllerClusterTest, PollenStopEndsEveryNodeOfTheCampaignWithExitCodeZero) {
  ASSERT_TRUE(StartController()) << Outputs();
  // Nodes that found a failure and go on: stopped by the controller, they exit 0 all the same.
  const std::string campaign = "shallow_crash_fuzzer";
  StartNode("node-a", Example("shallow_crash"), {"--keep-going"});
  StartNode("node-b", Example("shallow_crash"), {"--keep-going"});
  ASSERT_TRUE(WaitUntil([&] {
    return NodeSaid("node-a", "FAILURE") && NodeSaid("node-b", "FAILURE") &&
           ShownAlive("node-a", campaign) && ShownAlive("node-b", campaign);
  })) << Outputs();

  uint64_t stop_ms = base::MonotonicMs();
  CommandResult stop = Dev({"stop", campaign});
  ASSERT_EQ(stop.exit_code, 0) << stop.output;
  for (const char* id : {"node-a", "node-b"}) {
    CommandResult r = WaitNode(id, 15);
    EXPECT_EQ(r.exit_code, 0) << id << ":\n" << Outputs();
    EXPECT_THAT(Output(id),
                HasSubstr("stopped by the controller (pollen stop shallow_crash_fuzzer)"));
    EXPECT_THAT(Output(id), HasSubstr("== pollen summary: stopped =="));
  }
  // One heartbeat interval (1 s) and the stop itself: a few seconds, not a timeout.
  EXPECT_LT(base::MonotonicMs() - stop_ms, 10000u) << Outputs();

  // A node of the stopped campaign exits at once, without fuzzing.
  StartNode("node-c", Example("shallow_crash"), {"--keep-going"});
  CommandResult late = WaitNode("node-c");
  EXPECT_EQ(late.exit_code, 0) << Outputs();
  EXPECT_THAT(late.output, HasSubstr("not fuzzing: campaign shallow_crash_fuzzer is stopped"));
  EXPECT_THAT(late.output, Not(HasSubstr("pollen summary")));
}

TEST_F(ControllerClusterTest, ANodeRestartedAfterAControllerRestartShowsUpInStatus) {
  ASSERT_TRUE(StartController()) << Outputs();
  const std::string campaign = "no_bug_fuzzer";
  const std::string endpoint = endpoint_;
  StartNode("node-a", TestTarget("no_bug"));
  StartNode("node-b", TestTarget("no_bug"));
  ASSERT_TRUE(WaitUntil([&] {
    return ShownAlive("node-a", campaign) && ShownAlive("node-b", campaign);
  })) << Outputs();

  ASSERT_EQ(StopController(), 0) << Outputs();
  // node-b notices and fuzzes on; node-a is restarted while the controller is down.
  ASSERT_TRUE(WaitUntil([&] { return NodeSaid("node-b", "without the controller"); })) << Outputs();
  EXPECT_EQ(StopNode("node-a").exit_code, 130) << Outputs();
  ASSERT_TRUE(StartController(endpoint)) << Outputs();  // the same address and data
  StartNode("node-a", TestTarget("no_bug"));
  // The restarted controller shows the nodes it knows from its registry as they were; both
  // must have spoken to it (registered) and be shown alive.
  ASSERT_TRUE(WaitUntil([&] {
    const std::string& log = controller_->output();
    return log.find("node 'node-a' (") != std::string::npos &&
           log.find("node 'node-b' (") != std::string::npos && ShownAlive("node-a", campaign) &&
           ShownAlive("node-b", campaign);
  })) << Outputs();
  // node-b says so too (its output may still be on its way).
  EXPECT_TRUE(WaitUntil([&] { return NodeSaid("node-b", "controller: registered again"); }))
      << Outputs();
  for (const char* id : {"node-a", "node-b"}) {
    CommandResult r = StopNode(id);
    EXPECT_EQ(r.exit_code, 130) << id << ":\n" << r.output;
  }
}

}  // namespace
}  // namespace pollen::testing
