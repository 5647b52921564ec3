#include "ops/loop_watch.h"

#include <string>

#include "base/clock.h"

namespace pollen::ops {

void LoopWatch::Tick() { last_tick_ms_.store(base::MonotonicMs(), std::memory_order_relaxed); }

void LoopWatch::Ended() { ended_.store(true, std::memory_order_relaxed); }

Probe LoopWatch::Check(uint64_t max_stall_ms) const {
  if (ended_.load(std::memory_order_relaxed)) return {true, "stopping"};
  const uint64_t last = last_tick_ms_.load(std::memory_order_relaxed);
  if (last == 0) return {true, "starting"};
  const uint64_t now = base::MonotonicMs();
  const uint64_t stalled = now > last ? now - last : 0;
  if (stalled > max_stall_ms) {
    return {false, "the main loop has not turned for " + std::to_string(stalled / 1000) + " s"};
  }
  return {true, "ok"};
}

}  // namespace pollen::ops
