// Which corpus entry to fuzz next: entries with rare features first, with energy decay.
//
// Weights (Centipede's feature_rarity, with an energy decay in the spirit of libFuzzer's
// entropic schedule; docs engine-techniques.md §1.5, §4):
//
//   freq(f)      = number of corpus entries whose feature set contains f
//   rarity(e)    = Σ_{f ∈ features(e)} 1 / freq(f)
//   decay(e)     = 1 + runs_since_new(e) / kDecayRuns
//   speed(e)     = how fast e's mutants run against the corpus's mean (SpeedFactor), 1 until
//                  e has kSpeedMinRuns timed runs (or has taken the time of that many runs
//                  at the corpus's mean) or when speed weighting is off
//   time(e)      = 1, or 2·unit / (e's mean fuzz unit time) when its units last over twice
//                  the nominal unit (set_unit_us; speed weighting on)
//   raw(e)       = rarity(e) / decay(e) × speed(e) × time(e)
//   weight(e)    = max(raw(e), kMinShare · mean_e' raw(e'))      (all 1 when every raw is 0)
//   P(choose e)  = weight(e) / Σ weight
//
// runs_since_new(e) counts the executions spent on mutants of e since it last produced a
// new feature (RecordFuzzed), so an entry that stopped paying off fades but, thanks to the
// kMinShare floor, never starves: each entry keeps at least kMinShare of the mean weight.
// With speed weighting a unit counts at least the runs its time would have held at the
// corpus's mean: fuzz units are bounded in time, but a unit always runs the entry and one
// mutant, and one of libsndfile's entries can take 200 ms where a unit is meant to take 5.
// time(e) is what keeps such an entry from taking 40 units' time each time it is chosen:
// the weights divide time, not choices.
// A feature unique to one entry is worth as much as a feature shared by N entries is worth
// to all N together, so a corpus of near-duplicates does not crowd out the one input that
// reaches something new. speed(e) is the performance score of AFL's scheduler, which
// libFuzzer applies to its entropic energy with -entropic_scale_per_exec_time (FuzzBench runs
// it so): an entry whose mutants run in a quarter of the mean time gets three times the
// weight, one ten times slower a tenth; the corpus's long inputs otherwise take a growing
// share of the runs, and the executions per second fall as they grow.
//
// Cost: rarities are recomputed (O(total features)) lazily after Add; the cumulative weight
// vector (O(entries)) after Add, after a RecordFuzzed that found something, and after every
// kRebuildEvery other RecordFuzzed calls. Choose is a binary search. Features are mapped to
// dense ids on Add, so the rebuild touches arrays, not hash tables.
//
// Deterministic: the same calls with the same Rng state give the same choices.
// Not thread-safe.
#ifndef POLLEN_ENGINE_SCHEDULER_H_
#define POLLEN_ENGINE_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/coverage.h"
#include "engine/rng.h"

namespace pollen::engine {

class Scheduler {
 public:
  // Runs without a find that divide an entry's weight by one more.
  static constexpr uint64_t kDecayRuns = 4096;
  // Every entry keeps at least this fraction of the mean weight.
  static constexpr double kMinShare = 0.01;
  // RecordFuzzed calls (without a find) between rebuilds of the sampling table.
  static constexpr uint64_t kRebuildEvery = 64;
  // Timed runs an entry needs before its speed counts.
  static constexpr uint64_t kSpeedMinRuns = 256;

  // The weight factor of an entry whose runs take `run_us` on average, when the corpus's
  // take `mean_us`: 0.1 (over 10× the mean), 0.25 (4×), 0.5 (2×), 0.75 (4/3×), 1, 1.5 (under
  // 1/2), 2 (1/3), 3 (1/4). 1 when either is not positive.
  static double SpeedFactor(double run_us, double mean_us);

  Scheduler() = default;

  // Adds an entry with these features (duplicates are ignored). Returns its index, which is
  // size() before the call; indices are dense and never reused.
  size_t Add(std::vector<Feature> features);

  // Gives entry idx the features of the input that replaced it (a smaller one with the
  // features it owned, LiveCorpus::Replace); its runs and decay are kept.
  // Precondition: idx < size().
  void Replace(size_t idx, std::vector<Feature> features);

  // Picks an entry with probability proportional to its weight (see the file comment).
  // Precondition: size() > 0.
  size_t Choose(Rng& rng);

  // Records that `runs` mutants of entry idx were executed, in `elapsed_us` microseconds
  // (0: not timed), and whether any of them found a new feature (which resets the entry's
  // decay). Precondition: idx < size().
  void RecordFuzzed(size_t idx, uint64_t runs, bool found_new, uint64_t elapsed_us = 0);

  // Whether speed(e) weighs in (on by default). Off, the choices depend on the calls and the
  // Rng only, not on how long the runs took.
  void set_speed_weight(bool on) {
    speed_weight_ = on;
    weights_dirty_ = true;
  }

  // The fuzz units' nominal time (--unit-ms), for time(e); 0 (the default) leaves time(e) 1.
  void set_unit_us(uint64_t us) {
    unit_us_ = us;
    weights_dirty_ = true;
  }

  // Number of entries.
  size_t size() const { return entries_.size(); }

  // The current weight of entry idx (after bringing the table up to date), for monitoring
  // and tests. Precondition: idx < size().
  double Weight(size_t idx);

  // Total runs recorded for entry idx. Precondition: idx < size().
  uint64_t runs(size_t idx) const { return entries_[idx].runs; }
  // Total time recorded for entry idx, in microseconds. Precondition: idx < size().
  uint64_t timed_us(size_t idx) const { return entries_[idx].timed_us; }

 private:
  struct Entry {
    std::vector<uint32_t> ids;  // dense feature ids, sorted, unique
    double rarity = 0;
    uint64_t runs = 0;
    uint64_t runs_since_new = 0;
    uint64_t timed_runs = 0;  // runs recorded with their time
    uint64_t timed_us = 0;
    uint64_t timed_units = 0;  // RecordFuzzed calls with a time
  };

  void Rebuild();
  std::vector<uint32_t> CountIn(std::vector<Feature> features);

  std::unordered_map<Feature, uint32_t> dense_id_;
  std::vector<uint32_t> freq_;    // by dense id: number of entries having the feature
  std::vector<double> inv_freq_;  // by dense id: 1.0 / freq_, filled by Rebuild
  std::vector<Entry> entries_;
  std::vector<double> cumulative_;  // cumulative_[i] = Σ_{j<=i} weight(j)
  bool rarity_dirty_ = false;
  bool weights_dirty_ = false;
  uint64_t records_since_rebuild_ = 0;
  bool speed_weight_ = true;
  uint64_t unit_us_ = 0;
  double mean_us_ = 0;  // the corpus's mean run time at the last Rebuild (speed weighting on)
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_SCHEDULER_H_
