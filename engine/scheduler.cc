#include "engine/scheduler.h"

#include <algorithm>
#include <utility>

#include "base/status.h"

namespace pollen::engine {

std::vector<uint32_t> Scheduler::CountIn(std::vector<Feature> features) {
  std::sort(features.begin(), features.end());
  features.erase(std::unique(features.begin(), features.end()), features.end());
  std::vector<uint32_t> ids;
  ids.reserve(features.size());
  for (Feature f : features) {
    auto [it, inserted] = dense_id_.try_emplace(f, static_cast<uint32_t>(freq_.size()));
    if (inserted) freq_.push_back(0);
    freq_[it->second]++;
    ids.push_back(it->second);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

size_t Scheduler::Add(std::vector<Feature> features) {
  Entry e;
  e.ids = CountIn(std::move(features));
  entries_.push_back(std::move(e));
  rarity_dirty_ = true;
  weights_dirty_ = true;
  return entries_.size() - 1;
}

void Scheduler::Replace(size_t idx, std::vector<Feature> features) {
  POLLEN_CHECK(idx < entries_.size());
  Entry& e = entries_[idx];
  for (uint32_t id : e.ids) freq_[id]--;  // a feature no entry has keeps its id, at 0
  e.ids = CountIn(std::move(features));
  rarity_dirty_ = true;
  weights_dirty_ = true;
}

double Scheduler::SpeedFactor(double run_us, double mean_us) {
  if (!(run_us > 0) || !(mean_us > 0)) return 1.0;
  const double r = run_us / mean_us;
  if (r > 10) return 0.1;
  if (r > 4) return 0.25;
  if (r > 2) return 0.5;
  if (r > 4.0 / 3) return 0.75;
  if (r < 0.25) return 3.0;
  if (r < 1.0 / 3) return 2.0;
  if (r < 0.5) return 1.5;
  return 1.0;
}

void Scheduler::RecordFuzzed(size_t idx, uint64_t runs, bool found_new, uint64_t elapsed_us) {
  POLLEN_CHECK(idx < entries_.size());
  Entry& e = entries_[idx];
  e.runs += runs;
  if (elapsed_us > 0) {
    e.timed_runs += runs;
    e.timed_us += elapsed_us;
    e.timed_units++;
  }
  if (found_new) {
    e.runs_since_new = 0;
    weights_dirty_ = true;
  } else {
    // A slow entry's unit decays it as much as the runs its time would have held.
    uint64_t spent = runs;
    if (speed_weight_ && mean_us_ > 0 && elapsed_us > 0)
      spent = std::max(runs, static_cast<uint64_t>(static_cast<double>(elapsed_us) / mean_us_));
    e.runs_since_new += spent;
    if (++records_since_rebuild_ >= kRebuildEvery) weights_dirty_ = true;
  }
}

void Scheduler::Rebuild() {
  if (rarity_dirty_) {
    // One division per feature, not one per (entry, feature): this loop runs after every
    // Add, in the coordinator, and was 5 % of the fuzzing core on re2 (1,500 entries).
    // The same values are added in the same order, so the rarities are bit for bit those
    // of 1.0 / freq_[id].
    inv_freq_.resize(freq_.size());
    for (size_t id = 0; id < freq_.size(); id++)
      inv_freq_[id] = freq_[id] == 0 ? 0 : 1.0 / freq_[id];
    for (Entry& e : entries_) {
      double r = 0;
      for (uint32_t id : e.ids) r += inv_freq_[id];
      e.rarity = r;
    }
    rarity_dirty_ = false;
  }
  // The mean time of a run, over the entries timed enough to count.
  double mean_us = 0;
  if (speed_weight_) {
    uint64_t runs = 0, us = 0;
    for (const Entry& e : entries_) {
      if (e.timed_runs < kSpeedMinRuns) continue;
      runs += e.timed_runs;
      us += e.timed_us;
    }
    if (runs > 0) mean_us = static_cast<double>(us) / static_cast<double>(runs);
  }
  mean_us_ = mean_us;
  cumulative_.resize(entries_.size());
  double sum_raw = 0;
  for (size_t i = 0; i < entries_.size(); i++) {
    const Entry& e = entries_[i];
    double decay = 1.0 + static_cast<double>(e.runs_since_new) / kDecayRuns;
    double speed = 1.0;
    double time = 1.0;
    if (mean_us > 0 && e.timed_runs > 0 &&
        (e.timed_runs >= kSpeedMinRuns ||
         static_cast<double>(e.timed_us) >= kSpeedMinRuns * mean_us)) {
      speed =
          SpeedFactor(static_cast<double>(e.timed_us) / static_cast<double>(e.timed_runs), mean_us);
    }
    if (speed_weight_ && unit_us_ > 0 && e.timed_units > 0) {
      const double unit = static_cast<double>(e.timed_us) / static_cast<double>(e.timed_units);
      if (unit > 2.0 * static_cast<double>(unit_us_))
        time = 2.0 * static_cast<double>(unit_us_) / unit;
    }
    cumulative_[i] = e.rarity / decay * speed * time;  // raw weight for now
    sum_raw += cumulative_[i];
  }
  double floor = sum_raw > 0 ? kMinShare * sum_raw / static_cast<double>(entries_.size()) : 0;
  double total = 0;
  for (size_t i = 0; i < cumulative_.size(); i++) {
    double w = sum_raw > 0 ? std::max(cumulative_[i], floor) : 1.0;
    total += w;
    cumulative_[i] = total;
  }
  weights_dirty_ = false;
  records_since_rebuild_ = 0;
}

size_t Scheduler::Choose(Rng& rng) {
  POLLEN_CHECK(!entries_.empty());
  if (rarity_dirty_ || weights_dirty_) Rebuild();
  // 53 random bits give a uniform double in [0, 1).
  double r = static_cast<double>(rng.Next64() >> 11) * 0x1.0p-53 * cumulative_.back();
  size_t i = static_cast<size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), r) -
                                 cumulative_.begin());
  return std::min(i, cumulative_.size() - 1);  // r rounded up to the total
}

double Scheduler::Weight(size_t idx) {
  POLLEN_CHECK(idx < entries_.size());
  if (rarity_dirty_ || weights_dirty_) Rebuild();
  return idx == 0 ? cumulative_[0] : cumulative_[idx] - cumulative_[idx - 1];
}

}  // namespace pollen::engine
