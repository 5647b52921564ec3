// What `pollen node --http` reports (docs/deploy.md): liveness, readiness and the node's
// metrics, read by the HTTP server's threads from a snapshot that an observer of the
// coordinator takes on the coordinator's own thread (at most once a second, and at start
// and stop), so the fuzzing loop never waits for a scrape and never shares its state.
//
// Ready means "connected and fuzzing": the workers are up, and each link that was asked for
// (broker, controller) is connected. Alive means the coordinator's loop turns (or has not
// started yet: seeds being read; or has ended: the node is draining).
#ifndef POLLEN_NODE_NODE_TELEMETRY_H_
#define POLLEN_NODE_NODE_TELEMETRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "broker/client/broker_client.h"
#include "node/cluster_counters.h"
#include "node/controller_session.h"
#include "node/coordinator_observer.h"
#include "ops/loop_watch.h"
#include "ops/metric_set.h"
#include "ops/probe.h"

namespace pollen::node {

class ClusterLink;
class ControllerLink;

// Who the node is, for pollen_node_info.
struct NodeIdentity {
  std::string node_id;
  std::string campaign;
  std::string build_id;
};

// The figures a scrape reads.
struct NodeSnapshot {
  NodeIdentity identity;
  bool fuzzing = false;  // between the coordinator's OnStart and OnStop
  bool stopped = false;  // OnStop has run
  uint64_t executions = 0;
  double executions_per_second = 0;  // over the last snapshot interval
  uint64_t edges = 0;
  uint64_t features = 0;
  uint64_t corpus_entries = 0;
  uint64_t corpus_bytes = 0;
  uint64_t failures = 0;                            // distinct failures saved
  std::map<std::string, uint64_t> crashes_by_kind;  // new failures found in this run
  uint64_t rss_bytes = 0;                           // the coordinator and its workers
  bool has_cluster = false;
  ClusterCounters cluster;
  broker::ClientStats broker_client;
  bool has_controller = false;
  ControllerState controller_state = ControllerState::kConnecting;
  ControllerSessionCounters controller;
};

class NodeTelemetry {
 public:
  // /healthz fails once the coordinator's loop has not turned for max_stall_ms: more than
  // any turn may take, minimizing new crashes inline included (LoopStallBudgetMs).
  explicit NodeTelemetry(uint64_t max_stall_ms = ops::kMaxLoopStallMs)
      : max_stall_ms_(max_stall_ms) {}

  // An observer to add after the links (so it reads what they did in the same turn); the
  // links (either may be null) must outlive it. Make one per run.
  std::unique_ptr<CoordinatorObserver> MakeObserver(NodeIdentity identity,
                                                    const ClusterLink* cluster,
                                                    const ControllerLink* controller);

  // For the HTTP endpoints; thread-safe.
  ops::Probe Alive() const;
  ops::Probe Ready() const;
  void AddMetrics(ops::MetricSet& metrics) const;
  NodeSnapshot snapshot() const;

 private:
  class Observer;
  void Publish(const NodeSnapshot& snapshot);

  const uint64_t max_stall_ms_;
  ops::LoopWatch loop_;
  mutable std::mutex mu_;
  NodeSnapshot snapshot_;
};

// The longest a healthy coordinator's loop turn may take: ops::kMaxLoopStallMs, plus the
// crash minimizations a turn may run inline (each up to minimize_time_s: one per worker that
// found a new failure in that turn, and one the controller asked for).
uint64_t LoopStallBudgetMs(uint32_t workers, uint32_t minimize_time_s);

}  // namespace pollen::node

#endif  // POLLEN_NODE_NODE_TELEMETRY_H_
