#include "node/cmp_hook_switch.h"

#include <algorithm>

namespace pollen::node {

double CmpHookSwitch::share() const {
  if (setting_ != Setting::kAuto) return setting_ == Setting::kOff ? 1.0 : 0.0;
  const double finds = finds_[0] + finds_[1];
  const double seconds = seconds_[0] + seconds_[1];
  if (finds <= 0 || seconds <= 0) return 0.5;
  // Each kind counts kPriorFinds more finds, in the time the pooled rate takes to make them:
  // with few finds behind them (the start, a late quiet stretch) one find does not swing
  // the share, and with many the measured rates decide.
  const double prior_seconds = kPriorFinds * seconds / finds;
  const double on = (finds_[0] + kPriorFinds) / (seconds_[0] + prior_seconds);
  const double off = (finds_[1] + kPriorFinds) / (seconds_[1] + prior_seconds);
  return std::clamp(off * off / (off * off + on * on), kMinShare, kMaxShare);
}

bool CmpHookSwitch::Off() {
  if (setting_ != Setting::kAuto) return setting_ == Setting::kOff;
  credit_ += share();
  if (credit_ < 1.0) return false;
  credit_ -= 1.0;
  return true;
}

bool CmpHookSwitch::Stuck() {
  if (setting_ == Setting::kOn || ++stuck_ < kMaxStuck) return false;
  setting_ = Setting::kOn;
  return true;
}

void CmpHookSwitch::Record(bool hooks_off, bool measured, uint64_t elapsed_us, bool found,
                           uint64_t now_ms) {
  units_++;
  if (hooks_off) units_off_++;
  if (!started_) {
    started_ = true;
    last_decay_ms_ = now_ms;
  }
  while (now_ms - last_decay_ms_ >= kHalfLifeMs) {
    for (int i = 0; i < 2; i++) {
      finds_[i] /= 2;
      seconds_[i] /= 2;
    }
    last_decay_ms_ += kHalfLifeMs;
  }
  if (!hooks_off && !measured) return;
  const int kind = hooks_off ? 1 : 0;
  seconds_[kind] += static_cast<double>(elapsed_us) / 1e6;
  if (found) finds_[kind] += 1;
}

}  // namespace pollen::node
