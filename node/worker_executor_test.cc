// WorkerExecutor against the real example targets (built into EXAMPLES_DIR).
#include "node/worker_executor.h"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "node/global_coverage.h"
#include "node/worker_launcher.h"

namespace pollen::node {
namespace {

std::string Example(const std::string& name) {
  return std::string(EXAMPLES_DIR) + "/" + name + "_fuzzer";
}

class WorkerExecutorTest : public testing::Test {
 protected:
  // An executor for example `name`; one execution may run `timeout_s`.
  std::unique_ptr<WorkerExecutor> MakeExecutor(const std::string& target, uint32_t timeout_s = 10) {
    LaunchOptions options;
    options.target = target;
    options.timeout_s = timeout_s;
    options.startup_timeout_s = 30;
    options.max_len = 64;
    launcher_ = std::make_unique<WorkerLauncher>(options, coverage_.get());
    return std::make_unique<WorkerExecutor>(launcher_.get());
  }

  void SetUp() override {
    Result<std::unique_ptr<GlobalCoverage>> coverage = GlobalCoverage::Create();
    ASSERT_TRUE(coverage.ok()) << coverage.status().message();
    coverage_ = std::move(coverage).value();
  }

  std::unique_ptr<GlobalCoverage> coverage_;
  std::unique_ptr<WorkerLauncher> launcher_;
};

Result<storage::ExecutionResult> Execute(WorkerExecutor& executor, std::string_view input) {
  return executor.Execute(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

void ExpectSortedUnique(const std::vector<uint32_t>& features) {
  EXPECT_TRUE(std::is_sorted(features.begin(), features.end()));
  EXPECT_EQ(std::adjacent_find(features.begin(), features.end()), features.end()) << "a duplicate";
}

TEST_F(WorkerExecutorTest, HarmlessInputGivesSortedUniqueFeatures) {
  std::unique_ptr<WorkerExecutor> executor = MakeExecutor(Example("shallow_crash"));
  Result<storage::ExecutionResult> plain = Execute(*executor, "abc");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_FALSE(plain->failed);
  EXPECT_EQ(plain->failure_kind, "");
  EXPECT_FALSE(plain->features.empty());
  ExpectSortedUnique(plain->features);

  // "HI" takes other branches of the target: the features follow the input.
  Result<storage::ExecutionResult> deeper = Execute(*executor, "HIx");
  ASSERT_TRUE(deeper.ok()) << deeper.status().message();
  EXPECT_FALSE(deeper->failed);
  ExpectSortedUnique(deeper->features);
  EXPECT_NE(deeper->features, plain->features);

  Result<storage::ExecutionResult> again = Execute(*executor, "abc");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->features, plain->features) << "the same input, the same features";
}

TEST_F(WorkerExecutorTest, CrashIsAFailedResultAndTheNextInputRunsInANewWorker) {
  std::unique_ptr<WorkerExecutor> executor = MakeExecutor(Example("shallow_crash"));
  Result<storage::ExecutionResult> crash = Execute(*executor, "HI!");
  ASSERT_TRUE(crash.ok()) << crash.status().message();
  EXPECT_TRUE(crash->failed);
  EXPECT_EQ(crash->failure_kind, "SEGV");
  EXPECT_TRUE(crash->features.empty());
  EXPECT_EQ(executor->last_failure().kind, "SEGV");
  EXPECT_FALSE(executor->last_failure().signature.empty());

  Result<storage::ExecutionResult> next = Execute(*executor, "abc");
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_FALSE(next->failed);
  EXPECT_FALSE(next->features.empty());

  Result<storage::ExecutionResult> crash_again = Execute(*executor, "HI!!");
  ASSERT_TRUE(crash_again.ok()) << crash_again.status().message();
  EXPECT_TRUE(crash_again->failed);
  EXPECT_EQ(crash_again->failure_kind, "SEGV");
}

TEST_F(WorkerExecutorTest, HangIsATimeoutFailure) {
  std::unique_ptr<WorkerExecutor> executor = MakeExecutor(Example("hang"), /*timeout_s=*/1);
  Result<storage::ExecutionResult> hang = Execute(*executor, "LOOP");
  ASSERT_TRUE(hang.ok()) << hang.status().message();
  EXPECT_TRUE(hang->failed);
  EXPECT_EQ(hang->failure_kind, "timeout");

  Result<storage::ExecutionResult> next = Execute(*executor, "LOOK");
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_FALSE(next->failed);
}

TEST_F(WorkerExecutorTest, EmptyTargetRunsEmptyInput) {
  std::unique_ptr<WorkerExecutor> executor = MakeExecutor(Example("empty"));
  Result<storage::ExecutionResult> result = executor->Execute(nullptr, 0);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_FALSE(result->failed);
  ExpectSortedUnique(result->features);
}

TEST_F(WorkerExecutorTest, TargetThatCannotStartIsAnError) {
  std::unique_ptr<WorkerExecutor> executor = MakeExecutor(Example("no_such_example"));
  Result<storage::ExecutionResult> result = Execute(*executor, "abc");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("no_such_example"), std::string::npos)
      << result.status().message();
}

}  // namespace
}  // namespace pollen::node
