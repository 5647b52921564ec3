// The node's side of the controller protocol (docs/controller.md, "Nodes"), on a thread of
// its own so that the coordinator's thread never waits for the network: it registers the
// node, sends a heartbeat every few seconds, and delivers the inputs and crashes that the
// coordinator's side (node/controller_link.h) queues.
//
// Delivery is at least once, in order, within a bound. Inputs and crashes wait in bounded
// queues and leave them only when the controller acknowledged them (an inputs or crash
// reply). What a failed request carried (no answer in time, no connection, a refused key, a
// controller that no longer knows the node) is sent again once the node is registered again.
// What does not fit a queue is dropped and counted (the link sends the corpus again when
// room comes back). The controller dedups inputs by hash, so an input sent twice costs only
// bandwidth; a crash whose acknowledgement was lost counts twice there.
//
// Streams (docs/controller.md, "Joining fetch and pushed inputs"), when options.streams is
// set: the session's thread pulls the merged corpus of this node's build after the first
// heartbeat of a registration, and the inputs pushed since whenever a heartbeat reply says
// there are more; node/corpus_pull.h holds the queue and the cursors. A pull runs after
// what waits to be sent (heartbeats wait for it); the coordinator's side takes the inputs
// with TakeFetched.
//
// Connection: the first registration is tried at Start; while the controller does not
// answer, registration is tried again every second (each try waiting 1 s for a connection),
// and the node fuzzes on, which the session says once per outage. A request that fails
// after a registration marks the controller unreachable: the next request is a
// registration, then the heartbeat, then what waited. A refused key is logged as an error
// and tried again with a new connection after 5 s, doubling to 60 s (libzmq does not retry a
// refused handshake). A registration the controller rejects for good (an invalid name,
// a campaign of another target) stops the session: logged, everything dropped and counted.
//
// Thread safety: every public method may be called from any thread.
#ifndef POLLEN_NODE_CONTROLLER_SESSION_H_
#define POLLEN_NODE_CONTROLLER_SESSION_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_client.h"
#include "controller/client/controller_message.h"
#include "controller/client/stream_client.h"
#include "node/corpus_pull.h"

namespace pollen::node {

struct ControllerSessionOptions {
  // This node as it registers: id, campaign, target, build id, options text, host, workers.
  controller::RegisterRequest registration;
  std::string endpoint;  // the controller's, for messages
  uint64_t heartbeat_interval_ms = 2000;
  // An input waits at most this long for others to join its batch.
  uint64_t batch_interval_ms = 1000;
  size_t max_batch_entries = 4096;  // at most limits.max_entries
  // The queues' bounds, counting what is being sent.
  size_t max_queued_inputs = 16384;
  size_t max_queued_bytes = 64 << 20;
  size_t max_queued_crashes = 256;
  uint64_t request_timeout_ms = 3000;   // a request once registered
  uint64_t register_timeout_ms = 1000;  // a registration try (see "Connection")
  uint64_t retry_interval_ms = 1000;    // after a failed request
  uint64_t refused_retry_ms = 5000;     // after a refused key; doubles up to 60 s
  controller::ControllerLimits limits;  // the client's
  // The streams' client options (the same endpoint and keys as the factory's); unset: no
  // joining fetch and no pushed inputs.
  std::optional<controller::ControllerClientOptions> streams;
  size_t max_fetched_inputs = 4096;  // pulled, not yet taken: a pull pauses beyond
  size_t max_fetched_bytes = 64 << 20;
  int stream_connect_timeout_ms = 10000;
  int stream_idle_timeout_ms = 30000;
  uint64_t pull_retry_ms = 10000;  // after a failed pull
  // The node follows the campaign's builds (`pollen node --follow-builds`): a heartbeat
  // reply naming another assigned build than this node's asks for a stop, as a stopped
  // campaign does, and build_changed() says why.
  bool follow_builds = false;
};

// Makes a client for the session's thread (called again after a refused key).
using ControllerClientFactory =
    std::function<Result<std::unique_ptr<controller::ControllerClient>>()>;

enum class ControllerState {
  kConnecting,   // no registration answered yet
  kRegistered,   // the last request was answered
  kUnreachable,  // the last request got no answer: fuzzing on, trying again
  kRefused,      // the controller refused this node's key
  kRejected,     // the controller refused to register this node: the session has ended
};

struct ControllerSessionCounters {
  uint64_t registrations = 0;      // answered
  uint64_t heartbeats = 0;         // answered
  uint64_t inputs_sent = 0;        // acknowledged; of which:
  uint64_t inputs_added = 0;       //   joined the merged corpus
  uint64_t inputs_duplicate = 0;   //   were there already
  uint64_t inputs_not_needed = 0;  //   added no feature to it
  uint64_t crashes_sent = 0;       // acknowledged
  uint64_t inputs_dropped = 0;     // the queue was full
  uint64_t crashes_dropped = 0;    // the queue was full, or the controller refused its stream
  uint64_t crashes_streamed = 0;   // of crashes_sent: too large for a message (pushCrash)
  uint64_t too_large = 0;          // over the message limit and not streamed: never sent
  uint64_t rejected = 0;           // inputs and crashes refused by an error reply (logged)
  uint64_t failed_requests = 0;    // no answer in time, no connection, a refused key
  uint64_t refusals = 0;           // of this node's key
  uint64_t inputs_queued = 0;      // now, sent or not
  uint64_t crashes_queued = 0;     // now, sent or not
  uint64_t fetched = 0;            // records of the merged corpus pulled (the joining fetch)
  uint64_t pushed = 0;             // pushed inputs pulled after the join
  uint64_t failed_pulls = 0;       // pulls ended by an error (logged), tried again
  uint64_t bad_records = 0;        // pulled records that could not be decoded: skipped
  bool joined = false;             // the joining fetch completed
};

class ControllerSession {
 public:
  ControllerSession(ControllerSessionOptions options, ControllerClientFactory connect);
  ~ControllerSession();  // Stop(0) if still running

