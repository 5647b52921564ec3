// pollen node TARGET [CORPUS_DIR...] [--broker=ADDR] [--controller=ADDR]
//     (--key=PREFIX [--broker-key=FILE] [--controller-key=FILE] | --insecure-plaintext)
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <sstream>

#include "broker/client/broker_client.h"
#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/fuzz_session.h"
#include "cli/ops_http.h"
#include "cli/target_setup.h"
#include "controller/client/controller_client.h"
#include "controller/client/safe_name.h"
#include "net/curve_keys.h"
#include "node/build_follower.h"
#include "node/cluster_link.h"
#include "node/cluster_options.h"
#include "node/controller_link.h"
#include "node/controller_session.h"
#include "node/crash_minimizer.h"
#include "node/interrupt.h"
#include "node/node_telemetry.h"
#include "node/observer_list.h"

namespace pollen::cli {
namespace {

const char kNodeHelp[] =
    "Usage: pollen node TARGET [CORPUS_DIR...] [--broker=ADDR] [--controller=ADDR]\n"
    "       pollen node --follow-builds --campaign=NAME --controller=ADDR [CORPUS_DIR...]\n"
    "                   (--key=PREFIX [--broker-key=FILE] [--controller-key=FILE]\n"
    "                    | --insecure-plaintext) [flags]\n"
    "\n"
    "Fuzzes TARGET as `pollen fuzz` does (the same workers, work directory, corpus store and\n"
    "failure handling) as one node of a cluster; at least one of --broker and --controller.\n"
    "\n"
    "With --broker, it shares what it finds with the other nodes of its campaign through a\n"
    "`pollen broker` (docs/cluster.md): inputs that add coverage, coverage deltas, failures,\n"
    "digests of its corpus. An input from another node joins the corpus when it adds coverage\n"
    "here. A campaign is --campaign and the target's build id: only nodes running the same\n"
    "build of the target share inputs.\n"
    "\n"
    "With --controller, it registers with a `pollen controller` (docs/controller.md, \"Nodes\"),\n"
    "sends a heartbeat with its figures every --controller-every seconds, and sends the inputs\n"
    "it finds and its crashes for the campaign's merged corpus and crash triage. `pollen stop\n"
    "CAMPAIGN` stops it (corpus saved, exit code 0); a node of a stopped campaign exits 0\n"
    "without fuzzing.\n"
    "\n"
    "While the broker or the controller is unreachable, or refuses this node's key, the node\n"
    "fuzzes on and says so; it catches up when they are back.\n"
    "\n"
    "With --key=PREFIX, PREFIX.key is this node's secret key (pollen keygen PREFIX; the\n"
    "broker's and the controller's authorized/ directories need PREFIX.pub), --broker-key the\n"
    "broker's public key and --controller-key the controller's. --insecure-plaintext talks to\n"
    "a broker and a controller started with --insecure-plaintext: local use only.\n"
    "\n"
    "With --follow-builds it fuzzes the build the controller assigns to the campaign (`pollen\n"
    "nightly` with nodes: cluster pushes each night's build): it waits until there is one,\n"
    "pulls it into WORKDIR/builds, and when another build is assigned it stops as on SIGTERM\n"
    "and goes on with the new one, its corpus run again on it (docs/nightly.md).\n"
    "\n"
    "With --http=:9300 it serves /healthz, /readyz (ready: fuzzing, and connected to the\n"
    "broker and the controller it was given) and /metrics (docs/deploy.md).\n"
    "\n"
    "Flags:\n";

// How long the start waits for the controller's answer to the registration: a node of a
// stopped campaign should exit before it fuzzes, but an unreachable controller must not
// hold the node up for long.
constexpr uint64_t kRegisterWaitMs = 3000;

// HOST-PID-RANDOM: unique among the nodes of a cluster, and different at each start (a
// restarted node is a newcomer that the others send their digests to).
std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') return "node";
  return host;
}

std::string DefaultNodeId() {
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "%04x", rd() & 0xffff);
  return HostName() + "-" + std::to_string(getpid()) + "-" + suffix;
}

// The keys of CURVE: this node's pair (--key) and the servers' public keys.
struct NodeKeys {
  net::CurveKeyPair own;
  std::string broker_public;
  std::string controller_public;
};

