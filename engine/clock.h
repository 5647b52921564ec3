// Monotonic time in milliseconds, for deadlines and watchdogs.
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

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_CLOCK_H_
