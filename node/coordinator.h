// The local coordinator of `pollen fuzz`: drives N worker processes from one thread.
//
// Start-up runs every stored and seed input once (the baseline) and merges its coverage.
// Then each idle worker gets a corpus entry, chosen by the scheduler, to mutate for about
// 100 ms in its own loop; it reports back when an execution covered something the global
// map lacks, and the coordinator checks that against the map (another worker may have been
// first), has the input minimized while it keeps the new features, and adds it to the live
// corpus. A worker that dies is a failure: its input is rebuilt from shared memory, it is
// minimized and saved as an artifact, and the worker is restarted.
//
// An optional observer (node/coordinator_observer.h; `pollen node`'s links to the broker and
// the controller) is told of new entries and failures, gets a turn in every loop iteration,
// may hand inputs in through the coordinator's CorpusFeed side, and may ask for the run to
// end (StopRequested: checked with the other stop conditions).
#ifndef POLLEN_NODE_COORDINATOR_H_
#define POLLEN_NODE_COORDINATOR_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/learned_words.h"
#include "engine/mutator.h"
#include "engine/rng.h"
#include "node/cmp_hook_switch.h"
#include "node/coordinator_observer.h"
#include "node/found_inputs.h"
#include "node/fuzz_options.h"
#include "node/global_coverage.h"
#include "node/hang_cutoff.h"
#include "node/length_control.h"
#include "node/live_corpus.h"
#include "node/value_profile_switch.h"
#include "node/worker_launcher.h"
#include "node/worker_messages.h"
#include "storage/corpus_store.h"

namespace pollen::node {

struct FuzzSummary {
  uint64_t executions = 0;
  double seconds = 0;
  size_t edges = 0;
  size_t features = 0;
  size_t corpus_entries = 0;
  uint64_t corpus_bytes = 0;
  uint64_t failures = 0;    // distinct signatures saved
  uint64_t reductions = 0;  // entries replaced by a shorter input (--reduce-inputs)
  std::vector<std::string> artifacts;
  std::string learned_dictionary;  // libFuzzer's recommended-dictionary lines; may be empty
  bool interrupted = false;
  bool stopped = false;  // the observer asked for the stop (StopRequested)
  // 0 no failure, or stopped by the observer (even after failures: they were reported to
  // whoever asked for the stop); 1 failure found; 130 interrupted; 2 the store failed.
  int exit_code = 0;
};

struct CoordinatorStats;

class Coordinator : public CorpusFeed {
 public:
  // `store` may be null (nothing persisted). `launcher` and `corpus` must outlive this.
  Coordinator(const FuzzOptions& options, WorkerLauncher* launcher, LiveCorpus* corpus,
              storage::CorpusStore* store, std::string artifact_dir);
  ~Coordinator() override;

  // Sets the observer (null: none) that Run calls; it must outlive Run.
  void set_observer(CoordinatorObserver* observer) { observer_ = observer; }

  // Fuzzes until the time or run limit, Ctrl-C, the observer's StopRequested, or the first
  // failure (unless keep_going).
  // Errors are set-up problems (the target would not start).
  Result<FuzzSummary> Run(std::vector<StartupInput> startup,
                          std::vector<std::vector<uint32_t>> known_features);

  // CorpusFeed: for the observer, during Run.
  void ExecuteInput(std::vector<uint8_t> input, std::string origin) override;
  size_t PendingExecutions() const override { return to_execute_.size(); }
  bool OfferEntry(std::vector<uint8_t> input, std::vector<uint32_t> features,
                  std::string origin) override;
  const LiveCorpus& corpus() const override { return *corpus_; }
  const GlobalCoverage& coverage() const override { return *coverage_; }
  uint32_t max_len() const override;
  uint64_t executions() const override { return TotalRuns(); }
  uint64_t failures() const override { return summary_.failures; }

 private:
  struct Slot;
  // An input to run as it is: a start-up input (origin empty) or one handed in by the
  // observer. `keep`: it joins the corpus whatever it covers (--keep-seed, StartupInput::own).
  struct PendingInput {
    std::vector<uint8_t> data;
    std::string origin;
    bool keep = false;
  };