  // Starts the thread, which registers at once. Call once.
  void Start();

  // Waits until the controller answered a registration (true), whatever it said, or
  // timeout_ms passed (false). After true, stop_requested() tells whether the campaign
  // is stopped.
  bool WaitForFirstAnswer(uint64_t timeout_ms);

  enum class Queued { kQueued, kFull, kTooLarge, kRejected };
  // Queues an input for the next batch. kFull (counted as a drop unless !count_if_full: the
  // caller tries again), kTooLarge (it could never fit in a message) and kRejected (the
  // session has ended) are counted.
  Queued QueueInput(controller::InputEntry entry, bool count_if_full = true);
  // Queues a crash (its node_id is set here); false when dropped (counted). A report over
  // limits.max_report_bytes is cut to it. One whose reproducer does not fit in a message is
  // sent in a stream (pushCrash) when streams are on, one such crash queued at a time, up to
  // the stream's record limit; else it is dropped as too_large.
  bool QueueCrash(controller::CrashRequest crash);
  // Inputs that would be queued now without a drop.
  size_t InputRoom() const;

  // The figures for the next heartbeats; rss_bytes is measured by the session
  // (node/process_rss.h) and need not be set.
  void SetStats(const controller::NodeStats& stats);

  // The controller said the campaign is stopped (at registration or in a heartbeat reply).
  bool stop_requested() const { return stop_requested_.load(std::memory_order_acquire); }
  // With follow_builds: the controller assigned another build to the campaign (the stop
  // asked for is a move to it, not a stopped campaign).
  bool build_changed() const { return build_changed_.load(std::memory_order_acquire); }
  // Signatures the controller asked this node to minimize and report again, not yet taken.
  std::vector<std::string> TakeMinimizeRequests();
  // Whether the node registered again after the controller had forgotten it (its registry
  // was reset): everything should be sent again. True once per such event.
  bool TakeResyncRequest();

  // Up to `max` pulled inputs, oldest first, taken off the queue.
  std::vector<FetchedInput> TakeFetched(size_t max);

  ControllerState state() const;
  ControllerSessionCounters counters() const;
  const ControllerSessionOptions& options() const { return options_; }

