// The coordinator's side of a worker's death (the input rebuilt, the failure classified,
// minimized and saved, the worker restarted), its timeouts and its drift restarts.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

#include "base/clock.h"
#include "node/artifacts.h"
#include "node/coordinator.h"
#include "node/coordinator_slot.h"
#include "node/crash_minimizer.h"
#include "node/failure.h"
#include "node/interrupt.h"

namespace pollen::node {
namespace {

constexpr uint64_t kTimeoutGraceMs = 2000;  // after SIGUSR1, before SIGKILL

}  // namespace

std::vector<uint8_t> Coordinator::RebuildInput(Slot& slot) {
  engine::WorkerShmView& shm = slot.proc->shm();
  engine::WorkerShmHeader* h = shm.header();
  auto phase = static_cast<engine::WorkerPhase>(__atomic_load_n(&h->phase, __ATOMIC_RELAXED));
  // A fuzzing worker publishes the inputs its chain does not rebuild (gate fixes) raw.
  bool raw = __atomic_load_n(&h->raw_in_mem, __ATOMIC_RELAXED) != 0;
  if (phase == engine::WorkerPhase::kFuzz && !raw) {
    const engine::MutationSources sources = shm.ChainSources(&launcher_->options().dictionary);
    size_t entry_size = std::min<size_t>(h->entry_size, h->max_input);  // as the worker does
    replay_mutator_.set_limit(
        engine::MutationLimit(h->mutation_len, entry_size, launcher_->options().max_len));
    std::vector<uint8_t> out(replay_mutator_.max_size());
    size_t n = engine::ReplayChain(replay_mutator_, shm.entry(), entry_size, h->chain_rng_state,
                                   h->chain_rng_inc, h->chain_length, sources, out.data());
    out.resize(n);
    return out;
  }
  if (phase == engine::WorkerPhase::kFuzz || phase == engine::WorkerPhase::kExecute ||
      phase == engine::WorkerPhase::kMinimize) {
    size_t n = std::min<size_t>(h->raw_size, h->max_input);
    return std::vector<uint8_t>(shm.raw(), shm.raw() + n);
  }
  return {};
}

void Coordinator::RecordFailure(const std::vector<uint8_t>& input, const Failure& failure) {
  uint64_t seen = ++failure_counts_[failure.signature];
  if (store_ != nullptr) {
    storage::CrashRecord record{failure.kind,   input,         failure.report, 1,
                                base::UnixMs(), base::UnixMs()};
    Status st = store_->PutCrash(failure.signature, record);
    if (!st.ok()) spdlog::warn("cannot record the failure in the store: {}", st.message());
  }
  if (seen > 1) {
    spdlog::info("known failure {} ({}), seen {} times", failure.signature, failure.kind, seen);
    return;
  }
  spdlog::error("FAILURE ({}): {} [{}]", failure.context, failure.summary, failure.signature);
  std::fprintf(stderr, "%s\n", failure.report.c_str());
  std::vector<uint8_t> saved = input;
  Failure saved_failure = failure;
  if (!Interrupted() && options_.minimize_time > 0) {
    spdlog::info("minimizing the {}-byte input (at most {} s)...", input.size(),
                 options_.minimize_time);
    CrashMinimizeResult r = MinimizeFailure(*launcher_, input, failure, options_.minimize_time);
    if (r.input.size() < input.size()) {
      spdlog::info("minimized to {} bytes in {} attempts", r.input.size(), r.attempts);
      saved = r.input;
      saved_failure.report = r.failure.report;
      saved_failure.summary = r.failure.summary;
    }
  }
  auto path = SaveArtifact(artifact_dir_, saved, saved_failure, options_.target);
  if (!path.ok()) {
    spdlog::error("{}", path.status().message());
  } else {
    // pollen libfuzzer's observer says where its own copy went; the work directory is temporary.
    if (!options_.libfuzzer_output) {
      std::string limit = options_.malloc_limit_mb != 0
                              ? " --malloc-limit-mb=" + std::to_string(options_.malloc_limit_mb)
                              : "";
      spdlog::info("artifact: {} ({} bytes); reproduce with: pollen repro{} {} {}", path.value(),
                   saved.size(), limit, options_.target, path.value());
    }
    summary_.artifacts.push_back(path.value());
  }
  if (observer_ != nullptr) observer_->OnNewFailure(saved_failure, saved);
  summary_.failures++;
  if (!options_.keep_going) stop_ = true;
}

void Coordinator::RecordHang(const std::vector<uint8_t>& input, const Failure& hang) {
  hang_stops_++;
  // The same stack stuck past --timeout before: that failure again, cut short this time.
  auto known = failure_counts_.find(FailureSignature("timeout", hang.frames));
  if (known != failure_counts_.end()) {
    spdlog::info("known failure {} (timeout), seen {} times (stopped at the hang cutoff)",
                 known->first, ++known->second);
    return;
  }
  if (++hang_counts_[hang.signature] > 1) return;
  auto path = SaveArtifact(artifact_dir_, input, hang, options_.target);
  if (!path.ok()) {
    spdlog::error("{}", path.status().message());
    return;
  }
  spdlog::warn("{} ({}) [{}]: saved as {} ({} bytes), not reported as a failure", hang.summary,
               hang.context, hang.signature, path.value(), input.size());
}

void Coordinator::HandleDeath(Slot& slot) {
  slot.proc->Kill();
  DeathContext death;
  death.wait_status = slot.proc->WaitExit();
  death.stderr_text = slot.proc->stderr_text();
  death.killed_for_timeout = slot.killed_for_timeout;
  if (slot.killed_for_timeout) {
    hang_cutoff_.NoteStopped(base::MonotonicMs() - slot.last_progress_ms);
    if (slot.limit_ms < hang_cutoff_.timeout_ms()) death.cutoff_ms = slot.limit_ms;
  }
  death.killed_for_oom = slot.killed_for_oom;
  death.rss_mb = slot.oom_rss_mb;
  death.timeout_s = options_.timeout;
  death.rss_limit_mb = options_.rss_limit_mb;
  engine::WorkerShmHeader* h = slot.proc->shm().header();
  death.exit_in_target = h->exit_in_target != 0;
  retired_runs_ += h->total_runs;
  std::vector<uint8_t> input = RebuildInput(slot);
  Failure failure = ClassifyFailure(death);
  switch (static_cast<engine::WorkerPhase>(h->phase)) {
    case engine::WorkerPhase::kFuzz:
      failure.context = "while fuzzing";
      break;
    case engine::WorkerPhase::kExecute:
      failure.context = "while running an input as it is";
      break;
    case engine::WorkerPhase::kMinimize:
      failure.context = "while minimizing a new input";
      break;
    default:
      failure.context = "between executions";
      break;
  }
  // A fuzz unit that ended in a death took its time all the same. The scheduler weighs
  // entries by the time their units take, and one whose mutants hang (libsndfile's RF64
  // headers: a 10-s timeout each) is then chosen less, as one whose units run long.
  if (slot.state == Slot::State::kFuzz && slot.entry != SIZE_MAX) {
    corpus_->RecordFuzzed(slot.entry, h->runs, false, base::MonotonicUs() - slot.request_start_us);
  }
  // A stage is not resumed past a candidate that killed the worker: it would again.
  if (slot.stage) stage_cursor_[slot.entry] = kStageDone;
  slot.proc.reset();
  slot.state = Slot::State::kIdle;
  if (death.cutoff_ms != 0) {
    RecordHang(input, failure);
  } else {
    RecordFailure(input, failure);
  }
  Relaunch(slot);
}

bool Coordinator::Relaunch(Slot& slot) {
  if (stop_) return false;
  Status st = StartSlot(slot);
  if (st.ok()) return true;
  spdlog::error("cannot restart a worker: {}", st.message());
  stop_ = true;
  summary_.exit_code = 2;
  return false;
}

void Coordinator::RestartDrifted(Slot& slot) {
  drift_restarts_++;
  if (drift_restarts_ == 1) {
    spdlog::warn(
        "worker {}: corpus entries cover less than half of what they covered when they "
        "joined the corpus (state an earlier input left in the target?); restarting it",
        slot.proc->pid());
  } else {
    spdlog::info("worker {} drifted again; restarting it (restart {})", slot.proc->pid(),
                 drift_restarts_);
  }
  Restart(slot);
}

void Coordinator::Restart(Slot& slot) {
  retired_runs_ += slot.proc->shm().header()->total_runs;
  slot.proc->Kill();
  slot.proc->WaitExit();
  DriftCheck drift = slot.drift;
  slot.proc.reset();
  slot.state = Slot::State::kIdle;
  if (Relaunch(slot)) slot.drift = drift;
}

void Coordinator::Watch(Slot& slot, uint64_t now_ms) {
  if (!slot.proc || slot.state == Slot::State::kIdle) return;
  uint64_t runs = __atomic_load_n(&slot.proc->shm().header()->runs, __ATOMIC_RELAXED);
  if (runs != slot.last_runs) {
    slot.last_runs = runs;
    slot.last_progress_ms = now_ms;
  }
  bool mutant = slot.state == Slot::State::kFuzz || slot.state == Slot::State::kMinimize;
  uint64_t limit_ms = hang_cutoff_.LimitMs(mutant, now_ms);
  if (!slot.killed_for_timeout && now_ms - slot.last_progress_ms > limit_ms) {
    slot.killed_for_timeout = true;
    slot.limit_ms = limit_ms;
    slot.timeout_signalled_ms = now_ms;
    kill(slot.proc->pid(), SIGUSR1);  // the runtime prints where it is stuck, then exits
  } else if (slot.killed_for_timeout && now_ms - slot.timeout_signalled_ms > kTimeoutGraceMs) {
    slot.proc->Kill();
  }
}

}  // namespace pollen::node
