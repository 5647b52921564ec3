// The fixture of ControllerLink's tests (node/controller_link_test.cc,
// controller_link_stream_test.cc): a real controller in process (loopback TCP, plain text),
// a developer's client to ask it, a fake coordinator feed, and a link made on demand.
#ifndef POLLEN_NODE_CONTROLLER_LINK_TEST_UTIL_H_
#define POLLEN_NODE_CONTROLLER_LINK_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "base/digest.h"
#include "controller/client/stream_client.h"
#include "controller/controller_test_util.h"
#include "node/controller_link.h"
#include "transfer/transfer_test_util.h"

namespace pollen::node::testing {

using controller::testing::RunningController;
using controller::testing::TempDir;
using controller::testing::WaitUntil;
using ::testing::HasSubstr;

inline constexpr size_t kCounters = 64;
inline constexpr int kTimeoutMs = 10000;
inline constexpr char kCampaign[] = "json";

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

inline std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

inline Failure MakeFailure(const std::string& signature) {
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
  void StartController(
      const std::string& listen = "tcp://127.0.0.1:*",
      const std::function<void(controller::ControllerOptions&)>& adjust = nullptr) {
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

}  // namespace pollen::node::testing

#endif  // POLLEN_NODE_CONTROLLER_LINK_TEST_UTIL_H_
