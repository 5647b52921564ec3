// Crash triage for one campaign build: every distinct crash once, by signature, with how
// many reports it had, the smallest reproducer, and whether that one is minimized.
//
// The crash itself lives in the campaign store's crash table (storage/: signature -> kind,
// smallest input, its report, count, first and last seen; CorpusStore::PutCrash keeps the
// smaller input). What that table has no field for — whether a minimized reproducer was
// reported, and which nodes reported the crash — is a CrashState in the registry under
// `key_prefix` + signature. Both are written before Report returns (the crash first: a kill
// between the two writes loses only the state, and the controller then asks again for a
// minimization nobody needed).
//
// Minimization requests: a crash without a minimized reproducer is asked of one node that
// reported it (the first one that heartbeats), piggybacked on its heartbeat reply; asked
// again, of any reporter, when no minimized report came within `retry_ms`. Requests are
// remembered in memory only: after a restart they go out again.
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_CRASH_TRIAGE_H_
#define POLLEN_CONTROLLER_CRASH_TRIAGE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_message.h"
#include "controller/registry_db.h"
#include "controller/registry_records.h"
#include "storage/corpus_store.h"

namespace pollen::controller {

class CrashTriage {
 public:
  // Loads the crash states under `key_prefix` and the signatures of `store`'s crash table
  // (a crash without a state is one whose state write was lost: not minimized, reporters
  // unknown). Both must outlive the triage. Errors: unreadable records.
  static Result<std::unique_ptr<CrashTriage>> Load(storage::CorpusStore* store, RegistryDb* db,
                                                   std::string key_prefix,
                                                   uint64_t retry_ms = 10 * 60 * 1000);

  // Records one report of a crash by `request.node_id`: count + 1, the smaller reproducer
  // kept, first/last seen, the node among the reporters. A minimized report from a node
  // among the reporters (the answer to a minimize request) is no new occurrence: the count
  // and the times stay, only a smaller reproducer replaces the stored one. Errors: storage.
  Result<CrashReply> Report(const CrashRequest& request, int64_t now_unix_ms);

  // Crashes with a signature greater than `after`, in signature order, as many as fit in
  // about `max_bytes` of reply (truncated set when some were left).
  Result<CrashListReply> List(std::string_view after, size_t max_bytes) const;

  // One crash with its reproducer and report; nullopt if unknown.
  Result<std::optional<CrashDetailReply>> Get(std::string_view signature) const;

  // Up to `max` signatures that `node_id` reported and that still lack a minimized
  // reproducer, not asked of anybody within retry_ms; marks them asked. now_ms: a
  // monotonic clock.
  std::vector<std::string> MinimizeWanted(std::string_view node_id, uint64_t now_ms, size_t max);

  // Distinct crashes.
  size_t size() const { return states_.size(); }

 private:
  struct Known {
    CrashState state;
    uint64_t asked_ms = 0;  // last minimization request, monotonic; 0: never
  };
  CrashTriage(storage::CorpusStore* store, RegistryDb* db, std::string key_prefix,
              uint64_t retry_ms)
      : store_(store), db_(db), key_prefix_(std::move(key_prefix)), retry_ms_(retry_ms) {}
  CrashSummary Summarize(std::string_view signature, const storage::CrashRecord& r) const;

  storage::CorpusStore* store_;
  RegistryDb* db_;
  const std::string key_prefix_;
  const uint64_t retry_ms_;
  std::map<std::string, Known, std::less<>> states_;
  std::set<std::string, std::less<>> unminimized_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CRASH_TRIAGE_H_
