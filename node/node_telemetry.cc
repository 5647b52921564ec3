#include "node/node_telemetry.h"

#include "base/clock.h"
#include "node/cluster_link.h"
#include "node/controller_link.h"
#include "node/process_rss.h"

namespace pollen::node {
namespace {

constexpr uint64_t kSnapshotEveryMs = 1000;

const char* StateName(ControllerState state) {
  switch (state) {
    case ControllerState::kConnecting:
      return "connecting";
    case ControllerState::kRegistered:
      return "registered";
    case ControllerState::kUnreachable:
      return "unreachable";
    case ControllerState::kRefused:
      return "refused";
    case ControllerState::kRejected:
      return "rejected";
  }
  return "unknown";
}
constexpr ControllerState kStates[] = {ControllerState::kConnecting, ControllerState::kRegistered,
                                       ControllerState::kUnreachable, ControllerState::kRefused,
                                       ControllerState::kRejected};

double D(uint64_t v) { return static_cast<double>(v); }

}  // namespace

// Takes the snapshots on the coordinator's thread.
class NodeTelemetry::Observer : public CoordinatorObserver {
 public:
  Observer(NodeTelemetry* telemetry, NodeIdentity identity, const ClusterLink* cluster,
           const ControllerLink* controller)
      : telemetry_(telemetry), cluster_(cluster), controller_(controller) {
    next_.identity = std::move(identity);
    next_.has_cluster = cluster != nullptr;
    next_.has_controller = controller != nullptr;
  }

  void OnStart(CorpusFeed& feed) override {
    next_.fuzzing = true;
    Take(feed, base::MonotonicMs());
  }
  void OnTurn(CorpusFeed& feed) override {
    telemetry_->loop_.Tick();
    const uint64_t now = base::MonotonicMs();
    if (now - last_ms_ >= kSnapshotEveryMs) Take(feed, now);
  }
  void OnEntryAdded(const CorpusEntry&) override {}
  void OnNewFailure(const Failure& failure, const std::vector<uint8_t>&) override {
    next_.crashes_by_kind[failure.kind]++;
  }
  std::string StatusFields() const override { return ""; }
  void OnStop(CorpusFeed& feed) override {
    next_.fuzzing = false;
    next_.stopped = true;
    Take(feed, base::MonotonicMs());
    telemetry_->loop_.Ended();
  }

 private:
  void Take(const CorpusFeed& feed, uint64_t now_ms) {
    const uint64_t executions = feed.executions();
    if (last_ms_ != 0 && now_ms > last_ms_) {
      next_.executions_per_second =
          D(executions - next_.executions) * 1000.0 / D(now_ms - last_ms_);
    }
    last_ms_ = now_ms;
    next_.executions = executions;
    next_.edges = feed.coverage().edges();
    next_.features = feed.coverage().features();
    next_.corpus_entries = feed.corpus().size();
    next_.corpus_bytes = feed.corpus().total_bytes();
    next_.failures = feed.failures();
    next_.rss_bytes = ProcessTreeRssBytes();
    if (cluster_ != nullptr) {
      next_.cluster = cluster_->counters();
      next_.broker_client = cluster_->client_stats();
    }
    if (controller_ != nullptr) {
      next_.controller_state = controller_->session().state();
      next_.controller = controller_->session().counters();
    }
    telemetry_->Publish(next_);
  }

  NodeTelemetry* telemetry_;
  const ClusterLink* cluster_;
  const ControllerLink* controller_;
  NodeSnapshot next_;
  uint64_t last_ms_ = 0;
};

std::unique_ptr<CoordinatorObserver> NodeTelemetry::MakeObserver(NodeIdentity identity,
                                                                 const ClusterLink* cluster,
                                                                 const ControllerLink* controller) {
  return std::make_unique<Observer>(this, std::move(identity), cluster, controller);
}

void NodeTelemetry::Publish(const NodeSnapshot& snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  snapshot_ = snapshot;
}

NodeSnapshot NodeTelemetry::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return snapshot_;
}

ops::Probe NodeTelemetry::Alive() const { return loop_.Check(max_stall_ms_); }

uint64_t LoopStallBudgetMs(uint32_t workers, uint32_t minimize_time_s) {
  return ops::kMaxLoopStallMs + uint64_t{minimize_time_s} * 1000 * (uint64_t{workers} + 1);
}

ops::Probe NodeTelemetry::Ready() const {
  const NodeSnapshot s = snapshot();
  if (s.stopped) return {false, "stopping"};
  if (!s.fuzzing) return {false, "starting: the workers are not fuzzing yet"};
  if (s.has_cluster && !s.broker_client.connected) return {false, "not connected to the broker"};
  if (s.has_controller && s.controller_state != ControllerState::kRegistered) {
    return {false, std::string("controller ") + StateName(s.controller_state)};
  }
  return {true, "ready"};
}

