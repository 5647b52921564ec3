// The coordinator's record of one worker process and the request it is running; private
// to the coordinator's files (coordinator.cc, coordinator_work.cc, coordinator_failures.cc).
#ifndef POLLEN_NODE_COORDINATOR_SLOT_H_
#define POLLEN_NODE_COORDINATOR_SLOT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "node/coordinator.h"
#include "node/drift_check.h"
#include "node/worker_process.h"

namespace pollen::node {

struct Coordinator::Slot {
  enum class State { kIdle, kFuzz, kMinimize, kExecute };
  std::unique_ptr<WorkerProcess> proc;
  State state = State::kIdle;
  size_t entry = SIZE_MAX;  // corpus index being fuzzed; SIZE_MAX = the empty input
  uint64_t last_runs = 0;
  uint64_t last_progress_ms = 0;
  uint64_t timeout_signalled_ms = 0;
  bool killed_for_timeout = false;  // at --timeout, or at the hang cutoff (limit_ms below it)
  uint64_t limit_ms = 0;            // the limit it was stopped at
  bool killed_for_oom = false;
  uint64_t oom_rss_mb = 0;
  uint64_t max_rss_mb = 0;
  uint64_t request_start_us = 0;        // when the current request was sent
  std::vector<uint8_t> minimize_found;  // the input being minimized, as it was found
  std::string origin;          // of the input being executed as it is (PendingInput::origin)
  bool keep = false;           // and whether it joins whatever it covers (PendingInput::keep)
  DriftCheck drift;            // kept across the slot's restarts
  bool stage = false;          // the fuzz request runs the entry's input-to-state stage
  uint64_t unit_max_runs = 0;  // of the fuzz request in flight
  bool profile = false;        // the request in flight climbs the value profile
  bool hooks_allowed = false;  // its mutants may run without comparison hooks
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_COORDINATOR_SLOT_H_
