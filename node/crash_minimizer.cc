#include "node/crash_minimizer.h"

#include <time.h>

#include <memory>

#include "base/clock.h"
#include "engine/minimizer.h"
#include "node/interrupt.h"

namespace pollen::node {
namespace {}  // namespace

CrashMinimizeResult MinimizeFailure(WorkerLauncher& launcher, const std::vector<uint8_t>& input,
                                    const Failure& failure, uint32_t time_limit_s) {
  CrashMinimizeResult result;
  result.input = input;
  result.failure = failure;
  // A worker killed from outside (SIGKILL) does not fail again on its own.
  if (failure.kind == "timeout" || failure.kind == "oom" || failure.kind == "KILL" ||
      input.empty()) {
    return result;
  }

  const uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(time_limit_s) * 1000;
  std::unique_ptr<WorkerProcess> worker;
  bool out_of_time = false;
  auto oracle = [&](const uint8_t* data, size_t size) -> bool {
    if (Interrupted() || base::MonotonicMs() > deadline) {
      out_of_time = true;
      return false;
    }
    if (!worker) {
      auto launched = launcher.Launch();
      if (!launched.ok()) {
        out_of_time = true;
        return false;
      }
      worker = std::move(launched).value();
    }
    auto outcome = RunInput(*worker, launcher.options(), data, size);
    if (!outcome.ok()) {
      worker.reset();
      return false;
    }
    if (!outcome->failed) return false;
    worker.reset();  // it died
    if (outcome->failure.kind != failure.kind) return false;
    result.failure = outcome->failure;
    return true;
  };
  // The budget in attempts is generous: time is the real limit, checked by the oracle.
  result.input = engine::MinimizeBytes(input, oracle, 100000, &result.attempts);
  result.interrupted = Interrupted();
  (void)out_of_time;
  return result;
}

}  // namespace pollen::node
