// What the coordinator asks its workers (run an input, fuzz an entry, minimize a find) and
// what it does with their answers: new corpus entries, reduced entries, the budgets.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

#include "base/clock.h"
#include "node/coordinator.h"
#include "node/coordinator_slot.h"
#include "node/worker_messages.h"

namespace pollen::node {
namespace {

// A worker's time alone with one entry (a fuzz unit): --unit-ms (5 ms by default) or
// --unit-runs executions (8192), whichever comes first. Go's unit was 100 ms: on a fast
// target close to a million executions on one entry, so a poor choice of entry wasted them
// all and a new entry waited that long for its turn (nested one-byte comparisons took
// 1.1-4.5 M executions with 100 ms units, 28-60 k with 8192-run units). Units of equal
// runs give a slow entry as many executions as a fast one and so most of the time (mbedtls
// at 256 runs: 0.52x exec/s); units of equal time keep the scheduler's choice of entries
// in the time each gets, and 5 ms ones choose far more often (sqlite3: 6 times): on
// mbedtls 1.11x the branches at one minute and 1.75x the exec/s, on zstd 1.31x the
// branches (docs/benchmarks.md, "Fuzz units of 5 ms"). A round trip costs about 20 us.
constexpr uint64_t kMinimizeRuns = 4096;  // at most, executions spent minimizing one new input
// Minimizing new inputs may cost at most --minimize-share percent of what fuzz units cost; a
// new input that finds the budget spent joins the corpus as it was found. Where new
// coverage comes every few dozen executions (early on, or on a target like re2),
// minimizing every find with up to 4096 runs took nearly all the time: 75 % of the
// executions and 88 % of the time of a 30 s run on re2. When finds are rare the budget
// builds up and every find gets its 4096 runs.
// The cost of an execution is counted as kRunCostBytes + its input's size: inputs that
// find coverage, and so minimization candidates, tend to be longer and slower than the
// average mutant (on re2 a minimization run took 3-7 times a fuzz run). Counted from
// sizes and runs, not time, so that a run with one worker stays deterministic.
constexpr uint64_t kRunCostBytes = 64;
// A budget to start with, before any fuzz unit has cost anything: one whole minimization
// of a 64-byte input, so that the first finds are not all kept as found.
constexpr uint64_t kMinimizeInitialCost = kMinimizeRuns * (kRunCostBytes + 64);
// The cost counted in bytes is blind to what an input makes the target do: on libsndfile a
// minimization candidate ran 2.7 ms on average (a find that decodes a long stream, 125 ms)
// where a mutant ran 17 us, and minimizing took 524 s of a 600 s run. So minimizing may
// also take no more time than the fuzz units have (2 s more to start with), and each
// request gets a deadline: the time that budget has left, between 10 ms and 1 s. Not the
// byte share itself in time: mbedtls, where Pollen leads, spends 40-61 % of the fuzz units'
// time minimizing within the byte share (ninth campaign). The clock decides these, so a
// run counts them ("cut by time") as it counts units cut by their time limit.
constexpr uint64_t kMinimizeInitialUs = 2'000'000;
constexpr uint64_t kMinimizeMinMs = 10;
constexpr uint64_t kMinimizeMaxMs = 1000;
}  // namespace

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
    slot.keep = input.keep;
    slot.state = Slot::State::kExecute;
  } else {
    if (!baseline_done_) {
      bool executing = std::any_of(slots_.begin(), slots_.end(),
                                   [](const auto& s) { return s->state == Slot::State::kExecute; });
      if (executing) return;  // fuzz only once the baseline coverage is complete
      baseline_done_ = true;
      baseline_ms_ = base::MonotonicMs() - start_ms_;
      size_t largest = 0;
      for (size_t i = 0; i < corpus_->size(); i++) {
        largest = std::max(largest, corpus_->entry(i).data.size());
      }
      length_.Start(largest, TotalRuns());
      PrintStatus("INITED");
      if (options_.stop_after_seeds) {  // every start-up input has run and been handled
        stop_ = true;
        return;
      }
    }
    size_t size = corpus_->size();
    uint32_t owned_count = 0;
    slot.entry = size == 0 ? SIZE_MAX : corpus_->Choose(rng_);
    if (slot.entry == SIZE_MAX) {
      h->entry_size = 0;
      h->crossover_size = 0;
    } else {
      const auto& e = corpus_->entry(slot.entry);
      // Half the time the partner is a find as it was found, before minimizing cut it down.
      const bool found_partner = !found_.empty() && rng_.Bool();
      if (found_partner) found_partners_++;
      const std::vector<uint8_t>& partner =
          found_partner ? found_.Pick(rng_)
                        : corpus_->entry(rng_.Below(static_cast<uint32_t>(size))).data;
      size_t en = std::min<size_t>(e.data.size(), h->max_input);
      size_t pn = std::min<size_t>(partner.size(), h->max_input);
      // An empty input's data() may be null, which memcpy may not be given even for 0 bytes.
      if (en > 0) std::memcpy(slot.proc->shm().entry(), e.data.data(), en);
      if (pn > 0) std::memcpy(slot.proc->shm().crossover(), partner.data(), pn);
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
    fuzz.duration_ms = std::max<uint32_t>(1, options_.unit_ms);
    uint64_t max_runs = std::max<uint64_t>(1, options_.unit_runs);
    if (options_.runs != 0) {
      uint64_t done = TotalRuns();
      max_runs = std::min(max_runs, done >= options_.runs ? 1 : options_.runs - done);
    }
    fuzz.max_runs = max_runs;
    slot.unit_max_runs = max_runs;
    fuzz.owned_count = owned_count;
    slot.stage = false;
    // (The worker never runs the stage with --only-ascii: the stage writes any byte.)
    if (options_.i2s_stage && !options_.only_ascii && slot.entry != SIZE_MAX) {
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
  slot.profile = profile;
  // Only a request whose mutants nothing else reads the comparisons of asks the switch (a
  // stage or the profile keeps them hooked whatever it says).
  slot.hooks_allowed =
      slot.state == Slot::State::kFuzz && !slot.stage && !profile && cmp_hooks_.Off();
  h->mutant_hooks_off = slot.hooks_allowed ? 1 : 0;
  slot.last_runs = 0;
  slot.last_progress_ms = now_ms;
  slot.request_start_us = base::MonotonicUs();
  Status sent =
      slot.state == Slot::State::kExecute ? SendExecute(*slot.proc) : SendFuzz(*slot.proc, fuzz);
  (void)sent;  // a worker gone shows its death on the control pipe
}

void Coordinator::AcceptInput(Slot& slot, const uint8_t* data, size_t size, uint64_t exec_time_us,
                              const std::string& origin, bool keep) {
  engine::WorkerShmHeader* h = slot.proc->shm().header();
  uint32_t n = std::min(h->feature_count, h->max_features);
  const uint32_t* features = slot.proc->shm().features();
  // A kept input joins whatever it covers, unless the harness rejected it (-1: no features).
  if (!(keep && n > 0) && coverage_->CountNew(features, n) == 0) return;  // nothing new
  AddEntry(std::vector<uint8_t>(data, data + size), features, n, exec_time_us, origin);
}

bool Coordinator::AddEntry(std::vector<uint8_t> data, const uint32_t* features, size_t n,
                           uint64_t exec_time_us, std::string origin) {
  coverage_->Add(features, n);
  hang_cutoff_.NoteEntry(exec_time_us);
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
  if (added) PrintStatus(event);  // a duplicate (a seed given twice) is not announced
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
    // With --keep-seed a start-up input of this node's own joins the corpus even when it adds
    // nothing: one seed's features may hide what its mutants reach.
    AcceptInput(slot, slot.proc->shm().raw(), size, r->exec_time_us, slot.origin, slot.keep);
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
  if (r.hooks_stuck) {
    // The worker could not write the hooks' calls back (a thread of the target's was
    // running: engine/runtime/hook_sites.h) and ran nothing. A new process has them all;
    // the request counts for nothing (its stage resumes where it was).
    spdlog::info("worker {}: its comparison hooks could not be turned back on; restarting it",
                 slot.proc->pid());
    if (cmp_hooks_.Stuck()) {
      spdlog::warn(
          "the target keeps starting threads while its comparison hooks are off: every "
          "mutant runs them from now on (--mutant-cmp-hooks=true)");
    }
    slot.stage = false;
    Restart(slot);
    return true;
  }
  fuzz_runs_ += r.runs;
  fuzz_cost_ += r.runs * (kRunCostBytes + h->entry_size);
  // Nothing found or reduced and runs to spare: the unit ended on its time limit, where a
  // fast target's ends on its run count (a --seed repeats a run only while none does).
  if (!r.found && !r.reduced && r.runs < slot.unit_max_runs) units_on_time_++;
  const uint64_t elapsed_us = base::MonotonicUs() - slot.request_start_us;
  fuzz_us_ += elapsed_us;
  if (slot.entry != SIZE_MAX) corpus_->RecordFuzzed(slot.entry, r.runs, r.found, elapsed_us);
  cmp_hooks_.Record(r.hooks_off, !slot.stage && !slot.profile && !slot.hooks_allowed, elapsed_us,
                    r.found && !r.stage_found, base::MonotonicMs());
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
    // The entry's program features only: those it had from the value profile, when the
    // profile was on as it joined, are not there when it is off (no drift).
    if (slot.entry != SIZE_MAX) {
      const auto& features = corpus_->entry(slot.entry).features;
      if (slot.drift.Observe(coverage_->CountProgramFeatures(features.data(), features.size()),
                             r.entry_feature_count, base::MonotonicMs())) {
        RestartDrifted(slot);
      }
    }
    return true;
  }
  uint32_t n = std::min(r.feature_count, h->max_features);
  std::vector<uint32_t> fresh = coverage_->NewFeatures(slot.proc->shm().features(), n);
  if (fresh.empty()) return true;
  size_t size = std::min<size_t>(r.input_size, h->max_input);
  uint64_t max_runs = MinimizeBudget(size);
  uint64_t duration_ms = max_runs == 0 ? 0 : MinimizeTimeLeftMs();
  if (max_runs == 0 || duration_ms == 0) {
    // Over budget: keep the input as it is, with all its features.
    if (max_runs != 0) minimize_time_cuts_++;
    unminimized_++;
    AcceptInput(slot, slot.proc->shm().raw(), size, 0);
    return true;
  }
  // Minimize while every new feature stays covered.
  std::memcpy(slot.proc->shm().features(), fresh.data(), fresh.size() * sizeof(uint32_t));
  slot.state = Slot::State::kMinimize;
  // Candidates are judged by the new features only. When they are all the program's, the
  // profile (whose levels the hooks write) has nothing to judge: the candidates run without
  // it, where it made a run five times slower (mbedtls's base64 decoding compares each
  // character about ten times). The result's own run then has no levels either, as an input
  // found with the profile off. Without the profile they skip the hooks whenever any mutant
  // may.
  const bool profile =
      slot.profile && coverage_->CountProgramFeatures(fresh.data(), fresh.size()) < fresh.size();
  h->value_profile = profile ? 1 : 0;
  if (profile) minimize_with_profile_++;
  h->mutant_hooks_off = (cmp_hooks_.setting() != Setting::kOn && !profile) ? 1 : 0;
  slot.minimize_found.assign(slot.proc->shm().raw(), slot.proc->shm().raw() + size);
  slot.last_runs = 0;
  slot.last_progress_ms = base::MonotonicMs();
  slot.request_start_us = base::MonotonicUs();
  (void)SendMinimize(*slot.proc, static_cast<uint32_t>(fresh.size()), max_runs,
                     static_cast<uint32_t>(duration_ms));
  return false;
}

void Coordinator::HandleMinimized(Slot& slot, const Minimized& r) {
  // A worker is a target's process and may answer what it was not asked: only the answer to
  // this slot's minimize request brings its find as found.
  const bool asked = slot.state == Slot::State::kMinimize;
  slot.state = Slot::State::kIdle;
  minimize_runs_ += r.runs;
  // The candidates shrink from the input's size towards the result's.
  minimize_cost_ += r.runs * (kRunCostBytes + (slot.minimize_found.size() + r.input_size) / 2);
  minimize_us_ += base::MonotonicUs() - slot.request_start_us;
  minimize_requests_++;
  if (r.timed_out) minimize_time_cuts_++;
  size_t size = std::min<size_t>(r.input_size, slot.proc->shm().header()->max_input);
  AcceptInput(slot, slot.proc->shm().raw(), size, 0);
  // What minimizing dropped stays at hand for crossover (node/found_inputs.h).
  if (asked && size < slot.minimize_found.size()) {
    found_.Add(std::move(slot.minimize_found));
    found_kept_++;
  }
  slot.minimize_found.clear();
}

uint64_t Coordinator::MinimizeBudget(size_t input_size) const {
  if (options_.minimize_share == 0) return 0;
  // (x * 25 / 100 is x / 4 exactly: the default spends what the fixed quarter did.)
  uint64_t allowed = kMinimizeInitialCost + fuzz_cost_ * options_.minimize_share / 100;
  if (allowed <= minimize_cost_) return 0;
  return std::min(kMinimizeRuns, (allowed - minimize_cost_) / (kRunCostBytes + input_size));
}

uint64_t Coordinator::MinimizeTimeLeftMs() const {
  uint64_t allowed_us = kMinimizeInitialUs + fuzz_us_;
  if (allowed_us <= minimize_us_) return 0;
  return std::clamp((allowed_us - minimize_us_) / 1000, kMinimizeMinMs, kMinimizeMaxMs);
}

}  // namespace pollen::node
