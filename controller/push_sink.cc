#include "controller/push_sink.h"

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
  Result<bool> added = pushed_->Add(data, origin_, now_unix_ms_());
  if (!added.ok()) return added.status();
  (*added ? added_ : duplicates_)++;
  last_name_.assign(name);
  if ((added_ + duplicates_) % kCursorEveryRecords == 0) return SaveCursor();
  return Status::Ok();
}

Status PushSink::SaveCursor() {
  if (last_name_.empty() || last_name_ == saved_) return Status::Ok();
  if (Status s = db_->Put(key_, last_name_); !s.ok()) return s;
  saved_ = last_name_;
  return Status::Ok();
}

Status PushSink::Finish(bool complete) {
  if (!complete) return SaveCursor();
  Status s = db_->Delete(key_);
  if (s.ok()) saved_.clear();
  return s;
}

}  // namespace pollen::controller
