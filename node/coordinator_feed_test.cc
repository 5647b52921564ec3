// What joins the corpus of a real Coordinator (one worker, example target shallow_crash) of
// the inputs it runs before fuzzing: with --keep-seed, every start-up input of its own, but
// of those an observer hands in through the feed (a peer's, the controller's) only the ones
// that add coverage.
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "node/coordinator.h"
#include "node/coordinator_observer.h"
#include "node/global_coverage.h"
#include "node/live_corpus.h"
#include "node/worker_launcher.h"
#include "tests/test_util.h"

namespace pollen::node {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

// Hands in two inputs from peers when the coordinator starts (they run after the start-up
// inputs, in order, with one worker) and records the origin of every entry added.
class HandingObserver : public CoordinatorObserver {
 public:
  void OnStart(CorpusFeed& feed) override {
    feed.ExecuteInput(Bytes("abe"), "peer-same");    // the seeds' path: adds nothing
    feed.ExecuteInput(Bytes("HIx"), "peer-deeper");  // two more branches
  }
  void OnTurn(CorpusFeed&) override {}
  void OnEntryAdded(const CorpusEntry& entry) override { origins_.push_back(entry.origin); }
  void OnNewFailure(const Failure&, const std::vector<uint8_t>&) override {}
  std::string StatusFields() const override { return ""; }
  void OnStop(CorpusFeed&) override {}

  const std::vector<std::string>& origins() const { return origins_; }

 private:
  std::vector<std::string> origins_;
};

TEST(CoordinatorFeedTest, KeepSeedKeepsOwnInputsButNotAPeersThatAddNothing) {
  signal(SIGPIPE, SIG_IGN);  // as every user of WorkerProcess (node/worker_executor.h)
  Result<std::unique_ptr<GlobalCoverage>> coverage = GlobalCoverage::Create();
  ASSERT_TRUE(coverage.ok()) << coverage.status().message();
  const std::string dir = ::pollen::testing::MakeTempDir();
  FuzzOptions options;
  options.target = ::pollen::testing::Example("shallow_crash");
  options.workdir = dir;  // the learned dictionary's file
  options.workers = 1;
  options.time = 60;  // a bound only: the run stops once the queued inputs have run
  options.stop_after_seeds = true;
  options.seed = 1;
  options.max_len = 64;
  options.keep_seed = true;
  options.use_value_profile = Setting::kOff;  // features: edges and hit counts only
  LaunchOptions launch;
  launch.target = options.target;
  launch.max_len = options.max_len;
  launch.timeout_s = 10;
  WorkerLauncher launcher(launch, coverage.value().get());
  LiveCorpus corpus(nullptr, "local");
  Coordinator coordinator(options, &launcher, &corpus, nullptr, dir + "/crashes");
  HandingObserver observer;
  coordinator.set_observer(&observer);

  // Two seeds of one path: the second adds nothing, and is kept as a seed.
  std::vector<StartupInput> startup;
  startup.push_back({Bytes("abc")});
  startup.push_back({Bytes("abd")});
  Result<FuzzSummary> summary = coordinator.Run(std::move(startup), {});
  ASSERT_TRUE(summary.ok()) << summary.status().message();

  std::vector<std::string> expected = {"local", "local", "peer-deeper"};
  EXPECT_EQ(observer.origins(), expected)
      << "both seeds (the corpus's own origin) and the peer's deeper input, not the peer's "
         "input that adds nothing";
  ASSERT_EQ(corpus.size(), 3u);
  EXPECT_EQ(corpus.entry(0).data, Bytes("abc"));
  EXPECT_EQ(corpus.entry(1).data, Bytes("abd"));
  EXPECT_EQ(corpus.entry(2).data, Bytes("HIx"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pollen::node
