#include "ops/ops_server.h"

#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <atomic>
#include <thread>

#include "ops/http_address.h"
#include "ops/process_metrics.h"

namespace pollen::ops {
namespace {

// Bounds for what a client may cost: a probe or scrape request is a few hundred bytes.
constexpr size_t kThreads = 4;
constexpr time_t kTimeoutSeconds = 5;
constexpr size_t kMaxPayload = 1024;
constexpr size_t kKeepAliveRequests = 100;

void Answer(const Probe& probe, const char* ok_body, httplib::Response& res) {
  res.status = probe.ok ? 200 : 503;
  const std::string body = probe.detail.empty() ? (probe.ok ? ok_body : "not ok") : probe.detail;
  res.set_content(body + "\n", "text/plain; charset=utf-8");
}

class HttpOpsServer : public OpsServer {
 public:
  HttpOpsServer(std::string host, OpsEndpoints endpoints)
      : host_(std::move(host)), endpoints_(std::move(endpoints)) {}

  ~HttpOpsServer() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  Status Listen(uint16_t port) {
    // httplib's default sets SO_REUSEPORT, with which a second process binds the same port
    // and the kernel splits the probes between the two: SO_REUSEADDR only (a restart may
    // rebind at once), so a port in use is an error.
    server_.set_socket_options([](int sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    server_.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
    server_.set_read_timeout(kTimeoutSeconds, 0);
    server_.set_write_timeout(kTimeoutSeconds, 0);
    server_.set_idle_interval(0, 100000);
    server_.set_keep_alive_max_count(kKeepAliveRequests);
    server_.set_keep_alive_timeout(kTimeoutSeconds);
    server_.set_payload_max_length(kMaxPayload);
    server_.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
      Answer(endpoints_.alive ? endpoints_.alive() : Probe{true, "ok"}, "ok", res);
    });
    server_.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
      Answer(endpoints_.ready ? endpoints_.ready() : Probe{true, "ready"}, "ready", res);
    });
    server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      MetricSet metrics;
      if (endpoints_.metrics) endpoints_.metrics(metrics);
      AddProcessMetrics(metrics);
      res.set_content(metrics.Text(), "text/plain; version=0.0.4; charset=utf-8");
    });
    auto not_allowed = [](const httplib::Request& req, httplib::Response& res) {
      const bool known = req.path == "/healthz" || req.path == "/readyz" || req.path == "/metrics";
      res.status = known ? 405 : 404;
      if (known) res.set_header("Allow", "GET, HEAD");
      res.set_content(known ? "only GET\n" : "not found\n", "text/plain; charset=utf-8");
    };
    server_.Post(".*", not_allowed);
    server_.Put(".*", not_allowed);
    server_.Patch(".*", not_allowed);
    server_.Delete(".*", not_allowed);
    server_.Options(".*", not_allowed);
    server_.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.body.empty()) {
        res.set_content(res.status == 404 ? "not found\n" : "bad request\n",
                        "text/plain; charset=utf-8");
      }
    });
    // A handler that throws (a bug) answers 500 and the server goes on.
    server_.set_exception_handler(
        [](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
          spdlog::error("http: {} {} failed", req.method, req.path);
          res.status = 500;
          res.set_content("internal error\n", "text/plain; charset=utf-8");
        });

    const int bound = port == 0 ? server_.bind_to_any_port(host_)
                                : (server_.bind_to_port(host_, port) ? port : -1);
    if (bound <= 0) {
      return Status::Error("cannot listen for HTTP on " + Join(host_, port) +
                           ": the port is in use, or the host is not an address of this machine");
    }
    port_ = static_cast<uint16_t>(bound);
    thread_ = std::thread([this] {
      server_.listen_after_bind();
      listen_returned_.store(true);
    });
    // stop() does nothing before the thread is in its accept loop: wait for it, so that the
    // destructor can always stop it (a few microseconds).
    while (!server_.is_running() && !listen_returned_.load()) std::this_thread::yield();
    return Status::Ok();
  }

  std::string address() const override { return Join(host_, port_); }
  uint16_t port() const override { return port_; }

 private:
  static std::string Join(const std::string& host, uint16_t port) {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
  }

  const std::string host_;
  const OpsEndpoints endpoints_;
  httplib::Server server_;
  uint16_t port_ = 0;
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

}  // namespace

Result<std::unique_ptr<OpsServer>> StartOpsServer(const std::string& address,
                                                  OpsEndpoints endpoints) {
  Result<HttpAddress> parsed = ParseHttpAddress(address);
  if (!parsed.ok()) return parsed.status();
  auto server = std::make_unique<HttpOpsServer>(parsed->host, std::move(endpoints));
  if (Status listening = server->Listen(parsed->port); !listening.ok()) return listening;
  return std::unique_ptr<OpsServer>(std::move(server));
}

}  // namespace pollen::ops
