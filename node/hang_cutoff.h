// How long a worker's execution may run before the coordinator stops it.
//
// An execution that runs past --timeout is a hang, reported as a failure with its stack:
// libFuzzer's rule, and each one costs the worker the whole timeout. A target whose
// mutants hang often loses much of a run that way: on libsndfile (RF64 headers whose chunk
// loop never ends) 18 executions ran into the 10-s timeout in ten minutes, close to a
// third of the run. AFL++ stops an execution after a limit calibrated on the target's own
// speed (at most a second by default) and files it among its hangs.
//
// With --hang-cutoff-ms (1000 by default; 0 turns it off: docs/benchmarks.md "A hang
// cutoff"), Pollen gives every execution --timeout until the executions stopped at a limit
// have taken kSharePercent of the workers' time; from then on, while that holds, a mutant
// (of a fuzz unit or of a minimization) is stopped after the cutoff: --hang-cutoff-ms, or
// ten times the slowest corpus entry's time if that is longer, and never longer than
// --timeout. Inputs run as they are (seeds, inputs from peers) always get --timeout. The
// coordinator saves what the cutoff stopped as a hang, not as a failure: it was not seen to
// run past --timeout (node/coordinator_failures.cc).
#ifndef POLLEN_NODE_HANG_CUTOFF_H_
#define POLLEN_NODE_HANG_CUTOFF_H_

#include <algorithm>
#include <cstdint>

namespace pollen::node {

class HangCutoff {
 public:
  static constexpr uint64_t kSharePercent = 5;
  static constexpr uint64_t kSlowestEntryFactor = 10;

  // cutoff_ms 0: every execution gets timeout_ms.
  HangCutoff(uint64_t timeout_ms, uint64_t cutoff_ms, uint32_t workers)
      : timeout_ms_(timeout_ms), cutoff_ms_(cutoff_ms), workers_(std::max<uint32_t>(workers, 1)) {}

  void Start(uint64_t now_ms) { start_ms_ = now_ms; }

  // A corpus entry ran in exec_time_us.
  void NoteEntry(uint64_t exec_time_us) {
    slowest_entry_ms_ = std::max(slowest_entry_ms_, exec_time_us / 1000);
  }

  // An execution was stopped at a limit after running stalled_ms.
  void NoteStopped(uint64_t stalled_ms) { stopped_ms_ += stalled_ms; }

  // Whether the executions stopped so far have taken more than their share by now_ms.
  bool OverShare(uint64_t now_ms) const {
    uint64_t worker_ms = (now_ms - std::min(now_ms, start_ms_)) * workers_;
    return stopped_ms_ * 100 > worker_ms * kSharePercent;
  }

  // The time an execution may run before it is stopped: a mutant's, or an input's run as
  // it is.
  uint64_t LimitMs(bool mutant, uint64_t now_ms) const {
    if (!mutant || cutoff_ms_ == 0 || !OverShare(now_ms)) return timeout_ms_;
    return std::min(timeout_ms_, std::max(cutoff_ms_, slowest_entry_ms_ * kSlowestEntryFactor));
  }

  uint64_t timeout_ms() const { return timeout_ms_; }
  uint64_t stopped_ms() const { return stopped_ms_; }

 private:
  uint64_t timeout_ms_;
  uint64_t cutoff_ms_;
  uint32_t workers_;
  uint64_t start_ms_ = 0;
  uint64_t slowest_entry_ms_ = 0;
  uint64_t stopped_ms_ = 0;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_HANG_CUTOFF_H_
