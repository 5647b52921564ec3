// pollen controller --listen=ADDR --data=DIR (--keys=DIR | --insecure-plaintext)
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdio>

#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/ops_http.h"
#include "cli/target_setup.h"
#include "controller/controller.h"
#include "controller/controller_metrics.h"
#include "controller/controller_options.h"
#include "controller/dashboard_page.h"
#include "node/interrupt.h"
#include "node/text_file.h"
#include "ops/http_address.h"
#include "ops/loop_watch.h"

namespace pollen::cli {
namespace {

const char kControllerHelp[] =
    "Usage: pollen controller --listen=ADDR --data=DIR (--keys=DIR | --insecure-plaintext)\n"
    "\n"
    "The cluster's memory and front door (docs/controller.md): the registry of campaigns and\n"
    "nodes, each campaign's merged corpus and its deduplicated crashes, all kept in DIR and\n"
    "found again after a restart. Nodes join it with `pollen node --controller=ADDR`;\n"
    "developers talk to it with `pollen list`, `status`, `start`, `stop`, `crashes`,\n"
    "`repro --campaign` and `corpus pull|push`.\n"
    "\n"
    "With --keys=DIR every connection is authenticated and encrypted (CURVE, as the broker):\n"
    "DIR/controller.key is its secret key (`pollen keygen DIR/controller`), DIR/authorized/\n"
    "holds the .pub file of every node and developer allowed in (read again as they\n"
    "connect). --insecure-plaintext lets anybody in, unencrypted: for local use only.\n"
    "Prints a status line every --status-every seconds; Ctrl-C or SIGTERM stops it (exit 0).\n"
    "With --http=:9200 it serves /healthz, /readyz and /metrics (docs/deploy.md), and its\n"
    "dashboard at / (docs/dashboard.md): on a loopback address as it is, elsewhere only with\n"
    "--http-token=FILE, whose token the page asks for (a ?token= link, or a Bearer header).\n"
    "\n"
    "Flags:\n";

ops::HttpReply TextReply(int status, const std::string& text) {
  ops::HttpReply reply;
  reply.status = status;
  reply.content_type = "text/plain; charset=utf-8";
  reply.body = text + "\n";
  return reply;
}

// The dashboard's routes on the --http server: the page, and the API the running controller
// answers. On an address other than loopback without --http-token, both say why they are
// not served (the probes and /metrics are served either way).
Status AddDashboard(const controller::ControllerFlags& flags,
                    std::atomic<controller::Controller*>* serving, ops::OpsEndpoints* endpoints) {
  if (flags.http.empty()) return Status::Ok();
  Result<ops::HttpAddress> address = ops::ParseHttpAddress(flags.http);
  if (!address.ok()) return Status::Error("--http: " + address.status().message());
  if (!flags.http_token.empty()) {
    Result<std::string> token = node::ReadTextFile(flags.http_token);
    if (!token.ok()) return Status::Error("--http-token: " + token.status().message());
    std::string t = *token;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    if (t.size() < 16) {
      return Status::Error("--http-token: " + flags.http_token +
                           " holds fewer than 16 characters (make one with `head -c 24 "
                           "/dev/urandom | od -An -tx1 | tr -d ' \\n'`)");
    }
    endpoints->token = t;
  }
  const std::string& host = address->host;
  const bool loopback = host == "::1" || host == "localhost" || host.rfind("127.", 0) == 0;
  if (!loopback && endpoints->token.empty()) {
    auto refused = [](const ops::HttpRequest&) {
      return TextReply(403,
                       "the dashboard is served on a loopback address, or with "
                       "--http-token=FILE (docs/dashboard.md)");
    };
    endpoints->routes.push_back({"/", refused, false});
    return Status::Ok();
  }
  endpoints->loopback_hosts_only = endpoints->token.empty();
  endpoints->routes.push_back({"/", controller::DashboardPage, /*needs_token=*/false});
  endpoints->routes.push_back({"/api/", [serving](const ops::HttpRequest& request) {
                                 if (controller::Controller* c = serving->load()) {
                                   return c->AskView(request);
                                 }
                                 return TextReply(503, "the controller is starting");
                               }});
  return Status::Ok();
}

}  // namespace

int ControllerCommand(int argc, char** argv) {
  controller::ControllerFlags flags;
  FlagParser parser("controller");
  parser.EnableEnvironment();
#define POLLEN_ADD_FLAG(type, name, def, help) parser.Add(#name, &flags.name, help);
  POLLEN_CONTROLLER_FLAGS(POLLEN_ADD_FLAG)
#undef POLLEN_ADD_FLAG
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s%s", kControllerHelp, parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (!positional.empty()) {
    return UsageError("pollen controller takes no arguments, got '" + positional[0] +
                      "' (see pollen controller --help)");
  }
  Result<controller::ControllerOptions> options = controller::ControllerOptionsFromFlags(flags);
  if (!options.ok()) return UsageError(options.status().message());
  if (options->status_interval_ms > 0) {
    options->on_status = [](const controller::ControllerStatus& s) {
      spdlog::info("controller: {}", controller::FormatStatus(s));
    };
  }
  if (options->allow_plaintext) {
    spdlog::warn("controller: PLAIN TEXT: anybody may connect, nothing is encrypted");
  }
  node::InstallInterruptHandler();
  // The endpoints come up before the stores open, so that /healthz answers while a large
  // registry opens; /readyz says ready once the controller serves.
  std::atomic<controller::Controller*> serving{nullptr};
  ops::LoopWatch loop;
  ops::OpsEndpoints endpoints;
  endpoints.alive = [&loop] { return loop.Check(); };
  endpoints.ready = [&serving] {
    if (node::Interrupted()) return ops::Probe{false, "stopping"};
    if (serving.load() == nullptr) return ops::Probe{false, "opening the data directory"};
    return ops::Probe{true, "ready"};
  };
  endpoints.metrics = [&serving](ops::MetricSet& m) {
    if (controller::Controller* c = serving.load()) {
      controller::AddControllerMetrics(c->status(), m);
    }
  };
  Status dashboard = AddDashboard(flags, &serving, &endpoints);
  if (!dashboard.ok()) return UsageError(dashboard.message());
  auto http = StartHttp("controller", flags.http, std::move(endpoints));
  if (!http.ok()) return UsageError(http.status().message());

  auto started = controller::StartController(*options);
  if (!started.ok()) {
    std::fprintf(stderr, "ERROR: %s\n", started.status().message().c_str());
    return kExitUsage;
  }
  controller::Controller& controller = *started.value();
  spdlog::info("controller listening on {} (data in {})", controller.endpoint(), options->data_dir);
  serving = &controller;
  controller.Run([&loop] {
    loop.Tick();
    return node::Interrupted();
  });
  loop.Ended();
  spdlog::info("controller stopped: {}", controller::FormatStatus(controller.status()));
  // The endpoints stop before the controller goes: they read it.
  serving = nullptr;
  http->reset();
  return kExitOk;
}

}  // namespace pollen::cli
