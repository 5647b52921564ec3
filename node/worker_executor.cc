#include "node/worker_executor.h"

#include <algorithm>
#include <utility>

namespace pollen::node {

WorkerExecutor::WorkerExecutor(WorkerLauncher* launcher) : launcher_(launcher) {}

WorkerExecutor::~WorkerExecutor() = default;

Result<storage::ExecutionResult> WorkerExecutor::Execute(const uint8_t* data, size_t size) {
  if (!worker_) {
    Result<std::unique_ptr<WorkerProcess>> launched = launcher_->Launch();
    if (!launched.ok()) return launched.status();
    worker_ = std::move(launched).value();
  }
  Result<RunOutcome> outcome = RunInput(*worker_, launcher_->options(), data, size);
  if (!outcome.ok()) {
    worker_.reset();  // in an unknown state: the next call starts a fresh one
    return outcome.status();
  }
  storage::ExecutionResult result;
  result.exec_time_us = outcome->exec_time_us;
  if (outcome->failed) {
    worker_.reset();  // it is dead
    result.failed = true;
    result.failure_kind = outcome->failure.kind;
    result.failure_signature = outcome->failure.signature;
    result.failure_report = outcome->failure.report;
    last_failure_ = std::move(outcome->failure);
    return result;
  }
  result.features = std::move(outcome->features);
  std::sort(result.features.begin(), result.features.end());
  result.features.erase(std::unique(result.features.begin(), result.features.end()),
                        result.features.end());
  return result;
}

}  // namespace pollen::node
