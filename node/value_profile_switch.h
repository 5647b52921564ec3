// Whether the workers climb the value profile's ladders (engine/value_profile.h), request by
// request: --use-value-profile=true always, false never, auto only while the run is stuck.
//
// The profile finds what edges cannot see (a checksum, a sum, a magic number approached bit
// by bit), but its hooks cost a quarter of re2's executions and gave it no branch in ten
// minutes (docs/decisions.md). So, on auto, it is on only once no new edge has been found
// for kStallMs, and off again at the next new edge: a target that keeps finding edges (re2
// finds one every 0.25 s, its longest gap in 10 minutes was 15 s) pays nothing, and one whose
// coverage stopped at a gate gets the profile a few seconds in. Ladder levels are not edges
// (engine::CoverageMap::edges), so the profile's own finds keep it on.
#ifndef POLLEN_NODE_VALUE_PROFILE_SWITCH_H_
#define POLLEN_NODE_VALUE_PROFILE_SWITCH_H_

#include <cstddef>
#include <cstdint>

#include "node/fuzz_options.h"

namespace pollen::node {

class ValueProfileSwitch {
 public:
  static constexpr uint64_t kStallMs = 5000;

  explicit ValueProfileSwitch(Setting setting, uint64_t stall_ms = kStallMs)
      : setting_(setting), stall_ms_(stall_ms) {}

  // Whether the next request runs with the profile, given the clock and the global map's
  // edge count now. Call it for every request, with a clock that never goes back.
  bool Active(uint64_t now_ms, size_t edges);

  // The setting it was made with: kOff when the workers have no ladders at all.
  Setting setting() const { return setting_; }

  // How long the profile was on, up to the last call, and how often it was turned on.
  uint64_t active_ms() const { return active_ms_; }
  uint64_t times_on() const { return times_on_; }

 private:
  Setting setting_;
  uint64_t stall_ms_;
  bool started_ = false;
  size_t edges_ = 0;
  uint64_t last_edge_ms_ = 0;
  bool on_ = false;
  uint64_t since_ms_ = 0;  // of the last call
  uint64_t active_ms_ = 0;
  uint64_t times_on_ = 0;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_VALUE_PROFILE_SWITCH_H_
