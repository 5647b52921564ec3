// The answer of a health or readiness check: whether it passes, and a short reason that
// the endpoint returns as its body ("ok", "not connected to the broker", ...).
#ifndef POLLEN_OPS_PROBE_H_
#define POLLEN_OPS_PROBE_H_

#include <string>

namespace pollen::ops {

struct Probe {
  bool ok = true;
  std::string detail;
};

}  // namespace pollen::ops

#endif  // POLLEN_OPS_PROBE_H_
