// One worker: the target binary started in worker mode, with its control pipes, its
// stderr (captured for crash reports) and its shared-memory region.
//
// Not thread-safe: the coordinator drives every worker from one thread.
#ifndef POLLEN_NODE_WORKER_PROCESS_H_
#define POLLEN_NODE_WORKER_PROCESS_H_

#include <capnp/message.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/frame.h"
#include "engine/shm_layout.h"

namespace pollen::node {

struct WorkerSpawnOptions {
  std::string target;               // path of the target binary
  std::vector<std::string> args;    // extra argv, passed to LLVMFuzzerInitialize
  uint32_t max_input = 0;           // capacity of each shared input buffer
  uint32_t max_features = 1 << 20;  // capacity of the shared feature area
  int coverage_fd = -1;             // the global coverage map's memfd (shared, read-only)
  bool keep_stdout = false;         // false: the target's stdout goes to /dev/null
  bool value_profile = false;       // the worker adds value-profile counters
  uint32_t malloc_limit_mb = 0;     // POLLEN_MALLOC_LIMIT_MB for the worker; 0 = none
};

class WorkerProcess {
 public:
  // Creates the shared memory and pipes and starts the process. Errors: the target cannot be
  // executed, memfd/pipe creation failed.
  static Result<std::unique_ptr<WorkerProcess>> Start(const WorkerSpawnOptions& options);
  ~WorkerProcess();  // kills the process if it still runs and reaps it

  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  Status Send(capnp::MessageBuilder& message);

  enum class Receive { kMessage, kNone, kClosed, kError };
  // Reads whatever the control pipe holds without blocking; kMessage fills `words`.
  // kClosed: the worker closed its end (it died or exited). kError: it sent garbage.
  Receive TryReceive(engine::FrameWords* words);
  // Waits up to timeout_ms for one message. kNone means the time ran out.
  Receive WaitReceive(engine::FrameWords* words, int timeout_ms);

  // Moves what the worker wrote to stderr into the capture buffer (the last 256 KiB).
  void DrainStderr();
  std::string stderr_text() const { return stderr_; }
  void ClearStderr() { stderr_.clear(); }

  // Sends SIGKILL (the worker is in its own process group: its children too).
  void Kill();
  // Reaps the process (blocking) and returns its wait status; cached after the first call.
  int WaitExit();
  // Waits up to timeout_ms for the process to exit, without reaping it (Kill still
  // reaches its process group); false when it still runs then.
  bool WaitExitFor(int timeout_ms);
  bool exited() const { return reaped_; }

  // Resident set size in MiB, 0 if unknown.
  uint64_t RssMb() const;

  pid_t pid() const { return pid_; }
  int control_fd() const { return from_worker_; }
  int stderr_fd() const { return stderr_fd_; }
  engine::WorkerShmView& shm() { return shm_; }
  const std::string& last_error() const { return last_error_; }

 private:
  WorkerProcess() : decoder_(16 * 1024 * 1024) {}

  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  int stderr_fd_ = -1;
  int shm_fd_ = -1;
  void* shm_base_ = nullptr;
  size_t shm_size_ = 0;
  engine::WorkerShmView shm_;
  engine::FrameDecoder decoder_;
  std::string stderr_;
  std::string last_error_;
  bool reaped_ = false;
  int wait_status_ = 0;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_WORKER_PROCESS_H_