  Status StartSlot(Slot& slot);
  void Dispatch(Slot& slot);
  void HandleMessage(Slot& slot, const engine::FrameWords& words);
  // A fuzz request's answer; false when it sent the worker a minimize request (the slot is
  // busy), true when the slot is free for the next request.
  bool HandleFuzzDone(Slot& slot, const FuzzDone& result);
  void HandleMinimized(Slot& slot, const Minimized& result);
  void HandleDeath(Slot& slot);
  void Watch(Slot& slot, uint64_t now_ms);
  // Replaces a worker whose target drifted (node/drift_check.h) with a fresh process.
  void RestartDrifted(Slot& slot);
  // Replaces a healthy worker with a fresh process (no failure recorded); keeps its drift check.
  void Restart(Slot& slot);
  // Starts a new worker in an empty slot unless the run is stopping; a failure to start one
  // stops the run (exit code 2). Whether a worker runs in it now.
  bool Relaunch(Slot& slot);
  std::vector<uint8_t> RebuildInput(Slot& slot);
  void RecordFailure(const std::vector<uint8_t>& input, const Failure& failure);
  // An execution the hang cutoff stopped (node/hang_cutoff.h): saved once per stack, unless
  // its stack is a known timeout's; never a failure.
  void RecordHang(const std::vector<uint8_t>& input, const Failure& hang);
  // Adds the worker's input to the corpus if its features are new, or with `keep` (--keep-seed's
  // start-up inputs) whatever they are unless it has none (the harness rejected it).
  void AcceptInput(Slot& slot, const uint8_t* data, size_t size, uint64_t exec_time_us,
                   const std::string& origin = "", bool keep = false);
  // Adds an input whose coverage is new (or a kept start-up input) to the corpus and the map
  // and tells the observer;
  // whether it joined (false: a duplicate, or the store failed and the run stops).
  bool AddEntry(std::vector<uint8_t> data, const uint32_t* features, size_t n,
                uint64_t exec_time_us, std::string origin);
  // Replaces corpus entry `entry` by the shorter input a worker reported (FuzzResult.reduced)
  // if it has everything the entry owns and no new coverage; the store failing stops the run.
  void ReduceEntry(size_t entry, const uint8_t* data, size_t size, const uint32_t* features,
                   size_t n);
  void PrintStatus(const char* event);
  void PrintLibFuzzerStatus(const char* event, uint64_t runs, uint64_t per_second, uint64_t rss);
  uint64_t TotalRuns() const;
  bool ShouldStop() const;
  // Runs a new input of this size may spend being minimized (0: keep it as it is), so that
  // minimization costs at most a share of what fuzzing costs (--minimize-share).
  uint64_t MinimizeBudget(size_t input_size) const;
  // The time the next minimization may take, in ms: 0 once minimizing has taken as long as
  // the fuzz units (plus 2 s), otherwise what is left, between 10 ms and 1 s.
  uint64_t MinimizeTimeLeftMs() const;

  const FuzzOptions& options_;
  WorkerLauncher* launcher_;
  LiveCorpus* corpus_;
  storage::CorpusStore* store_;
  std::string artifact_dir_;
  GlobalCoverage* coverage_;
  engine::Rng rng_;
  engine::Mutator replay_mutator_;    // rebuilds the inputs of dead workers
  LengthControl length_;              // how long mutants may grow
  ValueProfileSwitch value_profile_;  // whether the next request climbs the ladders
  CmpHookSwitch cmp_hooks_;           // whether the next request's mutants skip the hooks
  FoundInputs found_;                 // finds as found, before minimizing: crossover partners
  HangCutoff hang_cutoff_;            // how long an execution may run
  // The union of the workers' learned words; kept in the work directory between runs.
  engine::LearnedWords learned_{};

  std::vector<std::unique_ptr<Slot>> slots_;
  CoordinatorObserver* observer_ = nullptr;
  std::deque<PendingInput> to_execute_;             // inputs to run as they are, not yet run
  std::map<std::string, uint64_t> failure_counts_;  // signature -> times seen
  std::map<std::string, uint64_t> hang_counts_;     // the same, for the hang cutoff's stops
  uint64_t hang_stops_ = 0;
  FuzzSummary summary_;
  uint64_t retired_runs_ = 0;  // executions of workers that are gone
  uint64_t drift_restarts_ = 0;
  uint64_t units_on_time_ = 0;  // fuzz units that ended on their time limit, not their run count
  // Per corpus entry, the next candidate of its input-to-state stage (engine/i2s_stage.h);
  // kStageDone once it ended. Entries beyond the vector have not started.
  static constexpr uint32_t kStageDone = UINT32_MAX;
  std::vector<uint32_t> stage_cursor_;
  uint64_t stage_runs_ = 0;
  uint64_t stage_finds_ = 0;
  uint64_t start_ms_ = 0;
  uint64_t last_status_ms_ = 0;
  bool stop_ = false;
  bool baseline_done_ = false;
  // Where the workers' executions went (logged at the end): fuzz units vs minimization of
  // new inputs, with the wall time each kind of request took (request sent to answer read).
  uint64_t fuzz_runs_ = 0;
  uint64_t fuzz_us_ = 0;
  uint64_t minimize_runs_ = 0;
  uint64_t minimize_us_ = 0;
  uint64_t minimize_requests_ = 0;
  uint64_t minimize_with_profile_ = 0;  // requests whose candidates ran with the profile
  uint64_t fuzz_cost_ = 0;              // Σ runs × (kRunCostBytes + input size): deterministic,
  uint64_t minimize_cost_ = 0;          // unlike the times above
  uint64_t unminimized_ = 0;         // new inputs kept as found: minimization was over its budget
  uint64_t found_kept_ = 0;          // finds added to found_, and fuzz units whose partner
  uint64_t found_partners_ = 0;      // came from it
  uint64_t minimize_time_cuts_ = 0;  // the clock's part: kept as found, or a deadline reached
  uint64_t baseline_ms_ = 0;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_COORDINATOR_H_
