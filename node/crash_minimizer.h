// Minimizes a failing input: candidates run one at a time in a worker of their own, and a
// candidate is kept when it fails with the same kind. A candidate that fails kills its
// worker, so each kept candidate costs a worker restart: the work is bounded by time.
#ifndef POLLEN_NODE_CRASH_MINIMIZER_H_
#define POLLEN_NODE_CRASH_MINIMIZER_H_

#include <cstdint>
#include <vector>

#include "node/failure.h"
#include "node/worker_launcher.h"

namespace pollen::node {

struct CrashMinimizeResult {
  std::vector<uint8_t> input;  // the smallest input that still fails (the original at worst)
  Failure failure;             // the failure of `input`
  uint64_t attempts = 0;
  bool interrupted = false;
};

// Hangs, OOMs and kills from outside are not minimized (each try would cost the whole limit): they
// come back as they are. Stops early on Ctrl-C, keeping the best input so far.
CrashMinimizeResult MinimizeFailure(WorkerLauncher& launcher, const std::vector<uint8_t>& input,
                                    const Failure& failure, uint32_t time_limit_s);

}  // namespace pollen::node

#endif  // POLLEN_NODE_CRASH_MINIMIZER_H_
