// What a node's cluster link counts (node/cluster_link.h), and how the status line and the
// final summary of `pollen node` show it with the broker client's own counters.
#ifndef POLLEN_NODE_CLUSTER_COUNTERS_H_
#define POLLEN_NODE_CLUSTER_COUNTERS_H_

#include <cstdint>
#include <string>

#include "broker/client/broker_client.h"

namespace pollen::node {

struct ClusterCounters {
  uint64_t inputs_published = 0;  // own new entries sent to the campaign
  uint64_t inputs_known = 0;      // own new entries not sent: the cluster had their coverage
  uint64_t inputs_trusted = 0;    // received with features of this build: offered unrun
  uint64_t inputs_executed = 0;   // received and queued to run in a worker
  uint64_t inputs_kept = 0;       // received inputs that joined the corpus
  uint64_t inputs_held = 0;       // received inputs the corpus already held
  uint64_t backlog_drops = 0;     // received inputs dropped: too many were waiting to run
  uint64_t too_large = 0;         // messages not sent: over the size limit
  uint64_t deltas_sent = 0;
  uint64_t digests_sent = 0;      // pages, broadcast or addressed to a newcomer
  uint64_t hashes_requested = 0;  // in missing requests sent
  uint64_t inputs_replied = 0;    // own inputs sent in answer to missing requests
  uint64_t crashes_sent = 0;
  uint64_t crashes_received = 0;
};

// The fields `pollen node` appends to each status line:
// "\tcluster: sent 3 recv 5 kept 2 lost 0 dropped 1", then " offline" while no connection
// to the broker is up, or " REFUSED" once the broker refused this node's key (and no
// connection has succeeded since). "dropped" counts what was not delivered here or not
// sent from here for any reason but a duplicate (a duplicate is dedup, not loss).
std::string ClusterStatusFields(const ClusterCounters& counters, const broker::ClientStats& client,
                                bool refused);

// One line for the end of a run: every counter, and the drops by reason.
std::string ClusterSummary(const ClusterCounters& counters, const broker::ClientStats& client);

}  // namespace pollen::node

#endif  // POLLEN_NODE_CLUSTER_COUNTERS_H_
