// The HTTP endpoints a long-running Pollen process serves with --http=ADDR, for Kubernetes'
// probes and Prometheus (docs/deploy.md):
//   GET /healthz   200 "ok" while the process is alive, 503 with the reason when not
//   GET /readyz    200 "ready" when it can do its work, 503 with the reason when not
//   GET /metrics   the metrics in Prometheus' text format
// and the GET routes a service adds (the controller's dashboard: its page and JSON under
// /api/). Anything else is 404 (405 for another method on these paths). Read-only, no
// state: a probe, a scrape or a page never changes what the service does. Served by cpp-httplib on
// four threads of its own, with short timeouts and tiny request limits, so a misbehaving client
// costs a thread for at most a few seconds and never reaches the service.
#ifndef POLLEN_OPS_OPS_SERVER_H_
#define POLLEN_OPS_OPS_SERVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "ops/metric_set.h"
#include "ops/probe.h"

namespace pollen::ops {

// A GET for a route, as checked by the server: the path decoded, at most kMaxPath bytes,
// with no "." or ".." segment; at most kMaxParams query parameters of at most
// kMaxParamBytes each.
struct HttpRequest {
  static constexpr size_t kMaxPath = 1024;
  static constexpr size_t kMaxParams = 16;
  static constexpr size_t kMaxParamBytes = 256;
  std::string path;
  std::multimap<std::string, std::string> query;
};

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. Content-Disposition
};

using HttpRoute = std::function<HttpReply(const HttpRequest&)>;

// Paths that start with `prefix` ("/api/", "/") go to `handler`.
struct HttpRouteEntry {
  std::string prefix;
  HttpRoute handler;
  bool needs_token = true;  // with OpsEndpoints::token set (a page's own files need not)
};

// What the endpoints report. Each is called on the server's threads, concurrently with the
// service and possibly with itself: it must be thread-safe and quick (read a snapshot).
struct OpsEndpoints {
  std::function<Probe()> alive;             // empty: alive while the server answers
  std::function<Probe()> ready;             // empty: always ready
  std::function<void(MetricSet&)> metrics;  // empty: the process metrics only
  // GET routes; the longest prefix that matches wins. A handler that throws is answered
  // 500, and the server goes on.
  std::vector<HttpRouteEntry> routes;
  // Non-empty: the routes that need a token (never the probes nor /metrics) ask for this
  // one, as the header "Authorization: Bearer TOKEN" or the cookie pollen_token=TOKEN;
  // else 401.
  std::string token;
  // Without a token: answer those routes only for a Host header that names this machine
  // (127.0.0.1, localhost, [::1]), so that no other web page's name can be pointed at a
  // loopback address to read them (DNS rebinding); else 403.
  bool loopback_hosts_only = false;
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
