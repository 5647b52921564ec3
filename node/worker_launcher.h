// Starts workers ready for requests (spawned, greeted, configured), and runs single inputs
// through them: the building blocks of the coordinator, `pollen repro` and minimization.
#ifndef POLLEN_NODE_WORKER_LAUNCHER_H_
#define POLLEN_NODE_WORKER_LAUNCHER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/dictionary.h"
#include "node/failure.h"
#include "node/global_coverage.h"
#include "node/worker_process.h"

namespace pollen::node {

struct LaunchOptions {
  std::string target;
  std::vector<std::string> target_args;
  uint32_t max_len = 4096;
  uint32_t timeout_s = 10;          // one execution
  uint32_t rss_limit_mb = 2048;     // 0 = none
  uint32_t startup_timeout_s = 60;  // LLVMFuzzerInitialize and start-up
  engine::Dictionary dictionary;
  bool use_value_profile = false;  // POLLEN_VALUE_PROFILE=1 for the workers
  bool only_ascii = false;         // mutants of printable ASCII and whitespace only
  uint32_t malloc_limit_mb = 0;    // one allocation larger than this is an oom; 0 = none
};

struct HelloInfo {
  uint64_t num_counters = 0;
  uint64_t value_profile_first = 0;  // the value profile's ladders (counters), if on
  uint64_t value_profile_counters = 0;
  uint64_t num_pcs = 0;
  uint32_t num_modules = 0;
};

class WorkerLauncher {
 public:
  // `coverage` must outlive the launcher; its counter count is fixed by the first hello.
  WorkerLauncher(LaunchOptions options, GlobalCoverage* coverage);

  // A started, configured worker. Errors say what the user must fix: a binary that is not
  // a Pollen target, one without coverage counters, one that dies during start-up (with its
  // report in `startup_failure` when given).
  Result<std::unique_ptr<WorkerProcess>> Launch(std::optional<Failure>* startup_failure = nullptr);

  const LaunchOptions& options() const { return options_; }
  const HelloInfo& hello() const { return hello_; }
  GlobalCoverage* coverage() const { return coverage_; }

 private:
  LaunchOptions options_;
  GlobalCoverage* coverage_;
  HelloInfo hello_;
};

// The outcome of one input run on its own.
struct RunOutcome {
  bool failed = false;
  Failure failure;                 // when failed
  std::vector<uint32_t> features;  // when not failed
  uint64_t exec_time_us = 0;
};

// Runs `input` once in `worker`, which must be idle; the worker is dead afterwards when the
// outcome failed (the caller launches a new one). Watches the time and memory limits.
Result<RunOutcome> RunInput(WorkerProcess& worker, const LaunchOptions& options,
                            const uint8_t* data, size_t size);

// Whether a file starts a Pollen target: it exists, is executable and carries the
// runtime's marker. The error says which of these is not so.
Status CheckTargetFile(const std::string& path);

}  // namespace pollen::node

#endif  // POLLEN_NODE_WORKER_LAUNCHER_H_
