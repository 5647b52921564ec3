#include "controller/push_sink.h"

#include <algorithm>
#include <utility>

namespace pollen::controller {
namespace {

constexpr uint64_t kCursorEveryRecords = 64;

std::string CursorKey(const std::string& campaign, const std::string& push_id) {
  return "u/" + campaign + "/" + push_id;  // both safe names: no '/'
}

}  // namespace

Result<std::string> PushSink::ReadCursor(const RegistryDb& db, const std::string& campaign,
                                         const std::string& push_id) {
  Result<std::optional<std::string>> value = db.Get(CursorKey(campaign, push_id));
  if (!value.ok()) return value.status();
  return value->value_or("");
}

PushSink::PushSink(PushedCorpus* pushed, RegistryDb* db, std::string campaign, std::string push_id,
                   std::function<int64_t()> now_unix_ms)
    : pushed_(pushed),
      db_(db),
      campaign_(std::move(campaign)),
      push_id_(std::move(push_id)),
      key_(CursorKey(campaign_, push_id_)),
      origin_("push:" + push_id_),
      now_unix_ms_(std::move(now_unix_ms)) {}

Status PushSink::Commit(std::string_view name, std::string_view data) {
  if (Status s = CheckLoss(); !s.ok()) return s;
  Result<PushedCorpus::Added> added = pushed_->Add(data, origin_, now_unix_ms_());
  if (!added.ok()) {
    (void)CheckLoss();  // the storage error is the one to report
    return added.status();
  }
  (added->added ? added_ : duplicates_)++;
  needs_seq_ = std::max(needs_seq_, added->seq);
  last_name_.assign(name);
  if ((added_ + duplicates_) % kCursorEveryRecords != 0) return Status::Ok();
  candidates_.push_back({needs_seq_, last_name_});
  return SaveDurableCursor();
}

Status PushSink::SaveDurableCursor() {
  const uint64_t durable = pushed_->durable_seq();
  std::string latest;
  while (!candidates_.empty() && candidates_.front().needs_seq <= durable) {
    latest = std::move(candidates_.front().name);
    candidates_.pop_front();
  }
  return SaveCursor(latest);
}

Status PushSink::CheckLoss() {
  const uint64_t loss = pushed_->LossSince(&failures_seen_);
  if (!lost_ && needs_seq_ > loss) {
    lost_ = true;
    // Candidates up to `loss` were durable then and still are; the entries after it are gone
    // (their numbers may have been given again since).
    std::string latest;
    while (!candidates_.empty() && candidates_.front().needs_seq <= loss) {
      latest = std::move(candidates_.front().name);
      candidates_.pop_front();
    }
    candidates_.clear();
    if (Status s = SaveCursor(latest); !s.ok()) return s;
  }
  if (!lost_) return Status::Ok();
  return Status::Error("pushed corpus of campaign " + campaign_ +
                       ": a write failed and dropped records of this push after " +
                       (saved_.empty() ? std::string("its start") : "'" + saved_ + "'") +
                       " (see the controller's log); push again to send them");
}

Status PushSink::SaveCursor(const std::string& name) {
  if (name.empty() || name == saved_) return Status::Ok();
  if (Status s = db_->Put(key_, name); !s.ok()) return s;
  saved_ = name;
  return Status::Ok();
}

Status PushSink::Finish(bool complete) {
  if (Status s = CheckLoss(); !s.ok()) return s;
  if (Status s = pushed_->MakeDurable(); !s.ok()) {
    (void)CheckLoss();  // the storage error is the one to report
    return s;
  }
  // MakeDurable may have found a background ingestion that failed, and dropped entries.
  if (Status s = CheckLoss(); !s.ok()) return s;
  candidates_.clear();
  if (!complete) return SaveCursor(last_name_);
  Status s = db_->Delete(key_);
  if (s.ok()) saved_.clear();
  return s;
}

std::string PushSink::Summary() const {
  return std::to_string(added_) + " new, " + std::to_string(duplicates_) + " already pushed";
}

}  // namespace pollen::controller
