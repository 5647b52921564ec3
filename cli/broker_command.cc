// pollen broker --listen=ADDR (--keys=DIR | --insecure-plaintext)
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cstdio>

#include "broker/broker.h"
#include "broker/broker_metrics.h"
#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/ops_http.h"
#include "cli/target_setup.h"
#include "net/curve_keys.h"
#include "node/interrupt.h"
#include "ops/loop_watch.h"

namespace pollen::cli {
namespace {

const char kBrokerHelp[] =
    "Usage: pollen broker --listen=ADDR (--keys=DIR | --insecure-plaintext) [flags]\n"
    "\n"
    "Relays new inputs, coverage deltas, crashes and corpus digests between the nodes of\n"
    "each campaign (docs/cluster.md). ADDR is a ZeroMQ endpoint: tcp://*:7100 listens on\n"
    "every interface, tcp://127.0.0.1:* on any free port of loopback.\n"
    "\n"
    "With --keys=DIR every connection is authenticated and encrypted (CURVE): DIR/broker.key\n"
    "is the broker's secret key and DIR/authorized/*.pub the public keys of the nodes allowed\n"
    "in (read again when a node connects: adding a node needs no restart). Make keys with\n"
    "`pollen keygen`. --insecure-plaintext lets anybody in, unencrypted: for local use only.\n"
    "Prints a status line every --status-every seconds; Ctrl-C or SIGTERM stops it (exit 0).\n"
    "With --http=:9100 it serves /healthz, /readyz and /metrics (docs/deploy.md).\n"
    "\n"
    "Flags:\n";

// The flags: type, name, default, help.
#define POLLEN_BROKER_FLAGS(X)                                                              \
  X(std::string, listen, "", "ZeroMQ endpoint to listen on, e.g. tcp://*:7100")             \
  X(std::string, keys, "", "directory with broker.key and authorized/*.pub (CURVE)")        \
  X(bool, insecure_plaintext, false, "no authentication, no encryption (local use only)")   \
  X(uint32_t, status_every, 10, "seconds between status lines; 0 = none")                   \
  X(uint32_t, high_water_mark, 10000, "messages queued per node before it misses messages") \
  X(uint32_t, max_message_kib, 2048, "largest message accepted, KiB")                       \
  X(uint32_t, peer_timeout, 10, "seconds of silence after which a node counts as gone")     \
  X(uint64_t, dedup_capacity, 262144, "input hashes remembered per campaign for dedup")     \
  X(uint32_t, io_threads, 2, "ZeroMQ I/O threads (they do the CURVE encryption)")           \
  X(std::string, http, "", ops::kHttpFlagHelp)

struct BrokerFlags {
#define POLLEN_DECLARE_FLAG(type, name, def, help) type name = def;
  POLLEN_BROKER_FLAGS(POLLEN_DECLARE_FLAG)
#undef POLLEN_DECLARE_FLAG
};

// Fills the CURVE part of `options` from a keys directory.
Status LoadKeys(const std::string& dir, broker::BrokerOptions* options) {
  std::string key_file = dir + "/broker.key";
  auto keys = net::ReadSecretKey(key_file);
  if (!keys.ok()) {
    return Status::Error(keys.status().message() + " (make it with: pollen keygen " + dir +
                         "/broker)");
  }
  net::WarnIfKeyExposed(key_file);
  options->secret_key = keys->secret_key;
  options->authorized_dir = dir + "/authorized";
  auto authorized = net::ReadAuthorizedKeys(options->authorized_dir);
  if (!authorized.ok()) {
    return Status::Error(authorized.status().message() + " (put each node's .pub file in it)");
  }
  if (authorized->empty()) {
    spdlog::warn("no keys in {} yet: every node is refused until its .pub file is added",
                 options->authorized_dir);
  }
  return Status::Ok();
}

}  // namespace

int BrokerCommand(int argc, char** argv) {
  BrokerFlags flags;
  FlagParser parser("broker");
  parser.EnableEnvironment();
#define POLLEN_ADD_FLAG(type, name, def, help) parser.Add(#name, &flags.name, help);
  POLLEN_BROKER_FLAGS(POLLEN_ADD_FLAG)
#undef POLLEN_ADD_FLAG
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s%s", kBrokerHelp, parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (!positional.empty()) {
    return UsageError("pollen broker takes no arguments, got '" + positional[0] +
                      "' (see pollen broker --help)");
  }
  if (flags.listen.empty()) {
    return UsageError("pollen broker needs --listen=ADDR, e.g. --listen=tcp://*:7100");
  }
  if (flags.keys.empty() == !flags.insecure_plaintext) {
    return UsageError(
        flags.keys.empty()
            ? "pollen broker needs --keys=DIR (CURVE) or, for local use, --insecure-plaintext"
            : "--keys and --insecure-plaintext exclude each other");
  }
  if (flags.high_water_mark == 0) return UsageError("--high-water-mark must be at least 1");
  if (flags.max_message_kib == 0 || flags.max_message_kib > 64 * 1024) {
    return UsageError("--max-message-kib must be between 1 and 65536");
  }
  if (flags.peer_timeout == 0) return UsageError("--peer-timeout must be at least 1 second");
  if (flags.dedup_capacity == 0) return UsageError("--dedup-capacity must be at least 1");
  if (flags.io_threads == 0 || flags.io_threads > 64) {
    return UsageError("--io-threads must be between 1 and 64");
  }