Result<NodeKeys> ReadNodeKeys(const node::ClusterOptions& cluster) {
  NodeKeys keys;
  const std::string key_file = net::SecretKeyFile(cluster.key);
  auto own = net::ReadSecretKey(key_file);
  if (!own.ok()) {
    return Status::Error(own.status().message() + " (make it with: pollen keygen " + cluster.key +
                         ")");
  }
  keys.own = own.value();
  if (!cluster.broker.empty()) {
    auto broker_key = net::ReadPublicKey(cluster.broker_key);
    if (!broker_key.ok()) return broker_key.status();
    keys.broker_public = broker_key.value();
  }
  if (!cluster.controller.empty()) {
    auto controller_key = net::ReadPublicKey(cluster.controller_key);
    if (!controller_key.ok()) return controller_key.status();
    keys.controller_public = controller_key.value();
  }
  return keys;
}

// The flags of pollen node beyond pollen fuzz's, checked; an error to print as usage.
Status CheckClusterFlags(const node::ClusterOptions& cluster) {
  if (cluster.broker.empty() && cluster.controller.empty()) {
    return Status::Error(
        "pollen node needs --broker=ADDR or --controller=ADDR (or both), e.g. "
        "--broker=tcp://broker-host:7100");
  }
  bool keys =
      !cluster.key.empty() || !cluster.broker_key.empty() || !cluster.controller_key.empty();
  if (cluster.insecure_plaintext && keys) {
    return Status::Error(
        "--key/--broker-key/--controller-key and --insecure-plaintext exclude each other");
  }
  const bool broker_keys = cluster.broker.empty() || !cluster.broker_key.empty();
  const bool controller_keys = cluster.controller.empty() || !cluster.controller_key.empty();
  if (!cluster.insecure_plaintext && (cluster.key.empty() || !broker_keys || !controller_keys)) {
    // Every key file CURVE needs for the servers given, whichever are missing.
    std::string needed = "--key=PREFIX";
    if (!cluster.broker.empty()) needed += cluster.controller.empty() ? " and " : ", ";
    if (!cluster.broker.empty()) needed += "--broker-key=FILE";
    if (!cluster.controller.empty()) needed += " and --controller-key=FILE";
    return Status::Error("pollen node needs " + needed +
                         " (CURVE) or, for local use, --insecure-plaintext");
  }
  if (cluster.broker.empty() && !cluster.broker_key.empty()) {
    return Status::Error("--broker-key is for --broker, which is not given");
  }
  if (cluster.controller.empty() && !cluster.controller_key.empty()) {
    return Status::Error("--controller-key is for --controller, which is not given");
  }
  broker::MessageLimits limits;
  if (cluster.campaign.size() > limits.max_name_bytes ||
      cluster.node_id.size() > limits.max_name_bytes) {
    return Status::Error("--campaign and --node-id take at most " +
                         std::to_string(limits.max_name_bytes) + " bytes");
  }
  if (!cluster.controller.empty() && !cluster.node_id.empty()) {
    controller::ControllerLimits controller_limits;
    Status id = controller::CheckNodeId(cluster.node_id, controller_limits.max_name_bytes);
    if (!id.ok()) return Status::Error("--node-id: " + id.message());
  }
  if (cluster.delta_every == 0 || cluster.digest_every == 0 || cluster.controller_every == 0) {
    return Status::Error(
        "--delta-every, --digest-every and --controller-every must be at least 1 second");
  }
  return Status::Ok();
}

// The fuzzing flags as the controller shows them for the campaign ("--max-len=4096 ..."):
// every flag but those that differ from node to node by nature (seed, work directory).
std::string FuzzFlagsText(const node::FuzzOptions& options) {
  std::ostringstream text;
  auto add = [&](const char* name, const auto& value) {
    std::string flag = name;
    if (flag == "seed" || flag == "workdir") return;
    for (char& c : flag) c = c == '_' ? '-' : c;
    if (text.tellp() > 0) text << ' ';
    text << "--" << flag << '=' << std::boolalpha << value;
  };
#define POLLEN_ADD_TEXT(type, name, def, help) add(#name, options.name);
  POLLEN_FUZZ_FLAGS(POLLEN_ADD_TEXT)
#undef POLLEN_ADD_TEXT
  return text.str();
}

// How this node reaches the controller: its endpoint, and CURVE's keys unless plain text.
controller::ControllerClientOptions ClientOptionsFor(const node::ClusterOptions& cluster,
                                                     const NodeKeys* keys) {
  controller::ControllerClientOptions client;
  client.controller = cluster.controller;
  if (keys != nullptr) {
    client.keys = keys->own;
    client.controller_public_key = keys->controller_public;
  }
  return client;
}

