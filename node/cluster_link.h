// The cluster link of `pollen node`: joins the local coordinator to the other nodes of its
// campaign through the broker (docs/cluster.md, "The node").
//
// It is the coordinator's observer (node/coordinator_observer.h) and owns the broker client.
// What it sends:
//  - an entry found here (or a start-up input) when it has a feature the cluster is not
//    known to have: the union of the features this node received (inputs and coverage
//    deltas) and sent;
//  - every few seconds, a coverage delta: the features found here since the last one (the
//    first one carries the coverage of the restored corpus);
//  - the first failure of each signature, with its reproducer;
//  - digest pages of the hashes of the entries found here: periodically, when it first
//    connects, and to each node (session) it hears from for the first time: a newcomer or
//    a restarted node catches up at once instead of a cycle later; and the inputs other
//    nodes ask for after a digest.
// What it does with what it receives:
//  - an input the corpus holds is dropped; one with features, no longer than max_len, and in
//    the coverage map's range (same campaign, so the same build) is offered to the corpus
//    without running; any other runs once in a worker. Either way it joins the corpus, with
//    origin "peer:NODE", only if it adds coverage here;
//  - a digest page: the hashes neither seen nor held are asked of its origin;
//  - a crash: logged and recorded in the store's crash table (count 0: not hit here).
// When the broker is down or refuses this node's key, the node fuzzes on alone and says so.
#ifndef POLLEN_NODE_CLUSTER_LINK_H_
#define POLLEN_NODE_CLUSTER_LINK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "broker/client/broker_client.h"
#include "engine/coverage.h"
#include "node/cluster_counters.h"
#include "node/coordinator_observer.h"
#include "node/digest_cycle.h"
#include "storage/corpus_store.h"

namespace pollen::node {

// The origin recorded with the entries received from node N: "peer:N".
inline constexpr char kPeerOriginPrefix[] = "peer:";

struct ClusterLinkOptions {
  // For messages: the broker's endpoint, the campaign's name, this node's id.
  std::string broker;
  std::string campaign;
  std::string node_id;
  uint64_t delta_interval_ms = 3000;
  uint64_t digest_interval_ms = 10000;
  // With no connection this long after the start, the node says it is fuzzing alone.
  uint64_t connect_warning_ms = 10000;
  // At the stop, how long to wait for a connection that is not up yet, so that what was
  // queued (a crash report) is delivered.
  uint64_t stop_connect_wait_ms = 1000;
  // Received inputs waiting to run, beyond which more are dropped (counted).
  size_t max_pending_executions = 4096;
  size_t digest_page_size = 4096;  // at most limits.max_hashes
  broker::MessageLimits limits;    // as the client's
};

class ClusterLink : public CoordinatorObserver {
 public:
  // `client` may still be connecting. `store` (may be null) receives the crashes other nodes
  // report; it must outlive the link.
  ClusterLink(const ClusterLinkOptions& options, std::unique_ptr<broker::BrokerClient> client,
              storage::CorpusStore* store);
  ~ClusterLink() override;

  void OnStart(CorpusFeed& feed) override;
  void OnTurn(CorpusFeed& feed) override;
  void OnEntryAdded(const CorpusEntry& entry) override;
  void OnNewFailure(const Failure& failure, const std::vector<uint8_t>& input) override;
  std::string StatusFields() const override;
  void OnStop(CorpusFeed& feed) override;

  const ClusterCounters& counters() const { return counters_; }
  broker::ClientStats client_stats() const { return client_->stats(); }

 private:
  void Receive(broker::ClusterMessage& message, CorpusFeed& feed);
  void ReceiveInput(const std::string& origin, broker::NewInput& input, CorpusFeed& feed);
  void ReceiveDigest(const std::string& origin, const broker::CorpusDigest& digest,
                     const CorpusFeed& feed);
  void AnswerRequest(const std::string& origin, const broker::MissingRequest& request,
                     const CorpusFeed& feed);
  void ReceiveCrash(const std::string& origin, const broker::CrashReport& crash);
  // Whether every feature is inside the coverage map (so it may be trusted and counted).
  bool InRange(const std::vector<uint32_t>& features) const;
  void SendDelta(const CorpusFeed& feed);
  // Sends the next page of own hashes to the campaign (to_node empty) or to one node; an
  // empty page only when `even_if_empty` (a newcomer's hello).
  void SendDigestPage(const std::string& to_node, bool even_if_empty = false);
  // Publishes, counting a message over the size limit instead of failing.
  bool Publish(broker::MessageBody body, const std::string& to_node = "");
  void FollowConnection(uint64_t now_ms);
  void UpdateNodeStats(const CorpusFeed& feed, uint64_t now_ms);

  ClusterLinkOptions options_;
  std::unique_ptr<broker::BrokerClient> client_;
  storage::CorpusStore* store_;
  ClusterCounters counters_;
  // Features the cluster is known to have: received in inputs and deltas, or sent.
  std::unique_ptr<engine::CoverageMap> cluster_known_;
  // Features found here that went out in a delta, and those waiting for the next one.
  std::unique_ptr<engine::CoverageMap> announced_;
  std::vector<uint32_t> pending_delta_;
  DigestCycle own_hashes_;
  std::unordered_set<std::string> peers_seen_;        // node id + session, heard from
  std::unordered_set<std::string> crash_signatures_;  // received or sent
  std::vector<broker::ClusterMessage> inbox_;
  uint64_t start_ms_ = 0;
  uint64_t next_delta_ms_ = 0;
  uint64_t next_digest_ms_ = 0;
  uint64_t next_stats_ms_ = 0;
  uint64_t last_executions_ = 0;
  uint64_t last_stats_ms_ = 0;
  // Connection events already reported (ClientStats counts them all).
  uint64_t connects_seen_ = 0;
  uint64_t disconnects_seen_ = 0;
  uint64_t auth_failures_seen_ = 0;
  bool refused_ = false;  // the broker refused our key and no connection succeeded since
  bool alone_warned_ = false;
  bool too_large_warned_ = false;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_CLUSTER_LINK_H_
