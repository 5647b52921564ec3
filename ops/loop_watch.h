// Liveness of a service's main loop, for its /healthz: the loop ticks the watch on each
// turn, and the probe fails when a loop that has started has not turned for too long (a
// deadlock, or a call stuck on a dead disk), so that Kubernetes restarts the pod. A loop
// that has not started yet, or has ended (draining after SIGTERM), counts as alive.
#ifndef POLLEN_OPS_LOOP_WATCH_H_
#define POLLEN_OPS_LOOP_WATCH_H_

#include <atomic>
#include <cstdint>

#include "ops/probe.h"

namespace pollen::ops {

// How long a started loop may go without a turn before /healthz fails: far above any loop
// turn of Pollen's services (100 ms at most), below what an operator would wait before a
// restart.
constexpr uint64_t kMaxLoopStallMs = 60000;

class LoopWatch {
 public:
  // Each turn of the loop. Thread-safe, lock-free: a relaxed store.
  void Tick();
  // Once the loop has ended: from then on the watch always reports alive.
  void Ended();

  // Alive unless the last Tick is more than max_stall_ms old. Thread-safe.
  Probe Check(uint64_t max_stall_ms = kMaxLoopStallMs) const;

 private:
  std::atomic<uint64_t> last_tick_ms_{0};  // 0: not started
  std::atomic<bool> ended_{false};
};

}  // namespace pollen::ops

#endif  // POLLEN_OPS_LOOP_WATCH_H_