void NodeTelemetry::AddMetrics(ops::MetricSet& m) const {
  const NodeSnapshot s = snapshot();
  m.Gauge("pollen_node_info", "The node's id, campaign and target build (value 1).", 1,
          {{"node_id", s.identity.node_id},
           {"campaign", s.identity.campaign},
           {"build_id", s.identity.build_id}});
  m.Gauge("pollen_node_fuzzing", "1 while the workers fuzz.", s.fuzzing ? 1 : 0);
  m.Counter("pollen_node_executions_total", "Target executions by every worker.", D(s.executions));
  m.Gauge("pollen_node_executions_per_second", "Executions per second over the last second.",
          s.executions_per_second);
  m.Gauge("pollen_node_edges", "Edges (counters) covered.", D(s.edges));
  m.Gauge("pollen_node_features", "Features (counter buckets, comparisons) covered.",
          D(s.features));
  m.Gauge("pollen_node_corpus_entries", "Inputs in the live corpus.", D(s.corpus_entries));
  m.Gauge("pollen_node_corpus_bytes", "Bytes of the inputs in the live corpus.", D(s.corpus_bytes));
  m.Gauge("pollen_node_failures", "Distinct failures saved in the work directory.", D(s.failures));
  for (const auto& [kind, n] : s.crashes_by_kind) {
    m.Counter("pollen_node_crashes_total", "New failures found in this run, by kind.", D(n),
              {{"kind", kind}});
  }
  m.Gauge("pollen_node_rss_bytes", "Resident memory of the coordinator and its workers.",
          D(s.rss_bytes));
  if (s.has_cluster) {
    const broker::ClientStats& c = s.broker_client;
    m.Gauge("pollen_node_broker_connected", "1 while connected to the broker.",
            c.connected ? 1 : 0);
    const char* msgs = "Cluster messages exchanged with the broker, by direction.";
    m.Counter("pollen_node_cluster_messages_total", msgs, D(c.sent), {{"direction", "sent"}});
    m.Counter("pollen_node_cluster_messages_total", msgs, D(c.received),
              {{"direction", "received"}});
    for (size_t r = 0; r < broker::kNumDropReasons; ++r) {
      m.Counter("pollen_node_cluster_dropped_total", "Cluster messages dropped, by reason.",
                D(c.drops.by_reason[r]),
                {{"reason", broker::DropReasonName(static_cast<broker::DropReason>(r))}});
    }
    m.Counter("pollen_node_cluster_lost_total",
              "Deliveries the broker numbered for this node that never came.", D(c.lost));
    m.Counter("pollen_node_broker_reconnects_total", "Successful handshakes with the broker.",
              D(c.connects));
    const ClusterCounters& k = s.cluster;
    const char* in = "Inputs exchanged with other nodes, by what became of them.";
    m.Counter("pollen_node_cluster_inputs_total", in, D(k.inputs_published),
              {{"event", "published"}});
    m.Counter("pollen_node_cluster_inputs_total", in, D(k.inputs_kept), {{"event", "kept"}});
    m.Counter("pollen_node_cluster_inputs_total", in, D(k.inputs_held), {{"event", "held"}});
    m.Counter("pollen_node_cluster_inputs_total", in, D(k.inputs_executed),
              {{"event", "executed"}});
    m.Counter("pollen_node_cluster_inputs_total", in, D(k.backlog_drops),
              {{"event", "backlog_dropped"}});
  }
  if (s.has_controller) {
    for (ControllerState state : kStates) {
      m.Gauge("pollen_node_controller_state", "1 for the state of the link to the controller.",
              s.controller_state == state ? 1 : 0, {{"state", StateName(state)}});
    }
    const ControllerSessionCounters& c = s.controller;
    m.Counter("pollen_node_controller_inputs_sent_total", "Inputs the controller acknowledged.",
              D(c.inputs_sent));
    m.Counter("pollen_node_controller_crashes_sent_total", "Crashes the controller acknowledged.",
              D(c.crashes_sent));
    m.Counter("pollen_node_controller_dropped_total",
              "Inputs and crashes dropped on the way to the controller (queue full).",
              D(c.inputs_dropped + c.crashes_dropped));
    m.Counter("pollen_node_controller_fetched_total",
              "Inputs pulled from the controller, by source: the merged corpus (when the node "
              "joins) and pushed inputs.",
              D(c.fetched), {{"source", "merged"}});
    m.Counter("pollen_node_controller_fetched_total",
              "Inputs pulled from the controller, by source: the merged corpus (when the node "
              "joins) and pushed inputs.",
              D(c.pushed), {{"source", "pushed"}});
    m.Counter("pollen_node_controller_failed_requests_total",
              "Requests to the controller that got no answer in time.", D(c.failed_requests));
  }
}

}  // namespace pollen::node
