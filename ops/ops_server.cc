#include "ops/ops_server.h"

#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <atomic>
#include <cctype>
#include <string>
#include <string_view>
#include <thread>

#include "ops/http_address.h"
#include "ops/process_metrics.h"

namespace pollen::ops {
namespace {

// Bounds for what a client may cost: a probe or scrape request is a few hundred bytes.
// Four for the probes and scrapes; with routes (a dashboard), a page's connections must not
// take the threads a probe needs: a browser keeps a few connections alive for seconds.
constexpr size_t kThreads = 4;
constexpr size_t kThreadsWithRoutes = 16;
constexpr time_t kTimeoutSeconds = 5;
constexpr size_t kMaxPayload = 1024;
constexpr size_t kKeepAliveRequests = 100;

// Equal, in a time that does not depend on where they differ.
bool SameSecret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); i++) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// %XX sequences decoded (a cookie's value as a page's encodeURIComponent wrote it).
std::string PercentDecoded(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] == '%' && i + 2 < text.size() &&
        std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Whether the Host header names the machine itself: "127.0.0.1", "localhost", "[::1]", with
// or without a port. Without a token, only such requests are answered: a web page the user
// opens elsewhere could otherwise point a name of its own at 127.0.0.1 and read the API
// (DNS rebinding).
bool LoopbackHost(const httplib::Request& req) {
  std::string host = req.get_header_value("Host");
  if (host.rfind("[::1]", 0) == 0) return host.size() == 5 || host[5] == ':';
  const size_t colon = host.find(':');
  if (colon != std::string::npos) host.resize(colon);
  return host == "localhost" || host.rfind("127.", 0) == 0;
}

// The token a request carries: "Authorization: Bearer T", or the cookie pollen_token=T.
std::string TokenOf(const httplib::Request& req) {
  const std::string auth = req.get_header_value("Authorization");
  if (auth.rfind("Bearer ", 0) == 0) return auth.substr(7);
  const std::string cookies = req.get_header_value("Cookie");
  const std::string_view name = "pollen_token=";
  for (size_t at = 0; at < cookies.size();) {
    size_t end = cookies.find(';', at);
    if (end == std::string::npos) end = cookies.size();
    std::string_view cookie(cookies.data() + at, end - at);
    while (!cookie.empty() && cookie.front() == ' ') cookie.remove_prefix(1);
    if (cookie.substr(0, name.size()) == name) return PercentDecoded(cookie.substr(name.size()));
    at = end + 1;
  }
  return "";
}

// Why a request for a route is refused before its handler sees it (empty: it is not).
std::string CheckRequest(const httplib::Request& req) {
  if (req.path.size() > HttpRequest::kMaxPath) return "path too long";
  if (req.path.empty() || req.path[0] != '/') return "bad path";
  for (size_t at = 1; at <= req.path.size();) {
    size_t end = req.path.find('/', at);
    if (end == std::string::npos) end = req.path.size();
    const std::string_view segment(req.path.data() + at, end - at);
    if (segment == "." || segment == "..") return "a path may not hold . or .. segments";
    if (segment.find('\0') != std::string_view::npos) return "bad path";
    at = end + 1;
  }
  if (req.params.size() > HttpRequest::kMaxParams) return "too many query parameters";
  for (const auto& [key, value] : req.params) {
    if (key.size() > HttpRequest::kMaxParamBytes || value.size() > HttpRequest::kMaxParamBytes) {
      return "a query parameter is too long";
    }
  }
  return "";
}

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
    const size_t threads = endpoints_.routes.empty() ? kThreads : kThreadsWithRoutes;
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
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
    // The routes, after the probes: httplib tries handlers in the order they were added.
    if (!endpoints_.routes.empty()) {
      server_.Get(".*",
                  [this](const httplib::Request& req, httplib::Response& res) { Route(req, res); });
    }
    auto not_allowed = [this](const httplib::Request& req, httplib::Response& res) {
      const bool known = req.path == "/healthz" || req.path == "/readyz" ||
                         req.path == "/metrics" || FindRoute(req.path) != nullptr;
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
  // The route with the longest prefix `path` starts with, or null.
  const HttpRouteEntry* FindRoute(const std::string& path) const {
    const HttpRouteEntry* best = nullptr;
    for (const HttpRouteEntry& route : endpoints_.routes) {
      if (path.rfind(route.prefix, 0) == 0 &&
          (best == nullptr || route.prefix.size() > best->prefix.size())) {
        best = &route;
      }
    }
    return best;
  }

  void Route(const httplib::Request& req, httplib::Response& res) const {
    const HttpRouteEntry* route = FindRoute(req.path);
    if (route == nullptr) {
      res.status = 404;
      res.set_content("not found\n", "text/plain; charset=utf-8");
      return;
    }
    if (route->needs_token && endpoints_.token.empty() && endpoints_.loopback_hosts_only &&
        !LoopbackHost(req)) {
      res.status = 403;
      res.set_content("only for this machine's own names (127.0.0.1, localhost, [::1])\n",
                      "text/plain; charset=utf-8");
      return;
    }
    if (route->needs_token && !endpoints_.token.empty() &&
        !SameSecret(TokenOf(req), endpoints_.token)) {
      res.status = 401;
      res.set_header("WWW-Authenticate", "Bearer");
      res.set_content("a token is needed (Authorization: Bearer, or the pollen_token cookie)\n",
                      "text/plain; charset=utf-8");
      return;
    }
    if (const std::string why = CheckRequest(req); !why.empty()) {
      res.status = req.path.size() > HttpRequest::kMaxPath ? 414 : 400;
      res.set_content(why + "\n", "text/plain; charset=utf-8");
      return;
    }
    HttpRequest request;
    request.path = req.path;
    request.query.insert(req.params.begin(), req.params.end());
    HttpReply reply = route->handler(request);
    res.status = reply.status;
    for (const auto& [name, value] : reply.headers) res.set_header(name, value);
    res.set_content(reply.body, reply.content_type);
  }

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
