// The controller link of `pollen node`: joins the local coordinator to the cluster's
// controller (docs/controller.md, "Nodes"), as node/cluster_link.h joins it to the broker.
//
// It is a coordinator observer (node/coordinator_observer.h). The network is a
// ControllerSession's business (node/controller_session.h: its own thread, bounded queues),
// so that nothing here waits for it: on the coordinator's thread the link only queues and
// reads flags. What it does:
//  - at the start, the session registers the node (Start waits a little for the answer, so
//    that a node of a stopped campaign exits before it fuzzes); every entry of the restored
//    corpus found here is queued, paced by the queue's room;
//  - every entry that joins the corpus and was found here (a find or a start-up input, not
//    one received from another node through the broker: its origin sends it) is queued for
//    the next newInputs batch, with its features;
//  - every new failure is queued as a crash report (minimized unless the run was being
//    interrupted);
//  - the heartbeat figures (executions, exec/s, edges, features, corpus, crashes) are
//    refreshed twice a second for the session's heartbeats;
//  - the controller's `stop` becomes StopRequested(): the coordinator ends the run as on
//    Ctrl-C, with exit code 0;
//  - a `minimize` request for a crash this node holds (found in this run, or in its store
//    with a count above 0) runs the crash minimizer on the coordinator's thread, as a new
//    failure's minimization does, one per turn, and the result is reported again with
//    minimized set;
//  - the inputs the session pulls from the controller (the merged corpus when the node
//    joins, pushed inputs as heartbeats announce them) are handed to the feed, a bounded
//    number per turn: an entry with features measured on this build through OfferEntry
//    (origin "controller"), one without (a pushed input) through ExecuteInput while fewer
//    than max_pending_executions wait (the rest waits, up to max_waiting_runs here, then in
//    the session's queue, whose pull pauses); an entry the corpus holds is skipped. Entries
//    from the controller are not sent back to it;
//  - inputs dropped from a full queue, or a controller that forgot the node, make the link
//    queue the corpus's own entries again once there is room (the controller dedups).
#ifndef POLLEN_NODE_CONTROLLER_LINK_H_
#define POLLEN_NODE_CONTROLLER_LINK_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "node/controller_session.h"
#include "node/coordinator_observer.h"
#include "node/crash_minimizer.h"
#include "storage/corpus_store.h"

namespace pollen::node {

struct ControllerLinkOptions {
  std::string campaign;              // for messages
  uint64_t stats_interval_ms = 500;  // how often the heartbeat figures are refreshed
  // While the corpus is being queued again: entries looked at per turn, and the share of
  // the queue's room kept for new finds (1/N).
  size_t resync_per_turn = 512;
  size_t resync_reserve_divisor = 4;
  // At the stop: how long the session may take to deliver what waits.
  uint64_t stop_flush_ms = 2000;
  // Crashes of this run kept in memory to answer minimize requests (the store has the rest).
  size_t max_held_crashes = 256;
  // Inputs pulled from the controller: handed to the feed per turn, the most that may wait
  // to run in the feed (as ClusterLinkOptions::max_pending_executions), and here.
  size_t fetched_per_turn = 256;
  size_t max_pending_executions = 4096;
  size_t max_waiting_runs = 4096;
};

// The origin of the corpus entries that came from the controller.
inline constexpr char kControllerOrigin[] = "controller";

// Minimizes a failing input; `pollen node` binds node/crash_minimizer.h's MinimizeFailure to
// the coordinator's worker launcher and --minimize-time.
using CrashMinimizerFn =
    std::function<CrashMinimizeResult(const std::vector<uint8_t>& input, const Failure& failure)>;

// What the link counted beyond the session's counters.
struct ControllerLinkCounters {
  uint64_t inputs_queued = 0;      // found here, queued (live and again)
  uint64_t inputs_from_peers = 0;  // not sent: their origin node sends them
  uint64_t resyncs = 0;            // times the corpus was queued again
  uint64_t crashes_queued = 0;
  uint64_t minimized = 0;  // crashes minimized at the controller's request
  // Inputs pulled from the controller (the merged corpus and pushed inputs):
  uint64_t fetched_offered = 0;   // with features: offered to the corpus
  uint64_t fetched_executed = 0;  // without: queued to run
  uint64_t fetched_held = 0;      // already in the corpus: skipped
  uint64_t from_controller = 0;   // corpus entries from the controller: not sent back
};

class ControllerLink : public CoordinatorObserver {
 public:
  // `session` is not started yet. `minimize` may be empty (minimize requests are then
  // ignored). `store` (may be null) holds the crashes of earlier runs; it must outlive the
  // link.
  ControllerLink(ControllerLinkOptions options, std::unique_ptr<ControllerSession> session,
                 CrashMinimizerFn minimize, storage::CorpusStore* store);
  ~ControllerLink() override;

  // Starts the session and waits up to wait_ms for the controller to answer the
  // registration. False when it did not (the session logged it; the node fuzzes on and
  // the session keeps trying). Afterwards StopRequested() tells whether the campaign is
  // stopped.
  bool Start(uint64_t wait_ms);

  void OnStart(CorpusFeed& feed) override;
  void OnTurn(CorpusFeed& feed) override;
  void OnEntryAdded(const CorpusEntry& entry) override;
  void OnNewFailure(const Failure& failure, const std::vector<uint8_t>& input) override;
  std::string StatusFields() const override;
  void OnStop(CorpusFeed& feed) override;
  bool StopRequested() const override;

  const ControllerLinkCounters& counters() const { return counters_; }
  const ControllerSession& session() const { return *session_; }

 private:
  struct HeldCrash {
    std::string kind;
    std::vector<uint8_t> input;
    std::string report;
  };

  // Queues one corpus entry found here; false when the queue is full (a drop, counted, for
  // a live find; not for the corpus sent again, which tries the entry again next turn).
  bool QueueEntry(const CorpusEntry& entry, bool live);
  // Queues the corpus's own entries [0, size) again, paced by ContinueResync.
  void StartResync(const CorpusFeed& feed);
  void ContinueResync(const CorpusFeed& feed);
  void UpdateStats(const CorpusFeed& feed, uint64_t now_ms);
  // Hands the inputs pulled from the controller to the feed, within the turn's budget.
  void DrainFetched(CorpusFeed& feed);
  // Minimizes the crash with this signature if this node holds it, and reports it again.
  void Minimize(const std::string& signature);

  ControllerLinkOptions options_;
  std::unique_ptr<ControllerSession> session_;
  CrashMinimizerFn minimize_;
  storage::CorpusStore* store_;
  ControllerLinkCounters counters_;

  // The corpus being queued again: the next index and the end (the size when it started).
  size_t resync_next_ = 0;
  size_t resync_end_ = 0;
  uint64_t drops_since_resync_ = 0;  // inputs dropped from a full queue since then

  std::unordered_set<std::string> crashes_reported_;  // signatures
  std::map<std::string, HeldCrash> held_crashes_;     // this run's, for minimize requests
  std::deque<std::string> to_minimize_;
  std::deque<FetchedInput> fetched_;         // taken from the session, not yet looked at
  std::deque<std::vector<uint8_t>> to_run_;  // waiting for room in the feed's executions

  uint64_t next_stats_ms_ = 0;
  uint64_t rate_window_ms_ = 0;
  uint64_t rate_window_executions_ = 0;
  uint64_t execs_per_second_ = 0;
  bool crash_drop_warned_ = false;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_CONTROLLER_LINK_H_
