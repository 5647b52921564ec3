// `pollen controller`, `pollen broker` and `pollen node` with --http, configured as
// Kubernetes configures them (the broker and the node from POLLEN_* environment variables):
// the probes answer, /readyz turns ready once the node fuzzes and is connected, the metrics
// show the cluster as it is, and SIGTERM ends each with exit code 0. Every wait polls with a
// deadline.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <functional>
#include <memory>

#include "base/clock.h"
#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kDeadlineS = 60;

struct HttpAnswer {
  int status = -1;  // -1: no answer
  std::string body;
};

HttpAnswer Get(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(5, 0);
  auto res = client.Get(path.c_str());
  if (!res) return {};
  return {res->status, res->body};
}

// The value of the sample `name_and_labels` ("pollen_broker_nodes" or
// "pollen_node_controller_state{state=\"registered\"}") in a scrape; -1 when absent.
double Sample(const std::string& metrics, const std::string& name_and_labels) {
  size_t at = 0;
  while ((at = metrics.find(name_and_labels + " ", at)) != std::string::npos) {
    if (at == 0 || metrics[at - 1] == '\n') {
      return std::strtod(metrics.c_str() + at + name_and_labels.size() + 1, nullptr);
    }
    at += name_and_labels.size();
  }
  return -1;
}

// The HTTP port a command said it serves on.
int HttpPortOf(Background& process) {
  if (!process.WaitForOutput("/metrics on http://", kDeadlineS)) return -1;
  return static_cast<int>(
      NumberAfter(process.output(), "/metrics on http://127\\.0\\.0\\.1:([0-9]+)"));
}

class OpsEndpointsTest : public ::testing::Test {
 protected:
  OpsEndpointsTest() : dir_(MakeTempDir()) {}

  bool WaitUntil(const std::function<bool()>& done) {
    const uint64_t deadline = base::MonotonicMs() + kDeadlineS * 1000ull;
    while (true) {
      for (Background* p : {controller_.get(), broker_.get(), node_.get()}) {
        if (p != nullptr) p->ReadFor(0);
      }
      if (done()) return true;
      if (base::MonotonicMs() >= deadline) return false;
      if (controller_) controller_->ReadFor(100);
    }
  }

  std::string dir_;
  std::unique_ptr<Background> controller_, broker_, node_;
};