// The controller link, started: registered, or fuzzing on while the controller is away.
Result<std::unique_ptr<node::ControllerLink>> MakeControllerLink(
    const node::ClusterOptions& cluster, const node::FuzzOptions& options, const NodeKeys* keys,
    const std::string& node_id, const std::string& campaign, const SessionInfo& info) {
  if (Status name = controller::CheckSafeName("campaign name", campaign); !name.ok()) {
    return Status::Error(name.message() + (cluster.campaign.empty()
                                               ? " (the target's file name: give --campaign=NAME)"
                                               : " (--campaign)"));
  }
  const controller::ControllerClientOptions client = ClientOptionsFor(cluster, keys);
  node::ControllerSessionOptions session;
  session.endpoint = cluster.controller;
  session.limits = client.limits;
  session.heartbeat_interval_ms = uint64_t{cluster.controller_every} * 1000;
  session.streams = client;  // the joining fetch and pushed inputs (docs/controller.md)
  session.follow_builds = cluster.follow_builds;
  controller::RegisterRequest& r = session.registration;
  r.node_id = node_id;
  r.campaign = campaign;
  r.target = info.target_name;
  r.build_id = info.build_id;
  r.options = FuzzFlagsText(options);
  r.host = HostName();
  r.workers = node::WorkerCount(options);
  auto connect = [client]() { return controller::ConnectController(client); };
  // Checks the endpoint and keys now, so that a mistake is a usage error, not a log line.
  if (auto probe = connect(); !probe.ok()) return probe.status();

  node::CrashMinimizerFn minimize;
  if (info.launcher != nullptr) {
    minimize = [launcher = info.launcher, seconds = options.minimize_time](
                   const std::vector<uint8_t>& input, const node::Failure& failure) {
      return node::MinimizeFailure(*launcher, input, failure, seconds);
    };
  }
  node::ControllerLinkOptions link_options;
  link_options.campaign = campaign;
  auto link = std::make_unique<node::ControllerLink>(
      link_options,
      std::make_unique<node::ControllerSession>(std::move(session), std::move(connect)),
      std::move(minimize), info.store);
  link->Start(kRegisterWaitMs);
  return link;
}

// --follow-builds: each build the controller assigns to the campaign in turn, fuzzed by
// `run` until another is assigned; the exit code of the last session (or of the wait).
int FollowBuilds(const node::ClusterOptions& cluster, const NodeKeys* keys,
                 node::FuzzOptions& options, const std::function<int()>& run) {
  if (options.workdir.empty()) options.workdir = ".pollen/" + cluster.campaign;
  node::BuildFollowerOptions follow;
  follow.client = ClientOptionsFor(cluster, keys);
  follow.campaign = cluster.campaign;
  follow.dir = options.workdir + "/builds";
  follow.retry_ms = uint64_t{cluster.controller_every} * 1000;  // as often as a heartbeat
  follow.should_stop = [] { return node::Interrupted(); };
  node::BuildFollower follower(std::move(follow));
  for (;;) {
    Result<std::optional<node::FollowedBuild>> build = follower.Next();
    if (!build.ok()) return UsageError(build.status().message());
    if (!build->has_value()) return node::Terminated() ? kExitOk : 130;  // Ctrl-C while waiting
    options.target = (*build)->path;
    spdlog::info("follow builds: fuzzing build {} of campaign {}", (*build)->build_id,
                 cluster.campaign);
    const int code = run();
    if (node::Interrupted()) return code;
    // The session ended: moved on by the controller, or for a reason of its own (--time, a
    // stopped campaign, a failure without --keep-going), which ends the node too.
    Result<std::string> assigned = follower.AssignedBuild();
    if (!assigned.ok() || assigned->empty() || *assigned == (*build)->build_id) return code;
  }
}

}  // namespace

