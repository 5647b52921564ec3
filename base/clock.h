// Monotonic time in milliseconds and microseconds, for deadlines, watchdogs and accounting;
// wall-clock time for timestamps that leave the process.
#ifndef POLLEN_BASE_CLOCK_H_
#define POLLEN_BASE_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace pollen::base {

inline uint64_t MonotonicMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

inline uint64_t MonotonicUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000 + static_cast<uint64_t>(ts.tv_nsec) / 1000;
}

// Milliseconds since the Unix epoch, for timestamps that leave the process (corpus metadata,
// records, reports). Not for deadlines: it jumps when the clock is set.
inline int64_t UnixMs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace pollen::base

#endif  // POLLEN_BASE_CLOCK_H_
