// The worker's clock for deadlines checked on every execution: CLOCK_MONOTONIC_COARSE, a
// few ns a call instead of a few dozen, at the resolution of the kernel's tick (1-4 ms).
#ifndef POLLEN_ENGINE_RUNTIME_COARSE_CLOCK_H_
#define POLLEN_ENGINE_RUNTIME_COARSE_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace pollen::runtime {

inline uint64_t CoarseNowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_COARSE_CLOCK_H_
