#include "node/value_profile_switch.h"

namespace pollen::node {

bool ValueProfileSwitch::Active(uint64_t now_ms, size_t edges) {
  if (setting_ != Setting::kAuto) return setting_ == Setting::kOn;
  if (!started_ || edges != edges_) {
    started_ = true;
    edges_ = edges;
    last_edge_ms_ = now_ms;
  }
  if (on_) active_ms_ += now_ms - since_ms_;
  since_ms_ = now_ms;
  bool on = now_ms - last_edge_ms_ >= stall_ms_;
  if (on && !on_) times_on_++;
  on_ = on;
  return on;
}

}  // namespace pollen::node
