// The HTTP endpoints a long-running Pollen process serves with --http=ADDR, for Kubernetes'
// probes and Prometheus (docs/deploy.md):
//   GET /healthz   200 "ok" while the process is alive, 503 with the reason when not
//   GET /readyz    200 "ready" when it can do its work, 503 with the reason when not
//   GET /metrics   the metrics in Prometheus' text format
// Anything else is 404 (405 for another method on these paths). Read-only, no state: a
// probe or scrape never changes what the service does. Served by cpp-httplib on four threads
// of its own, with short timeouts and tiny request limits, so a misbehaving client costs a
// thread for at most a few seconds and never reaches the service.
#ifndef POLLEN_OPS_OPS_SERVER_H_
#define POLLEN_OPS_OPS_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "ops/metric_set.h"
#include "ops/probe.h"

namespace pollen::ops {

// What the endpoints report. Each is called on the server's threads, concurrently with the
// service and possibly with itself: it must be thread-safe and quick (read a snapshot).
struct OpsEndpoints {
  std::function<Probe()> alive;               // empty: alive while the server answers
  std::function<Probe()> ready;               // empty: always ready
  std::function<void(MetricSet&)> metrics;    // empty: the process metrics only
};

class OpsServer {
 public:
  virtual ~OpsServer() = default;  // stops serving and joins the threads

  // The address it listens on, with the port resolved ("0.0.0.0:9100").
  virtual std::string address() const = 0;
  virtual uint16_t port() const = 0;
};

// Listens on `address` (ParseHttpAddress's syntax) and serves in the background.
// Errors: a bad address, one that is in use or not of this machine.
Result<std::unique_ptr<OpsServer>> StartOpsServer(const std::string& address,
                                                  OpsEndpoints endpoints);

}  // namespace pollen::ops

#endif  // POLLEN_OPS_OPS_SERVER_H_
