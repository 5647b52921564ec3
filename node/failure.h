// What went wrong when a worker died, as the user will read it and as deduplication sees it.
#ifndef POLLEN_NODE_FAILURE_H_
#define POLLEN_NODE_FAILURE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pollen::node {

struct Failure {
  // Short kind: a sanitizer's bug type (heap-buffer-overflow, ...), a signal (SEGV, ABRT,
  // ILL, FPE, BUS, TRAP, KILL), or timeout, oom, exit, uncaught-exception,
  // undefined-behavior, unexpected-exit.
  std::string kind;
  std::string summary;              // one line for the terminal
  std::string report;               // the report from its first ERROR line, symbolized
  std::vector<std::string> frames;  // the top frames of the target's own code
  std::string signature;            // 16 hex digits from kind and top frames
  std::string context;              // what the worker was doing ("while fuzzing", ...)
};

// What the coordinator knew when the worker died.
struct DeathContext {
  int wait_status = 0;
  std::string stderr_text;
  bool killed_for_timeout = false;
  uint64_t cutoff_ms = 0;  // stopped at the hang cutoff (node/hang_cutoff.h), not at the timeout
  bool killed_for_oom = false;
  uint64_t rss_mb = 0;
  uint32_t timeout_s = 0;
  uint32_t rss_limit_mb = 0;
  bool exit_in_target = false;
};

Failure ClassifyFailure(const DeathContext& death);

// The signature of a failure of `kind` whose top frames are `frames` (Failure::signature).
std::string FailureSignature(const std::string& kind, const std::vector<std::string>& frames);

// Drops, from each stack of a report, the frames above the target's first own frame (the
// signal handler, the trampoline) and below its last (the worker loop, main, libc's
// start), and numbers the rest from #0. A stack with no frame of the target is kept whole.
std::string TrimRuntimeFrames(const std::string& report);

// Extracts the top `n` frames that belong to the target (not the runtime, libc or a
// sanitizer) from a report in the sanitizers' stack format.
std::vector<std::string> TopUserFrames(const std::string& report, size_t n);

}  // namespace pollen::node

#endif  // POLLEN_NODE_FAILURE_H_
