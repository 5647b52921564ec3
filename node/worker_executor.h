// storage::InputExecutor over worker processes: runs single inputs in one worker of a
// target, for the storage layer's merges and re-executions (storage/input_executor.h).
#ifndef POLLEN_NODE_WORKER_EXECUTOR_H_
#define POLLEN_NODE_WORKER_EXECUTOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/status.h"
#include "node/worker_launcher.h"
#include "node/worker_process.h"
#include "storage/input_executor.h"

namespace pollen::node {

class WorkerExecutor : public storage::InputExecutor {
 public:
  // `launcher` must outlive the executor. Its options set the time and memory limits of one
  // execution; an input longer than options().max_len runs truncated to it (as RunInput
  // does), so callers set max_len to at least their largest input. As for every user of
  // WorkerProcess, the process must ignore SIGPIPE (node::InstallInterruptHandler does): a
  // worker that died on its own leaves a broken pipe.
  explicit WorkerExecutor(WorkerLauncher* launcher);
  ~WorkerExecutor() override;  // kills the worker if one runs

  WorkerExecutor(const WorkerExecutor&) = delete;
  WorkerExecutor& operator=(const WorkerExecutor&) = delete;

  // Runs `data[0, size)` once. Keeps one worker across calls; launches it on the first call
  // and again after an input killed it. A crash, hang or OOM is a result (failed, with the
  // failure's kind, and last_failure() holds the whole report); an error means the target
  // cannot be started (the launcher's message) or the worker broke the protocol.
  // Not thread-safe: one call at a time.
  Result<storage::ExecutionResult> Execute(const uint8_t* data, size_t size) override;

  // The failure of the last Execute that failed (empty before any).
  const Failure& last_failure() const { return last_failure_; }

 private:
  WorkerLauncher* launcher_;
  std::unique_ptr<WorkerProcess> worker_;
  Failure last_failure_;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_WORKER_EXECUTOR_H_