  broker::BrokerOptions options;
  options.listen = flags.listen;
  options.allow_plaintext = flags.insecure_plaintext;
  if (!flags.keys.empty()) {
    Status loaded = LoadKeys(flags.keys, &options);
    if (!loaded.ok()) return UsageError(loaded.message());
  }
  options.high_water_mark = static_cast<int>(std::min<uint32_t>(flags.high_water_mark, 1 << 30));
  options.limits.max_message_bytes = static_cast<size_t>(flags.max_message_kib) * 1024;
  options.peer_timeout_ms = static_cast<uint64_t>(flags.peer_timeout) * 1000;
  options.peers.inputs_per_campaign = flags.dedup_capacity;
  options.io_threads = static_cast<int>(flags.io_threads);
  options.status_interval_ms = static_cast<uint64_t>(flags.status_every) * 1000;
  options.on_status = [](const broker::BrokerStatus& status) {
    spdlog::info("{}", broker::FormatStatusLine(status));
  };

  auto started = broker::StartBroker(options);
  if (!started.ok()) return UsageError(started.status().message());
  broker::Broker& broker = *started.value();
  spdlog::info("listening on {} ({})", broker.endpoint(),
               flags.insecure_plaintext ? "PLAIN TEXT: anybody may connect"
                                        : "CURVE, keys in " + flags.keys);
  node::InstallInterruptHandler();
  // Ready as soon as it listens, until it is asked to stop.
  ops::LoopWatch loop;
  ops::OpsEndpoints endpoints;
  endpoints.alive = [&loop] { return loop.Check(); };
  endpoints.ready = [] {
    return node::Interrupted() ? ops::Probe{false, "stopping"} : ops::Probe{true, "ready"};
  };
  endpoints.metrics = [&broker](ops::MetricSet& m) {
    broker::AddBrokerMetrics(broker.status(), m);
  };
  auto http = StartHttp("broker", flags.http, std::move(endpoints));
  if (!http.ok()) return UsageError(http.status().message());
  broker.Run([&loop] {
    loop.Tick();
    return node::Interrupted();
  });
  loop.Ended();
  broker::BrokerStatus final_status = broker.status();
  std::printf("broker stopped: %lu messages in, %lu out, %lu dropped, %lu refused\n",
              static_cast<unsigned long>(final_status.totals.messages_in),
              static_cast<unsigned long>(final_status.totals.messages_out),
              static_cast<unsigned long>(final_status.totals.drops.Total()),
              static_cast<unsigned long>(final_status.totals.handshakes_refused));
  return kExitOk;
}

}  // namespace pollen::cli
