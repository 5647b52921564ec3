// Monotonic time in milliseconds and microseconds, for deadlines, watchdogs and accounting.
#ifndef POLLEN_ENGINE_CLOCK_H_
#define POLLEN_ENGINE_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace pollen::engine {

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

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_CLOCK_H_
