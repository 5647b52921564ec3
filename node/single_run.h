// What the commands that run single inputs (repro, minimize, merge, the
// nightly's cleanse) share: a stable id of a target's build, and a worker
// launcher with its coverage map.
#ifndef POLLEN_NODE_SINGLE_RUN_H_
#define POLLEN_NODE_SINGLE_RUN_H_

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "node/global_coverage.h"
#include "node/worker_launcher.h"

namespace pollen::node {

// A stable id of the target's build: the first 16 hex digits of the binary's
// SHA-1.
Result<std::string> BuildIdOf(const std::string& target);

// A worker launcher for runs of single inputs, with the coverage map it needs
// (the map must outlive the launcher: both are owned here).
struct SingleRunLauncher {
  std::unique_ptr<GlobalCoverage> coverage;
  std::unique_ptr<WorkerLauncher> launcher;
};
// One allocation above `malloc_limit_mb` (0: the rss limit) is an oom, as in pollen fuzz.
Result<SingleRunLauncher> MakeSingleRunLauncher(const std::string& target, uint32_t timeout_s,
                                                uint32_t rss_limit_mb, uint32_t max_len,
                                                uint32_t malloc_limit_mb = 0);

}  // namespace pollen::node

#endif  // POLLEN_NODE_SINGLE_RUN_H_
