#include "node/coordinator.h"

#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "base/clock.h"
#include "base/sha1.h"
#include "node/artifacts.h"
#include "node/crash_minimizer.h"
#include "node/drift_check.h"
#include "node/interrupt.h"
#include "node/learned_dictionary.h"
#include "node/worker_messages.h"

namespace pollen::node {
namespace {

// A worker's time alone with one entry: 100 ms (Go's unit) or 8192 executions, whichever
// comes first. On a fast target 100 ms is close to a million executions on one entry: a
// poor choice of entry then wastes them all, and a new entry waits that long for its turn.
// 8192 keeps the round trip per unit (~20 us) near 2 % of the time at 8 M exec/s.
constexpr uint32_t kFuzzUnitMs = 100;
constexpr uint64_t kFuzzUnitRuns = 8192;
constexpr uint64_t kMinimizeRuns = 4096;     // at most, executions spent minimizing one new input
// Minimizing new inputs may cost at most 1/kMinimizeCostDivisor of what fuzz units cost; a
// new input that finds the budget spent joins the corpus as it was found. Where new
// coverage comes every few dozen executions (early on, or on a target like re2),
// minimizing every find with up to 4096 runs took nearly all the time: 75 % of the
// executions and 88 % of the time of a 30 s run on re2. When finds are rare the budget
// builds up and every find gets its 4096 runs.
// The cost of an execution is counted as kRunCostBytes + its input's size: inputs that
// find coverage, and so minimization candidates, tend to be longer and slower than the
// average mutant (on re2 a minimization run took 3-7 times a fuzz run). Counted from
// sizes and runs, not time, so that a run with one worker stays deterministic.
constexpr uint64_t kMinimizeCostDivisor = 4;
constexpr uint64_t kRunCostBytes = 64;
// A budget to start with, before any fuzz unit has cost anything: one whole minimization
// of a 64-byte input, so that the first finds are not all kept as found.
constexpr uint64_t kMinimizeInitialCost = kMinimizeRuns * (kRunCostBytes + 64);
constexpr uint64_t kRssCheckEveryMs = 200;
constexpr uint64_t kTimeoutGraceMs = 2000;   // after SIGUSR1, before SIGKILL

std::string HumanBytes(uint64_t b) {
  char buf[32];
  if (b < 10 * 1024) {
    std::snprintf(buf, sizeof(buf), "%lub", static_cast<unsigned long>(b));
  } else if (b < 10 * 1024 * 1024) {
    std::snprintf(buf, sizeof(buf), "%luKb", static_cast<unsigned long>(b / 1024));
  } else {
    std::snprintf(buf, sizeof(buf), "%luMb", static_cast<unsigned long>(b / (1024 * 1024)));
  }
  return buf;
}

}  // namespace

struct Coordinator::Slot {
  enum class State { kIdle, kFuzz, kMinimize, kExecute };
  std::unique_ptr<WorkerProcess> proc;
  State state = State::kIdle;
  size_t entry = SIZE_MAX;  // corpus index being fuzzed; SIZE_MAX = the empty input
  uint64_t last_runs = 0;
  uint64_t last_progress_ms = 0;
  uint64_t timeout_signalled_ms = 0;
  bool killed_for_timeout = false;
  bool killed_for_oom = false;
  uint64_t oom_rss_mb = 0;
  uint64_t max_rss_mb = 0;
  uint64_t request_start_us = 0;  // when the current request was sent
  size_t minimize_input_size = 0;  // size of the input being minimized
  std::string origin;  // of the input being executed as it is (PendingInput::origin)
  DriftCheck drift;    // kept across the slot's restarts
  bool stage = false;  // the fuzz request runs the entry's input-to-state stage
  uint64_t unit_max_runs = 0;  // of the fuzz request in flight
};

Coordinator::Coordinator(const FuzzOptions& options, WorkerLauncher* launcher, LiveCorpus* corpus,
                         storage::CorpusStore* store, std::string artifact_dir)
    : options_(options),
      launcher_(launcher),
      corpus_(corpus),
      store_(store),
      artifact_dir_(std::move(artifact_dir)),
      coverage_(launcher->coverage()),
      rng_(engine::Rng::FromSeed(options.seed)),
      replay_mutator_(launcher->options().max_len),
      length_(options.len_control, launcher->options().max_len),
      value_profile_(launcher->options().use_value_profile ? options.use_value_profile
                                                           : Setting::kOff) {
  corpus_->set_speed_weight(options.speed_weight);
}

Coordinator::~Coordinator() = default;

Status Coordinator::StartSlot(Slot& slot) {
  auto launched = launcher_->Launch();
  if (!launched.ok()) return launched.status();
  slot = Slot();
  slot.proc = std::move(launched).value();
  return Status::Ok();
}

uint64_t Coordinator::TotalRuns() const {
  uint64_t total = retired_runs_;
  for (const auto& s : slots_) {
    if (s->proc) total += __atomic_load_n(&s->proc->shm().header()->total_runs, __ATOMIC_RELAXED);
  }
  return total;
}

bool Coordinator::ShouldStop() const {
  if (stop_) return true;
  if (observer_ != nullptr && observer_->StopRequested()) return true;
  if (options_.time != 0 && base::MonotonicMs() - start_ms_ >= options_.time * 1000) return true;
  if (options_.runs != 0 && TotalRuns() >= options_.runs) return true;
  return false;
}

void Coordinator::Dispatch(Slot& slot) {
  if (!slot.proc || slot.state != Slot::State::kIdle || stop_) return;
  engine::WorkerShmHeader* h = slot.proc->shm().header();
  FuzzParams fuzz;  // when the request is a fuzz request
  slot.proc->ClearStderr();
  if (!to_execute_.empty()) {
    PendingInput input = std::move(to_execute_.front());
    to_execute_.pop_front();
    size_t n = std::min<size_t>(input.data.size(), h->max_input);
    if (n > 0) std::memcpy(slot.proc->shm().raw(), input.data.data(), n);  // data() may be null
    h->raw_size = static_cast<uint32_t>(n);
    slot.origin = std::move(input.origin);
    slot.state = Slot::State::kExecute;
  } else {
    if (!baseline_done_) {
      bool executing = std::any_of(slots_.begin(), slots_.end(), [](const auto& s) {
        return s->state == Slot::State::kExecute;
      });
      if (executing) return;  // fuzz only once the baseline coverage is complete
      baseline_done_ = true;
      baseline_ms_ = base::MonotonicMs() - start_ms_;
      size_t largest = 0;
      for (size_t i = 0; i < corpus_->size(); i++) {
        largest = std::max(largest, corpus_->entry(i).data.size());
      }
      length_.Start(largest, TotalRuns());
      PrintStatus("INITED");
    }
    size_t size = corpus_->size();
    uint32_t owned_count = 0;
    slot.entry = size == 0 ? SIZE_MAX : corpus_->Choose(rng_);
    if (slot.entry == SIZE_MAX) {
      h->entry_size = 0;
      h->crossover_size = 0;
    } else {
      const auto& e = corpus_->entry(slot.entry);
      const auto& partner = corpus_->entry(rng_.Below(static_cast<uint32_t>(size)));
      size_t en = std::min<size_t>(e.data.size(), h->max_input);
      size_t pn = std::min<size_t>(partner.data.size(), h->max_input);
      // An empty input's data() may be null, which memcpy may not be given even for 0 bytes.
      if (en > 0) std::memcpy(slot.proc->shm().entry(), e.data.data(), en);
      if (pn > 0) std::memcpy(slot.proc->shm().crossover(), partner.data.data(), pn);
      h->entry_size = static_cast<uint32_t>(en);
      h->crossover_size = static_cast<uint32_t>(pn);
      if (options_.reduce_inputs && en == e.data.size()) {
        std::vector<uint32_t> owned = corpus_->Owned(slot.entry);
        if (!owned.empty() && owned.size() <= h->max_features) {
          std::memcpy(slot.proc->shm().features(), owned.data(), owned.size() * sizeof(uint32_t));
          owned_count = static_cast<uint32_t>(owned.size());
        }
      }
    }
    h->mutation_len = static_cast<uint32_t>(length_.Limit(TotalRuns()));
    // The words this worker learned join the union, and it gets the others'.
    learned_.Merge(h->learned);
    h->learned = learned_;
    fuzz.rng_state = rng_.Next64();
    fuzz.rng_inc = rng_.Next64();
    fuzz.duration_ms = kFuzzUnitMs;
    uint64_t max_runs = kFuzzUnitRuns;
    if (options_.runs != 0) {
      uint64_t done = TotalRuns();
      max_runs = std::min(max_runs, done >= options_.runs ? 1 : options_.runs - done);
    }
    fuzz.max_runs = max_runs;
    slot.unit_max_runs = max_runs;
    fuzz.owned_count = owned_count;
    slot.stage = false;
    if (options_.i2s_stage && slot.entry != SIZE_MAX) {
      if (stage_cursor_.size() < size) stage_cursor_.resize(size, 0);
      if (stage_cursor_[slot.entry] != kStageDone) {
        fuzz.stage = true;
        fuzz.stage_from = stage_cursor_[slot.entry];
        slot.stage = true;
      }
    }
    slot.state = Slot::State::kFuzz;
  }
  // Inputs run as they are (the stored corpus, peers' finds) always with the profile unless
  // it is off: the levels they reached are known before fuzzing, and what a peer's profile
  // found counts here too.
  uint64_t now_ms = base::MonotonicMs();
  bool profile = slot.state == Slot::State::kExecute
                     ? value_profile_.setting() != Setting::kOff
                     : value_profile_.Active(now_ms, coverage_->edges());
  h->value_profile = profile ? 1 : 0;
  slot.last_runs = 0;
  slot.last_progress_ms = now_ms;
  slot.request_start_us = base::MonotonicUs();
  Status sent =
      slot.state == Slot::State::kExecute ? SendExecute(*slot.proc) : SendFuzz(*slot.proc, fuzz);
  (void)sent;  // a worker gone shows its death on the control pipe
}

void Coordinator::AcceptInput(Slot& slot, const uint8_t* data, size_t size, uint64_t exec_time_us,
                              const std::string& origin) {
  engine::WorkerShmHeader* h = slot.proc->shm().header();
  uint32_t n = std::min(h->feature_count, h->max_features);
  const uint32_t* features = slot.proc->shm().features();
  if (coverage_->CountNew(features, n) == 0) return;  // someone else was first
  AddEntry(std::vector<uint8_t>(data, data + size), features, n, exec_time_us, origin);
}

bool Coordinator::AddEntry(std::vector<uint8_t> data, const uint32_t* features, size_t n,
                           uint64_t exec_time_us, std::string origin) {
  coverage_->Add(features, n);
  // Inputs with an origin of their own were handed in through the feed: another node's.
  const char* event = !origin.empty() ? "PEER" : baseline_done_ ? "NEW" : "SEED";
  size_t before = corpus_->size();
  Status st = corpus_->Add(std::move(data), std::vector<uint32_t>(features, features + n),
                           exec_time_us, std::move(origin));
  if (!st.ok()) {
    spdlog::error("cannot store a corpus entry: {}", st.message());
    stop_ = true;
    summary_.exit_code = 2;
    return false;
  }
  bool added = corpus_->size() > before;
  if (added) length_.OnNewEntry(TotalRuns());
  if (added && observer_ != nullptr) observer_->OnEntryAdded(corpus_->entry(corpus_->size() - 1));
  PrintStatus(event);
  return added;
}

void Coordinator::ReduceEntry(size_t entry, const uint8_t* data, size_t size,
                              const uint32_t* features, size_t n) {
  // The worker's claim is checked again here (LiveCorpus::Replace): a worker is a target's
  // process and may be wrong.
  if (coverage_->CountNew(features, n) != 0) return;  // new coverage goes through AcceptInput
  bool replaced = false;
  Status st = corpus_->Replace(entry, std::vector<uint8_t>(data, data + size),
                               std::vector<uint32_t>(features, features + n), &replaced);
  if (!st.ok()) {
    spdlog::error("cannot store a corpus entry: {}", st.message());
    stop_ = true;
    summary_.exit_code = 2;
    return;
  }
  if (replaced) {
    summary_.reductions++;
    PrintStatus("REDUCE");
  }
}

void Coordinator::ExecuteInput(std::vector<uint8_t> input, std::string origin) {
  to_execute_.push_back({std::move(input), std::move(origin)});
}

bool Coordinator::OfferEntry(std::vector<uint8_t> input, std::vector<uint32_t> features,
                             std::string origin) {
  if (corpus_->Contains(base::Sha1Hex(input.data(), input.size()))) return false;
  if (coverage_->CountNew(features.data(), features.size()) == 0) return false;
  return AddEntry(std::move(input), features.data(), features.size(), 0, std::move(origin));
}

uint32_t Coordinator::max_len() const { return launcher_->options().max_len; }

void Coordinator::HandleMessage(Slot& slot, const engine::FrameWords& words) {
  Result<FromWorker> msg = DecodeFromWorker(words);
  if (!msg.ok()) {
    spdlog::warn("worker {} sent {}; restarting it", slot.proc->pid(), msg.status().message());
    slot.proc->Kill();
    return;
  }
  if (const auto* r = std::get_if<FuzzDone>(&*msg)) {
    if (!HandleFuzzDone(slot, *r)) return;  // the worker is minimizing what it found
  } else if (const auto* r = std::get_if<Minimized>(&*msg)) {
    HandleMinimized(slot, *r);
  } else if (const auto* r = std::get_if<Executed>(&*msg)) {
    slot.state = Slot::State::kIdle;
    size_t size =
        std::min<size_t>(slot.proc->shm().header()->raw_size, slot.proc->shm().header()->max_input);
    AcceptInput(slot, slot.proc->shm().raw(), size, r->exec_time_us, slot.origin);
  } else {
    spdlog::warn("worker {} sent an unexpected message; restarting it", slot.proc->pid());
    slot.proc->Kill();
    return;
  }
  Dispatch(slot);
}

bool Coordinator::HandleFuzzDone(Slot& slot, const FuzzDone& r) {
  engine::WorkerShmHeader* h = slot.proc->shm().header();
  slot.state = Slot::State::kIdle;
  fuzz_runs_ += r.runs;
  fuzz_cost_ += r.runs * (kRunCostBytes + h->entry_size);
  // Nothing found or reduced and runs to spare: the unit ended on its time limit, where a
  // fast target's ends on its run count (a --seed repeats a run only while none does).
  if (!r.found && !r.reduced && r.runs < slot.unit_max_runs) units_on_time_++;
  const uint64_t elapsed_us = base::MonotonicUs() - slot.request_start_us;
  fuzz_us_ += elapsed_us;
  if (slot.entry != SIZE_MAX) corpus_->RecordFuzzed(slot.entry, r.runs, r.found, elapsed_us);
  if (slot.stage) {
    stage_cursor_[slot.entry] = r.stage_done ? kStageDone : r.stage_next;
    stage_runs_ += r.stage_runs;
    if (r.stage_found) stage_finds_++;
    slot.stage = false;
  }
  if (r.reduced && !r.found && slot.entry != SIZE_MAX) {
    uint32_t n = std::min(r.feature_count, h->max_features);
    size_t size = std::min<size_t>(r.input_size, h->max_input);
    ReduceEntry(slot.entry, slot.proc->shm().raw(), size, slot.proc->shm().features(), n);
  }
  if (!r.found) {
    if (slot.entry != SIZE_MAX && slot.drift.Observe(corpus_->entry(slot.entry).features.size(),
                                                     r.entry_feature_count, base::MonotonicMs())) {
      RestartDrifted(slot);
    }
    return true;
  }
  uint32_t n = std::min(r.feature_count, h->max_features);
  std::vector<uint32_t> fresh = coverage_->NewFeatures(slot.proc->shm().features(), n);
  if (fresh.empty()) return true;
  size_t size = std::min<size_t>(r.input_size, h->max_input);
  uint64_t max_runs = MinimizeBudget(size);
  if (max_runs == 0) {
    // Over budget: keep the input as it is, with all its features.
    unminimized_++;
    AcceptInput(slot, slot.proc->shm().raw(), size, 0);
    return true;
  }
  // Minimize while every new feature stays covered.
  std::memcpy(slot.proc->shm().features(), fresh.data(), fresh.size() * sizeof(uint32_t));
  slot.state = Slot::State::kMinimize;
  slot.minimize_input_size = size;
  slot.last_runs = 0;
  slot.last_progress_ms = base::MonotonicMs();
  slot.request_start_us = base::MonotonicUs();
  (void)SendMinimize(*slot.proc, static_cast<uint32_t>(fresh.size()), max_runs);
  return false;
}

void Coordinator::HandleMinimized(Slot& slot, const Minimized& r) {
  slot.state = Slot::State::kIdle;
  minimize_runs_ += r.runs;
  // The candidates shrink from the input's size towards the result's.
  minimize_cost_ += r.runs * (kRunCostBytes + (slot.minimize_input_size + r.input_size) / 2);
  minimize_us_ += base::MonotonicUs() - slot.request_start_us;
  minimize_requests_++;
  size_t size = std::min<size_t>(r.input_size, slot.proc->shm().header()->max_input);
  AcceptInput(slot, slot.proc->shm().raw(), size, 0);
}

uint64_t Coordinator::MinimizeBudget(size_t input_size) const {
  uint64_t allowed = kMinimizeInitialCost + fuzz_cost_ / kMinimizeCostDivisor;
  if (allowed <= minimize_cost_) return 0;
  return std::min(kMinimizeRuns, (allowed - minimize_cost_) / (kRunCostBytes + input_size));
}

std::vector<uint8_t> Coordinator::RebuildInput(Slot& slot) {
  engine::WorkerShmView& shm = slot.proc->shm();
  engine::WorkerShmHeader* h = shm.header();
  auto phase = static_cast<engine::WorkerPhase>(__atomic_load_n(&h->phase, __ATOMIC_RELAXED));
  // A fuzzing worker publishes the inputs its chain does not rebuild (gate fixes) raw.
  bool raw = __atomic_load_n(&h->raw_in_mem, __ATOMIC_RELAXED) != 0;
  if (phase == engine::WorkerPhase::kFuzz && !raw) {
    engine::MutationSources sources;
    sources.dictionary = &launcher_->options().dictionary;
    sources.cmp = &h->cmp_snapshot;
    sources.lengths = &h->length_fields;
    sources.learned = &h->learned;
    sources.crossover = shm.crossover();
    sources.crossover_size = std::min<size_t>(h->crossover_size, h->max_input);
    size_t entry_size = std::min<size_t>(h->entry_size, h->max_input);  // as the worker does
    replay_mutator_.set_limit(engine::MutationLimit(h->mutation_len, entry_size,
                                                    launcher_->options().max_len));
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
  if (!Interrupted()) {
    spdlog::info("minimizing the {}-byte input (at most {} s)...", input.size(), options_.minimize_time);
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
    spdlog::info("artifact: {} ({} bytes); reproduce with: pollen repro {} {}", path.value(),
                 saved.size(), options_.target, path.value());
    summary_.artifacts.push_back(path.value());
  }
  if (observer_ != nullptr) observer_->OnNewFailure(saved_failure, saved);
  summary_.failures++;
  if (!options_.keep_going) stop_ = true;
}

void Coordinator::HandleDeath(Slot& slot) {
  slot.proc->Kill();
  DeathContext death;
  death.wait_status = slot.proc->WaitExit();
  death.stderr_text = slot.proc->stderr_text();
  death.killed_for_timeout = slot.killed_for_timeout;
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
  // A stage is not resumed past a candidate that killed the worker: it would again.
  if (slot.stage) stage_cursor_[slot.entry] = kStageDone;
  slot.proc.reset();
  slot.state = Slot::State::kIdle;
  RecordFailure(input, failure);
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
    spdlog::warn("worker {}: corpus entries cover less than half of what they covered when they "
                 "joined the corpus (state an earlier input left in the target?); restarting it",
                 slot.proc->pid());
  } else {
    spdlog::info("worker {} drifted again; restarting it (restart {})", slot.proc->pid(), drift_restarts_);
  }
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
  if (!slot.killed_for_timeout && now_ms - slot.last_progress_ms > options_.timeout * 1000ULL) {
    slot.killed_for_timeout = true;
    slot.timeout_signalled_ms = now_ms;
    kill(slot.proc->pid(), SIGUSR1);  // the runtime prints where it is stuck, then exits
  } else if (slot.killed_for_timeout && now_ms - slot.timeout_signalled_ms > kTimeoutGraceMs) {
    slot.proc->Kill();
  }
}

void Coordinator::PrintStatus(const char* event) {
  uint64_t now = base::MonotonicMs();
  last_status_ms_ = now;
  double secs = std::max(0.001, static_cast<double>(now - start_ms_) / 1000.0);
  uint64_t runs = TotalRuns();
  uint64_t rss = 0;
  for (const auto& s : slots_) rss = std::max(rss, s->max_rss_mb);
  spdlog::info("#{}\t{}\texec/s: {}\tedges: {}\tfeatures: {}\tcorpus: {}/{}\tfailures: {}\trss: {}Mb\t{}s{}",
               runs, event, static_cast<uint64_t>(static_cast<double>(runs) / secs),
               coverage_->edges(), coverage_->features(), corpus_->size(),
               HumanBytes(corpus_->total_bytes()), summary_.failures, rss,
               static_cast<uint64_t>(secs), observer_ != nullptr ? observer_->StatusFields() : "");
}

Result<FuzzSummary> Coordinator::Run(std::vector<std::vector<uint8_t>> seeds,
                                     std::vector<std::vector<uint32_t>> known_features) {
  start_ms_ = base::MonotonicMs();
  const std::string learned_path = LearnedDictionaryPath(options_.workdir);
  Status learned = LoadLearnedDictionary(learned_path, &learned_);
  if (!learned.ok()) spdlog::warn("ignoring the learned dictionary: {}", learned.message());
  for (auto& s : seeds) to_execute_.push_back({std::move(s), ""});
  if (to_execute_.empty() && corpus_->size() == 0) to_execute_.push_back({});  // the empty input

  const uint32_t workers = WorkerCount(options_);
  for (uint32_t i = 0; i < workers; i++) {
    auto slot = std::make_unique<Slot>();
    Status st = StartSlot(*slot);
    if (!st.ok()) return st;
    slots_.push_back(std::move(slot));
  }
  // The map has its size once a worker said hello: restored entries' coverage goes in now.
  for (const auto& f : known_features) coverage_->Add(f.data(), f.size());
  const HelloInfo& hello = launcher_->hello();
  spdlog::info("{} workers; {} coverage counters in {} modules, {} pcs; seed {}; {} inputs to run first, "
               "{} corpus entries restored",
               workers, hello.num_counters, hello.num_modules, hello.num_pcs, options_.seed,
               to_execute_.size(), corpus_->size());
  if (observer_ != nullptr) observer_->OnStart(*this);

  uint64_t last_rss_ms = 0;
  std::vector<pollfd> fds;
  engine::FrameWords words;
  while (!ShouldStop()) {
    for (auto& s : slots_) Dispatch(*s);
    fds.clear();
    fds.push_back({InterruptFd(), POLLIN, 0});
    for (auto& s : slots_) {
      if (!s->proc) continue;
      fds.push_back({s->proc->control_fd(), POLLIN, 0});
      fds.push_back({s->proc->stderr_fd(), POLLIN, 0});
    }
    poll(fds.data(), fds.size(), 50);
    if (Interrupted()) {
      summary_.interrupted = true;
      break;
    }
    for (auto& s : slots_) {
      if (!s->proc) continue;
      s->proc->DrainStderr();
      bool dead = false;
      while (!dead && s->proc) {
        auto r = s->proc->TryReceive(&words);
        if (r == WorkerProcess::Receive::kMessage) {
          HandleMessage(*s, words);
        } else if (r == WorkerProcess::Receive::kClosed || r == WorkerProcess::Receive::kError) {
          dead = true;
        } else {
          break;
        }
      }
      if (dead) HandleDeath(*s);
      if (stop_) break;
    }
    uint64_t now = base::MonotonicMs();
    for (auto& s : slots_) Watch(*s, now);
    if (now - last_rss_ms >= kRssCheckEveryMs) {
      last_rss_ms = now;
      for (auto& s : slots_) {
        if (!s->proc) continue;
        uint64_t rss = s->proc->RssMb();
        s->max_rss_mb = std::max(s->max_rss_mb, rss);
        if (options_.rss_limit_mb != 0 && rss > options_.rss_limit_mb && !s->killed_for_oom) {
          s->killed_for_oom = true;
          s->oom_rss_mb = rss;
          s->proc->Kill();
        }
      }
    }
    if (observer_ != nullptr) observer_->OnTurn(*this);
    if (baseline_done_ && now - last_status_ms_ >= options_.status_every * 1000ULL) PrintStatus("pulse");
  }
  summary_.stopped = !summary_.interrupted && observer_ != nullptr && observer_->StopRequested();
  if (observer_ != nullptr) observer_->OnStop(*this);

  // Shut down: ask politely, then make sure.
  for (auto& s : slots_) {
    if (!s->proc) continue;
    (void)SendShutdown(*s->proc);
  }
  for (auto& s : slots_) {
    if (!s->proc) continue;
    retired_runs_ += s->proc->shm().header()->total_runs;
    learned_.Merge(s->proc->shm().header()->learned);
    s->proc->Kill();
    s->proc->WaitExit();
    s->proc.reset();
  }
  Status flushed = corpus_->Flush();
  if (!flushed.ok()) spdlog::error("flushing the corpus: {}", flushed.message());

  summary_.executions = retired_runs_;
  if (learned_.count > 0) {
    summary_.learned_dictionary = learned_.Format(true);
    Status saved = SaveLearnedDictionary(learned_path, learned_);
    if (!saved.ok()) spdlog::warn("cannot keep the learned dictionary: {}", saved.message());
  }
  spdlog::info(
      "baseline {} ms; fuzz units: {} runs in {} ms, {} ended on their time limit; "
      "minimizing {} new inputs: {} runs in {} ms; "
      "{} new inputs kept unminimized (over the budget); {} entries reduced; "
      "input-to-state stages: {} runs, {} finds; {} worker restarts for drift; "
      "value profile on for {} s ({} times turned on)",
      baseline_ms_, fuzz_runs_, fuzz_us_ / 1000, units_on_time_, minimize_requests_, minimize_runs_,
      minimize_us_ / 1000, unminimized_, summary_.reductions, stage_runs_, stage_finds_,
      drift_restarts_, value_profile_.active_ms() / 1000, value_profile_.times_on());
  summary_.seconds = static_cast<double>(base::MonotonicMs() - start_ms_) / 1000.0;
  summary_.edges = coverage_->edges();
  summary_.features = coverage_->features();
  summary_.corpus_entries = corpus_->size();
  summary_.corpus_bytes = corpus_->total_bytes();
  if (summary_.exit_code == 0 && !summary_.stopped) {
    if (summary_.failures > 0) {
      summary_.exit_code = 1;
    } else if (summary_.interrupted) {
      summary_.exit_code = Terminated() ? 0 : 130;
    }
  }
  return summary_;
}

}  // namespace pollen::node
