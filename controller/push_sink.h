// Where the records of a `pollen corpus push` go (docs/controller.md, "Pushed inputs"): the
// bytes of each into the campaign's pushed corpus (its name only orders the stream), and the
// push's resume cursor into the registry, under "u/<campaign>/<push id>".
//
// The cursor exists for an interrupted push only: it is the last name committed and
// durable, and deleted when the push completes. So a push repeated after an interruption
// sends only the rest, and one repeated after a complete push sends everything again (the
// controller then counts the inputs it has as duplicates): a directory may have changed
// below the cursor since. A cursor never names a record that was not kept: pushed entries
// reach disk when the pushed corpus ingests its open file (controller/pushed_corpus.h), so
// the sink notes a candidate every 64 records and writes the latest one whose entries are
// all durable; when the push ends it makes everything durable first (an ingestion), then
// deletes the cursor (complete) or writes the last name (interrupted). When a failed write
// drops entries of this push (its own, or another push's to the same campaign), the push
// fails, and its cursor stays at the last record known durable, so that the client's next
// push resends the rest.
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_PUSH_SINK_H_
#define POLLEN_CONTROLLER_PUSH_SINK_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "controller/push_target.h"
#include "controller/pushed_corpus.h"
#include "controller/registry_db.h"

namespace pollen::controller {

class PushSink : public PushTarget {
 public:
  // The cursor a push `push_id` to `campaign` resumes after: "" when none is kept. Errors:
  // the registry's.
  static Result<std::string> ReadCursor(const RegistryDb& db, const std::string& campaign,
                                        const std::string& push_id);

  // Everything must outlive the sink. now_unix_ms gives each entry's first-seen time.
  PushSink(PushedCorpus* pushed, RegistryDb* db, std::string campaign, std::string push_id,
           std::function<int64_t()> now_unix_ms);

  // Adds the record's bytes (origin "push:<push id>") unless their hash was pushed before.
  // Errors: storage.
  Status Commit(std::string_view name, std::string_view data) override;

  // The push ended. Every entry is made durable; then, complete, the cursor is deleted; else
  // the last name committed is kept (when there is one). Errors: storage (the cursor then
  // names the last record known durable), the registry's. Only after an ok Finish(true) may
  // the client be told that the push is complete.
  Status Finish(bool complete) override;

  std::string Summary() const override;

  uint64_t added() const { return added_; }
  uint64_t duplicates() const { return duplicates_; }

 private:
  struct Candidate {
    uint64_t needs_seq;  // every record up to `name` is in pushed entries <= this
    std::string name;
  };

  // Writes the latest candidate whose entries are durable, if newer than the saved cursor.
  Status SaveDurableCursor();
  // Ok unless a failed write dropped entries of this push (now or before); then the cursor
  // is the last record known durable, and the error says so.
  Status CheckLoss();
  Status SaveCursor(const std::string& name);

  PushedCorpus* pushed_;
  RegistryDb* db_;
  const std::string campaign_;
  const std::string push_id_;
  const std::string key_;
  const std::string origin_;
  std::function<int64_t()> now_unix_ms_;
  std::string last_name_;
  uint64_t needs_seq_ = 0;            // the highest pushed entry a record committed so far is in
  std::deque<Candidate> candidates_;  // oldest first
  std::string saved_;                 // the cursor the registry holds ("" for none)
  uint64_t added_ = 0;
  uint64_t duplicates_ = 0;
  uint64_t failures_seen_ = 0;  // see PushedCorpus::LossSince
  bool lost_ = false;           // records of this push were dropped
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_PUSH_SINK_H_
