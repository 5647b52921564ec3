// pollen node TARGET [CORPUS_DIR...] --broker=ADDR (--key=PREFIX --broker-key=FILE | --insecure-plaintext)
#include <unistd.h>

#include <cstdio>
#include <random>

#include "broker/broker_client.h"
#include "broker/curve_keys.h"
#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/fuzz_session.h"
#include "cli/target_setup.h"
#include "node/cluster_link.h"
#include "node/cluster_options.h"

namespace pollen::cli {
namespace {

const char kNodeHelp[] =
    "Usage: pollen node TARGET [CORPUS_DIR...] --broker=ADDR\n"
    "                   (--key=PREFIX --broker-key=FILE | --insecure-plaintext) [flags]\n"
    "\n"
    "Fuzzes TARGET as `pollen fuzz` does (the same workers, work directory, corpus store and\n"
    "failure handling) and shares what it finds with the other nodes of its campaign through\n"
    "a `pollen broker` (docs/cluster.md): inputs that add coverage, coverage deltas, failures,\n"
    "digests of its corpus. An input from another node joins the corpus when it adds coverage\n"
    "here. While the broker is unreachable, or refuses this node's key, the node fuzzes alone\n"
    "and says so. A campaign is --campaign and the target's build id: only nodes running the\n"
    "same build of the target share inputs.\n"
    "\n"
    "With --key=PREFIX, PREFIX.key is this node's secret key (pollen keygen PREFIX; the\n"
    "broker's authorized/ directory needs PREFIX.pub) and --broker-key the broker's public key.\n"
    "--insecure-plaintext talks to a broker started with --insecure-plaintext: local use only.\n"
    "\n"
    "Flags:\n";

// HOST-PID-RANDOM: unique among the nodes of a cluster, and different at each start (a
// restarted node is a newcomer that the others send their digests to).
std::string DefaultNodeId() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof(host), "node");
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "%04x", rd() & 0xffff);
  return std::string(host) + "-" + std::to_string(getpid()) + "-" + suffix;
}

// Reads this node's key pair and the broker's public key.
Status ReadNodeKeys(const node::ClusterOptions& cluster, broker::ClientOptions* client) {
  std::string key_file = cluster.key;
  if (key_file.size() < 4 || key_file.compare(key_file.size() - 4, 4, ".key") != 0) key_file += ".key";
  auto keys = broker::ReadSecretKey(key_file);
  if (!keys.ok()) {
    return Status::Error(keys.status().message() + " (make it with: pollen keygen " + cluster.key + ")");
  }
  auto broker_key = broker::ReadPublicKey(cluster.broker_key);
  if (!broker_key.ok()) return broker_key.status();
  client->keys = keys.value();
  client->broker_public_key = broker_key.value();
  return Status::Ok();
}

// The flags of pollen node beyond pollen fuzz's, checked; an error to print as usage.
Status CheckClusterFlags(const node::ClusterOptions& cluster) {
  if (cluster.broker.empty()) {
    return Status::Error("pollen node needs --broker=ADDR, e.g. --broker=tcp://broker-host:7100");
  }
  bool keys = !cluster.key.empty() || !cluster.broker_key.empty();
  if (cluster.insecure_plaintext && keys) {
    return Status::Error("--key/--broker-key and --insecure-plaintext exclude each other");
  }
  if (!cluster.insecure_plaintext && (cluster.key.empty() || cluster.broker_key.empty())) {
    return Status::Error(
        "pollen node needs --key=PREFIX and --broker-key=FILE (CURVE) or, for local use, "
        "--insecure-plaintext");
  }
  broker::MessageLimits limits;
  if (cluster.campaign.size() > limits.max_name_bytes || cluster.node_id.size() > limits.max_name_bytes) {
    return Status::Error("--campaign and --node-id take at most " +
                         std::to_string(limits.max_name_bytes) + " bytes");
  }
  if (cluster.delta_every == 0 || cluster.digest_every == 0) {
    return Status::Error("--delta-every and --digest-every must be at least 1 second");
  }
  return Status::Ok();
}

}  // namespace

int NodeCommand(int argc, char** argv) {
  node::FuzzOptions options;
  node::ClusterOptions cluster;
  FlagParser parser("node");
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
  if (positional.empty()) return UsageError("pollen node needs a TARGET (see pollen node --help)");
  options.target = positional[0];
  options.corpus_dirs.assign(positional.begin() + 1, positional.end());
  Status checked = CheckClusterFlags(cluster);
  if (!checked.ok()) return UsageError(checked.message());

  broker::ClientOptions client;
  client.broker = cluster.broker;
  client.node_id = cluster.node_id.empty() ? DefaultNodeId() : cluster.node_id;
  if (!cluster.insecure_plaintext) {
    Status keys = ReadNodeKeys(cluster, &client);
    if (!keys.ok()) return UsageError(keys.message());
  }

  auto make_link = [&](const SessionInfo& info) -> Result<std::unique_ptr<node::CoordinatorObserver>> {
    client.campaign = {cluster.campaign.empty() ? info.target_name : cluster.campaign, info.build_id};
    auto connected = broker::ConnectBroker(client);
    if (!connected.ok()) return connected.status();
    node::ClusterLinkOptions link;
    link.broker = client.broker;
    link.campaign = client.campaign.target + " (build " + client.campaign.build_id + ")";
    link.node_id = client.node_id;
    link.delta_interval_ms = uint64_t{cluster.delta_every} * 1000;
    link.digest_interval_ms = uint64_t{cluster.digest_every} * 1000;
    link.limits = client.limits;
    return std::unique_ptr<node::CoordinatorObserver>(std::make_unique<node::ClusterLink>(
        link, std::move(connected).value(), info.store));
  };
  return RunFuzzSession("node", options, make_link);
}

}  // namespace pollen::cli
