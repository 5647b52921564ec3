#include "node/cluster_counters.h"

#include <spdlog/fmt/fmt.h>

namespace pollen::node {
namespace {

uint64_t Dropped(const ClusterCounters& counters, const broker::ClientStats& client) {
  return client.drops.Total() - client.drops[broker::DropReason::kDuplicate] +
         counters.backlog_drops + counters.too_large;
}

}  // namespace

std::string ClusterStatusFields(const ClusterCounters& counters, const broker::ClientStats& client,
                                bool refused) {
  std::string state = client.connected ? "" : refused ? " REFUSED" : " offline";
  return fmt::format("\tcluster: sent {} recv {} kept {} lost {} dropped {}{}", client.inputs_sent,
                     client.inputs_received, counters.inputs_kept, client.lost,
                     Dropped(counters, client), state);
}

std::string ClusterSummary(const ClusterCounters& counters, const broker::ClientStats& client) {
  std::string drops;
  for (size_t i = 0; i < broker::kNumDropReasons; i++) {
    if (client.drops.by_reason[i] == 0) continue;
    drops += fmt::format("{}{} {}", drops.empty() ? "" : ", ",
                         broker::DropReasonName(static_cast<broker::DropReason>(i)),
                         client.drops.by_reason[i]);
  }
  if (counters.backlog_drops > 0) {
    drops += fmt::format("{}backlog {}", drops.empty() ? "" : ", ", counters.backlog_drops);
  }
  if (counters.too_large > 0) {
    drops += fmt::format("{}too_large {}", drops.empty() ? "" : ", ", counters.too_large);
  }
  return fmt::format(
      "cluster: inputs published {} (not needed {}), replied {}; received {} (trusted {}, run {}, "
      "already held {}), kept {}; deltas {}, digest pages {}, hashes requested {}; crashes sent "
      "{}, "
      "received {}; lost {}; drops: {}; connections {}, refused {}",
      counters.inputs_published, counters.inputs_known, counters.inputs_replied,
      client.inputs_received, counters.inputs_trusted, counters.inputs_executed,
      counters.inputs_held, counters.inputs_kept, counters.deltas_sent, counters.digests_sent,
      counters.hashes_requested, counters.crashes_sent, counters.crashes_received, client.lost,
      drops.empty() ? "none" : drops, client.connects, client.auth_failures);
}

}  // namespace pollen::node