int NodeCommand(int argc, char** argv) {
  node::FuzzOptions options;
  node::ClusterOptions cluster;
  FlagParser parser("node");
  parser.EnableEnvironment();
#define POLLEN_ADD_FLAG(type, name, def, help) parser.Add(#name, &cluster.name, help);
  POLLEN_NODE_FLAGS(POLLEN_ADD_FLAG)
#undef POLLEN_ADD_FLAG
  AddFuzzFlags(parser, &options);
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s%s", kNodeHelp, parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (cluster.follow_builds) {
    if (cluster.controller.empty() || cluster.campaign.empty()) {
      return UsageError(
          "--follow-builds needs --controller=ADDR and --campaign=NAME: the "
          "controller says which build of the campaign to fuzz");
    }
    options.corpus_dirs = positional;  // no TARGET: the controller's build
  } else {
    if (positional.empty())
      return UsageError("pollen node needs a TARGET (see pollen node --help)");
    options.target = positional[0];
    options.corpus_dirs.assign(positional.begin() + 1, positional.end());
  }
  Status checked = CheckClusterFlags(cluster);
  if (!checked.ok()) return UsageError(checked.message());

  std::optional<NodeKeys> keys;
  if (!cluster.insecure_plaintext) {
    Result<NodeKeys> read = ReadNodeKeys(cluster);
    if (!read.ok()) return UsageError(read.status().message());
    keys = std::move(read).value();
  }
  const std::string node_id = cluster.node_id.empty() ? DefaultNodeId() : cluster.node_id;
  // Before the controller link waits for its registration: Ctrl-C then ends the wait and
  // the run cleanly (exit code 130) instead of killing the process.
  node::InstallInterruptHandler();

  // Up before the seeds are read, so that /healthz answers through a long start; it stops
  // (at the end of this function) before the telemetry it reads goes.
  node::NodeTelemetry telemetry(
      node::LoopStallBudgetMs(node::WorkerCount(options), options.minimize_time));
  ops::OpsEndpoints endpoints;
  endpoints.alive = [&telemetry] { return telemetry.Alive(); };
  endpoints.ready = [&telemetry] {
    return node::Interrupted() ? ops::Probe{false, "stopping"} : telemetry.Ready();
  };
  endpoints.metrics = [&telemetry](ops::MetricSet& m) { telemetry.AddMetrics(m); };
  auto http = StartHttp("node", cluster.http, std::move(endpoints));
  if (!http.ok()) return UsageError(http.status().message());

  // Captures `options` by reference: RunFuzzSession settles max_len before it calls this.
  auto make_observers =
      [&](const SessionInfo& info) -> Result<std::unique_ptr<node::CoordinatorObserver>> {
    const std::string campaign = cluster.campaign.empty() ? info.target_name : cluster.campaign;
    auto observers = std::make_unique<node::ObserverList>();
    const node::ControllerLink* controller_link = nullptr;
    const node::ClusterLink* cluster_link = nullptr;
    if (!cluster.controller.empty()) {
      auto link =
          MakeControllerLink(cluster, options, keys ? &*keys : nullptr, node_id, campaign, info);
      if (!link.ok()) return link.status();
      if ((*link)->StopRequested()) {
        spdlog::warn(
            "not fuzzing: campaign {} is stopped at the controller (pollen start {} "
            "lets its nodes run again)",
            campaign, campaign);
        return std::unique_ptr<node::CoordinatorObserver>(std::move(link).value());
      }
      controller_link = link->get();
      observers->Add(std::move(link).value());
    }
    if (!cluster.broker.empty()) {
      broker::ClientOptions client;
      client.broker = cluster.broker;
      client.node_id = node_id;
      client.campaign = {campaign, info.build_id};
      if (keys) {
        client.keys = keys->own;
        client.broker_public_key = keys->broker_public;
      }
      auto connected = broker::ConnectBroker(client);
      if (!connected.ok()) return connected.status();
      node::ClusterLinkOptions link;
      link.broker = client.broker;
      link.campaign = client.campaign.target + " (build " + client.campaign.build_id + ")";
      link.node_id = client.node_id;
      link.delta_interval_ms = uint64_t{cluster.delta_every} * 1000;
      link.digest_interval_ms = uint64_t{cluster.digest_every} * 1000;
      link.limits = client.limits;
      auto cluster_observer =
          std::make_unique<node::ClusterLink>(link, std::move(connected).value(), info.store);
      cluster_link = cluster_observer.get();
      observers->Add(std::move(cluster_observer));
    }
    // Last: it reads what the links did in the same turn.
    observers->Add(
        telemetry.MakeObserver({node_id, campaign, info.build_id}, cluster_link, controller_link));
    return std::unique_ptr<node::CoordinatorObserver>(std::move(observers));
  };
  const int code =
      cluster.follow_builds
          ? FollowBuilds(cluster, keys ? &*keys : nullptr, options,
                         [&] { return RunFuzzSession("node", options, make_observers); })
          : RunFuzzSession("node", options, make_observers);
  // Stopped by SIGTERM (Kubernetes, podman stop): a node's failures went to the controller
  // and the work directory; the drain is what the exit code reports.
  if (code == kExitFailureFound && node::Terminated()) return kExitOk;
  return code;
}

}  // namespace pollen::cli