  // Ends the thread. While registered and something waits to be sent, tries for up to
  // flush_ms to deliver it first. What is left is counted in counters().*_queued. With a
  // flush_ms, a last heartbeat then says the node is leaving (within kLeavingMs more).
  void Stop(uint64_t flush_ms);
  static constexpr uint64_t kLeavingMs = 500;

 private:
  enum class Action { kNone, kRegister, kHeartbeat, kCrash, kInputs, kPullEntries, kPullPushed };
  // Room kept in a message for its header, the node id and the lists' framing.
  static constexpr size_t kMessageSlack = 64 * 1024;
  // After the controller's storage failed: a little longer than an ordinary retry.
  static constexpr uint64_t kStorageRetryFactor = 5;

  void Run();
  // What to do now, or kNone with *wake_ms set to when to look again. Holds mu_.
  Action NextActionLocked(uint64_t now, uint64_t* wake_ms) const;
  void Do(Action action);
  void Register();
  // `leaving`: the last one, sent by a Stop with a flush time (the controller then shows
  // the node as left, not lost).
  void Heartbeat(bool leaving = false);
  void SendCrash();
  // A crash too large for a message: pushCrash over a stream (holds the thread meanwhile).
  void StreamCrash(controller::CrashRequest crash);
  bool FitsInMessage(const controller::CrashRequest& crash) const;
  // The options of this session's streams: its timeouts, stopped by Stop().
  controller::StreamClientOptions StreamOptions();
  void SendInputs();
  // Sends `request`; on a transport failure handles it (state, log, retry time, refused
  // key) and returns nullopt.
  std::optional<controller::Reply> Send(const controller::Request& request, uint64_t timeout_ms);
  // The controller no longer knows this node: register again, then send everything again.
  void Forgotten();
  // An error reply to a request that carried `items` inputs or crashes; true when they are
  // to be sent again (the node is unknown, the controller's storage failed).
  bool KeepAfterError(const controller::ErrorReply& error, const char* what, size_t items);
  void Reject(const std::string& message);
  bool HasWorkLocked() const;

  const ControllerSessionOptions options_;
  const ControllerClientFactory connect_;
  std::thread thread_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> build_changed_{false};

  mutable std::mutex mu_;
  std::condition_variable wake_;      // the thread: work came, or Stop
  std::condition_variable answered_;  // WaitForFirstAnswer
  std::deque<controller::InputEntry> inputs_;
  std::deque<controller::CrashRequest> crashes_;  // the front one is being sent
  size_t inflight_inputs_ = 0;                    // counts of inflight_ (the thread's)
  size_t queued_bytes_ = 0;                       // inputs_ and inflight_
  uint64_t oldest_input_ms_ = 0;                  // when inputs_.front() was queued
  controller::NodeStats stats_;
  std::vector<std::string> minimize_;
  bool resync_ = false;
  bool first_answer_ = false;
  bool registered_ = false;
  ControllerState state_ = ControllerState::kConnecting;
  ControllerSessionCounters counters_;
  bool stopping_ = false;
  bool leave_ = false;  // Stop was given a flush time: say goodbye
  uint64_t stop_deadline_ms_ = 0;
  uint64_t retry_at_ms_ = 0;
  uint64_t next_heartbeat_ms_ = 0;
  // A streamed crash that failed waits until then (heartbeats go on meanwhile); after
  // kCrashStreamAttempts failures in a row it is dropped (counted in crashes_dropped).
  uint64_t crash_retry_at_ms_ = 0;
  int crash_stream_failures_ = 0;

  // The thread's own.
  std::unique_ptr<controller::ControllerClient> client_;
  std::vector<controller::InputEntry> inflight_;  // sent, not acknowledged
  uint64_t refused_backoff_ms_ = 0;
  uint64_t outage_start_ms_ = 0;
  bool outage_logged_ = false;
  bool ever_registered_ = false;
  std::string last_error_logged_;

  // Streams on: the pulled inputs and their cursors (its own lock; taken after mu_).
  const std::unique_ptr<CorpusPull> pull_;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_CONTROLLER_SESSION_H_
