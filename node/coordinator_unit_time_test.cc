// A fuzz unit that ends in a death is charged to its entry: the scheduler weighs entries by
// the time their units take (engine/scheduler.h), and an entry whose mutant ran into the
// timeout took that time (node/coordinator_failures.cc, HandleDeath). A real Coordinator,
// one worker, the example target hang (an input that starts with LOOP spins for ever).
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "node/coordinator.h"
#include "node/global_coverage.h"
#include "node/live_corpus.h"
#include "node/worker_launcher.h"
#include "tests/test_util.h"

namespace pollen::node {
namespace {

TEST(CoordinatorUnitTimeTest, AUnitEndedByATimeoutIsChargedToItsEntry) {
  signal(SIGPIPE, SIG_IGN);  // as every user of WorkerProcess (node/worker_executor.h)
  Result<std::unique_ptr<GlobalCoverage>> coverage = GlobalCoverage::Create();
  ASSERT_TRUE(coverage.ok()) << coverage.status().message();
  const std::string dir = ::pollen::testing::MakeTempDir();
  FuzzOptions options;
  options.target = ::pollen::testing::Example("hang");
  options.workdir = dir;
  options.workers = 1;
  options.time = 60;  // a bound only: the run stops at its first failure
  options.timeout = 1;
  options.seed = 1;
  options.max_len = 16;
  options.minimize_time = 0;  // no crash minimization: the hang would take a second a try
  LaunchOptions launch;
  launch.target = options.target;
  launch.max_len = options.max_len;
  launch.timeout_s = 1;
  WorkerLauncher launcher(launch, coverage.value().get());
  LiveCorpus corpus(nullptr, "local");
  Coordinator coordinator(options, &launcher, &corpus, nullptr, dir + "/crashes");

  Result<FuzzSummary> summary = coordinator.Run({}, {});
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  ASSERT_EQ(summary.value().failures, 1u) << "the run ends at the hang";
  // Units last 5 ms; only the one that ended in the 1-s timeout can have taken a second.
  uint64_t longest = 0;
  for (size_t i = 0; i < corpus.size(); i++) longest = std::max(longest, corpus.fuzzed_us(i));
  EXPECT_GE(longest, 1000000u) << "the unit whose mutant hung was not charged to its entry";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pollen::node