TEST_F(OpsEndpointsTest, ProbesMetricsAndGracefulStop) {
  controller_ = std::make_unique<Background>(std::vector<std::string>{
      PollenBin(), "controller", "--listen=tcp://127.0.0.1:*", "--data=" + dir_ + "/controller",
      "--insecure-plaintext", "--http=127.0.0.1:0", "--status-every=1"});
  const int controller_http = HttpPortOf(*controller_);
  ASSERT_GT(controller_http, 0) << controller_->output();
  ASSERT_TRUE(controller_->WaitForOutput("controller listening on", kDeadlineS));
  const long controller_port =
      NumberAfter(controller_->output(), "controller listening on tcp://127\\.0\\.0\\.1:([0-9]+)");
  ASSERT_GT(controller_port, 0);

  // The broker entirely from the environment, as a Deployment's env: sets it.
  broker_ = std::make_unique<Background>(
      std::vector<std::string>{PollenBin(), "broker"},
      std::vector<std::string>{"POLLEN_LISTEN=tcp://127.0.0.1:*", "POLLEN_INSECURE_PLAINTEXT=true",
                               "POLLEN_HTTP=127.0.0.1:0", "POLLEN_STATUS_EVERY=1"});
  const int broker_http = HttpPortOf(*broker_);
  ASSERT_GT(broker_http, 0) << broker_->output();
  ASSERT_TRUE(broker_->WaitForOutput("listening on tcp://", kDeadlineS));
  const long broker_port =
      NumberAfter(broker_->output(), "listening on tcp://127\\.0\\.0\\.1:([0-9]+)");
  ASSERT_GT(broker_port, 0);
  EXPECT_EQ(Get(broker_http, "/readyz").status, 200);
  EXPECT_EQ(Get(controller_http, "/healthz").status, 200);

  // The node id from the environment, as a StatefulSet gives it the pod's name.
  node_ = std::make_unique<Background>(
      std::vector<std::string>{PollenBin(), "node", TestTarget("no_bug"),
                               "--broker=tcp://127.0.0.1:" + std::to_string(broker_port),
                               "--controller=tcp://127.0.0.1:" + std::to_string(controller_port),
                               "--insecure-plaintext", "--workers=1", "--workdir=" + dir_ + "/node",
                               "--http=127.0.0.1:0", "--status-every=1"},
      std::vector<std::string>{"POLLEN_NODE_ID=pollen-node-0"});
  const int node_http = HttpPortOf(*node_);
  ASSERT_GT(node_http, 0) << node_->output();
  EXPECT_EQ(Get(node_http, "/healthz").status, 200);

  ASSERT_TRUE(WaitUntil([&] { return Get(node_http, "/readyz").status == 200; }))
      << Get(node_http, "/readyz").body << node_->output();
  std::string metrics;
  ASSERT_TRUE(WaitUntil([&] {
    metrics = Get(node_http, "/metrics").body;
    return Sample(metrics, "pollen_node_executions_total") > 0;
  })) << metrics;
  EXPECT_THAT(metrics, HasSubstr("node_id=\"pollen-node-0\""));
  EXPECT_THAT(metrics, HasSubstr("campaign=\"no_bug_fuzzer\""));
  EXPECT_EQ(Sample(metrics, "pollen_node_fuzzing"), 1);
  EXPECT_EQ(Sample(metrics, "pollen_node_broker_connected"), 1);
  EXPECT_EQ(Sample(metrics, "pollen_node_controller_state{state=\"registered\"}"), 1);
  EXPECT_GT(Sample(metrics, "pollen_node_edges"), 0);
  EXPECT_GT(Sample(metrics, "pollen_node_corpus_entries"), 0);
  EXPECT_GT(Sample(metrics, "pollen_node_rss_bytes"), 0);
  EXPECT_GT(Sample(metrics, "process_resident_memory_bytes"), 0);

  std::string broker_metrics, controller_metrics;
  EXPECT_TRUE(WaitUntil([&] {
    broker_metrics = Get(broker_http, "/metrics").body;
    return Sample(broker_metrics, "pollen_broker_nodes") == 1;
  })) << broker_metrics;
  EXPECT_GT(Sample(broker_metrics, "pollen_broker_messages_received_total"), 0);
  EXPECT_TRUE(WaitUntil([&] {
    controller_metrics = Get(controller_http, "/metrics").body;
    return Sample(controller_metrics, "pollen_controller_nodes{state=\"alive\"}") == 1;
  })) << controller_metrics;
  EXPECT_EQ(Sample(controller_metrics, "pollen_controller_campaigns"), 1);
  EXPECT_EQ(Get(controller_http, "/readyz").status, 200);

  // SIGTERM, as Kubernetes stops a pod: each drains and exits 0, the node first.
  for (Background* p : {node_.get(), broker_.get(), controller_.get()}) {
    ASSERT_EQ(kill(p->pid(), SIGTERM), 0);
    CommandResult r = p->Wait(kDeadlineS);
    EXPECT_EQ(r.exit_code, 0) << r.output;
  }
}

TEST_F(OpsEndpointsTest, BadHttpAddressIsAUsageError) {
  CommandResult r = RunCommand({PollenBin(), "broker", "--listen=tcp://127.0.0.1:*",
                                "--insecure-plaintext", "--http=localhost"},
                               kDeadlineS);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("--http: bad HTTP address 'localhost'"));
  CommandResult env =
      RunCommand({PollenBin(), "broker"}, kDeadlineS,
                 {"POLLEN_LISTEN=tcp://127.0.0.1:*", "POLLEN_INSECURE_PLAINTEXT=maybe"});
  EXPECT_EQ(env.exit_code, 2);
  EXPECT_THAT(env.output, HasSubstr("environment variable POLLEN_INSECURE_PLAINTEXT"));
}

}  // namespace
}  // namespace pollen::testing
