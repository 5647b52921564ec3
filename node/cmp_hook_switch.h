// Whether a fuzz request's mutants may run without the comparison hooks (the worker rewrites
// their calls to NOPs: engine/runtime/hook_sites.h), request by request (minimization asks
// only setting(): its candidates skip them unless it is true or the value profile is on):
// --mutant-cmp-hooks=true always with hooks (what every release before did), false without
// whenever the worker can, auto a share chosen by finds per second.
//
// Without hooks a comparison-heavy parser runs up to twice as fast, but its mutants add no
// operands to the comparison table, and earlier measurements ruled out "always without"
// (2-3 % fewer edges on sqlite3 and expat). So on auto the share of requests without hooks
// follows how often each kind found something per second of fuzzing, with both rates decayed
// (recent units count most) and each drawn toward the pooled rate by kPriorFinds finds made
// at it (so they start level): share = r_off^2 / (r_off^2 + r_on^2), kept
// within [kMinShare, kMaxShare] so that neither kind stops being measured. The choice is a
// credit counter, not a random draw: the same history gives the same requests.
#ifndef POLLEN_NODE_CMP_HOOK_SWITCH_H_
#define POLLEN_NODE_CMP_HOOK_SWITCH_H_

#include <cstdint>

#include "node/fuzz_options.h"

namespace pollen::node {

class CmpHookSwitch {
 public:
  static constexpr double kMinShare = 0.2;
  static constexpr double kMaxShare = 0.8;
  static constexpr uint64_t kHalfLifeMs = 60'000;
  static constexpr double kPriorFinds = 2;
  static constexpr uint32_t kMaxStuck = 3;

  explicit CmpHookSwitch(Setting setting) : setting_(setting) {}

  // Whether the next fuzz request may run its mutants without hooks.
  bool Off();

  // A fuzz request's outcome. hooks_off: its mutants ran without hooks; measured: it counts
  // for the hooked side (no stage, no value profile: what a request without hooks skips
  // too). Requests with neither are not counted.
  void Record(bool hooks_off, bool measured, uint64_t elapsed_us, bool found, uint64_t now_ms);

  // A worker could not turn its hooks back on (a thread of the target's). Returns true when
  // that happened kMaxStuck times: the switch is then on for good (every mutant hooked).
  bool Stuck();

  // The share of requests allowed to run without hooks now (1 or 0 unless auto).
  double share() const;
  uint64_t units_off() const { return units_off_; }
  uint64_t units() const { return units_; }  // every request recorded
  Setting setting() const { return setting_; }

 private:
  Setting setting_;
  double credit_ = 0;
  // Finds and seconds of each kind ([0] hooked, [1] without), halved every kHalfLifeMs.
  double finds_[2] = {0, 0};
  double seconds_[2] = {0, 0};
  uint64_t last_decay_ms_ = 0;
  bool started_ = false;
  uint64_t units_off_ = 0;
  uint64_t units_ = 0;
  uint32_t stuck_ = 0;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_CMP_HOOK_SWITCH_H_
