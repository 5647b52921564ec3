// The inputs a node pulls from the controller (docs/controller.md, "Joining fetch and pushed
// inputs"): once after registering, the merged corpus of its build (entries/<campaign>/<build>,
// pushed inputs included); afterwards, whenever a heartbeat reply's pushed_seq passes the
// node's cursor, the inputs pushed since (pushed/<campaign>).
//
// The controller session (node/controller_session.h) decides when its thread may pull (after
// what waits to be sent) and runs the pull here; the coordinator's side takes the inputs with
// Take. Pulled inputs wait in a bounded queue: a full queue pauses the pull, which resumes
// after its last record once the queue is half empty. A failed pull is tried again after
// retry_ms from where it stopped. The cursors live in memory: a restarted node fetches
// everything again (its corpus skips what it holds).
//
// Thread safety: every method may be called from any thread. No method calls out while
// holding the pull's lock, so a caller may hold its own lock around Next and counters.
#ifndef POLLEN_NODE_CORPUS_PULL_H_
#define POLLEN_NODE_CORPUS_PULL_H_

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_client.h"
#include "controller/client/stream_client.h"

namespace pollen::node {

// An input pulled from the controller, for the coordinator.
struct FetchedInput {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> features;  // ascending, measured on this build; empty: run it
  bool pushed = false;             // from pushed/ (else the merged corpus at the join)
};

struct CorpusPullOptions {
  controller::ControllerClientOptions client;  // the streams' endpoint, keys and limits
  std::string campaign;
  std::string build_id;  // this node's: the merged corpus it joins
  size_t max_features = 0;
  size_t max_inputs = 4096;  // pulled, not yet taken: a pull pauses beyond
  size_t max_bytes = 64 << 20;
  uint64_t retry_ms = 10000;  // after a failed pull
};

struct CorpusPullCounters {
  uint64_t fetched = 0;       // records of the merged corpus pulled (the joining fetch)
  uint64_t pushed = 0;        // pushed inputs pulled after the join
  uint64_t failed_pulls = 0;  // pulls ended by an error (logged), tried again
  uint64_t bad_records = 0;   // pulled records that could not be decoded: skipped
  bool joined = false;        // the joining fetch completed
};

class CorpusPull {
 public:
  enum class Kind { kNone, kEntries, kPushed };

  explicit CorpusPull(CorpusPullOptions options);

  // A heartbeat reply said how many inputs were pushed to the campaign so far.
  void Announce(uint64_t pushed_seq);
  // The pull due at `now`, or kNone with *wake_ms lowered to when one will be due.
  Kind Next(uint64_t now, uint64_t* wake_ms) const;
  // Runs one pull from its cursor, on the caller's thread, until its end, an error or a
  // full queue; `stream` carries the timeouts and the stop (should_stop).
  void Run(Kind which, const controller::StreamClientOptions& stream);
  // Up to `max` pulled inputs, oldest first, taken off the queue. *resume: a paused pull may
  // go on now (wake the thread that runs the pulls).
  std::vector<FetchedInput> Take(size_t max, bool* resume);

  CorpusPullCounters counters() const;

 private:
  // Queues a pulled record and moves the cursor; an error when the queue is full (the pull
  // pauses).
  Status Commit(bool pushed, std::string_view name, std::string_view data);
  // A pull may start or resume: the queue is at most half full.
  bool RoomLocked() const;

  const CorpusPullOptions options_;
  mutable std::mutex mu_;
  std::deque<FetchedInput> queue_;
  size_t queued_bytes_ = 0;
  CorpusPullCounters counters_;
  bool join_pending_ = true;       // until the joining fetch completes
  bool heard_pushed_seq_ = false;  // a heartbeat reply said how many inputs were pushed
  std::string entries_cursor_;     // the last record of entries/ taken
  uint64_t pushed_announced_ = 0;  // pushed_seq of the last heartbeat reply
  uint64_t pushed_done_ = 0;       // pushed inputs up to this one are taken
  bool paused_ = false;            // the last pull stopped at a full queue
  uint64_t retry_at_ms_ = 0;
  std::string last_error_logged_;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_CORPUS_PULL_H_
