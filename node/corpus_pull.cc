#include "node/corpus_pull.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "base/clock.h"
#include "base/digest.h"
#include "controller/client/record_names.h"

namespace pollen::node {
namespace {

// Hands each record a pull commits to a function (its queue).
class FunctionSink : public transfer::RecordSink {
 public:
  explicit FunctionSink(std::function<Status(std::string_view, std::string_view)> commit)
      : commit_(std::move(commit)) {}
  Status Commit(std::string_view name, std::string_view data) override {
    return commit_(name, data);
  }

 private:
  std::function<Status(std::string_view, std::string_view)> commit_;
};

// What a pulled input holds in memory while it waits.
size_t FetchedBytes(const FetchedInput& in) {
  return in.bytes.size() + 4 * in.features.size() + sizeof(FetchedInput);
}

}  // namespace

CorpusPull::CorpusPull(CorpusPullOptions options) : options_(std::move(options)) {}

void CorpusPull::Announce(uint64_t pushed_seq) {
  std::lock_guard lock(mu_);
  pushed_announced_ = pushed_seq;
  if (!heard_pushed_seq_) {
    heard_pushed_seq_ = true;
    // The joining fetch that follows has every input pushed so far (entries/ holds them).
    if (join_pending_) pushed_done_ = pushed_announced_;
  }
}

CorpusPull::Kind CorpusPull::Next(uint64_t now, uint64_t* wake_ms) const {
  std::lock_guard lock(mu_);
  if (!RoomLocked()) return Kind::kNone;
  const bool entries = join_pending_ && heard_pushed_seq_;
  const bool pushed = !join_pending_ && pushed_announced_ > pushed_done_;
  if (!entries && !pushed) return Kind::kNone;
  if (now >= retry_at_ms_) return entries ? Kind::kEntries : Kind::kPushed;
  *wake_ms = std::min(*wake_ms, retry_at_ms_);
  return Kind::kNone;
}

void CorpusPull::Run(Kind which, const controller::StreamClientOptions& stream) {
  if (which == Kind::kNone) return;
  const bool pushed = which == Kind::kPushed;
  const std::string resource =
      pushed ? controller::PushedResource(options_.campaign)
             : controller::EntriesResource(options_.campaign, options_.build_id);
  std::string after;
  uint64_t announced = 0;
  {
    std::lock_guard lock(mu_);
    after = pushed ? controller::PushedCursorAfter(pushed_done_) : entries_cursor_;
    announced = pushed_announced_;
    paused_ = false;
  }
  FunctionSink sink([this, pushed](std::string_view name, std::string_view data) {
    return Commit(pushed, name, data);
  });
  Result<transfer::TransferCounters> pulled =
      controller::PullStream(options_.client, resource, after, &sink, nullptr, stream);
  const bool stopping = stream.should_stop && stream.should_stop();
  std::lock_guard lock(mu_);
  if (pulled.ok()) {
    retry_at_ms_ = 0;
    last_error_logged_.clear();
    if (pushed) {
      pushed_done_ = std::max(pushed_done_, announced);  // everything announced was in it
    } else {
      join_pending_ = false;
      counters_.joined = true;
      spdlog::info("controller: fetched the merged corpus of campaign {} (build {}): {} inputs",
                   options_.campaign, options_.build_id, counters_.fetched);
    }
    return;
  }
  if (paused_ || stopping) return;  // resumed when the queue has room; or the end
  counters_.failed_pulls++;
  retry_at_ms_ = base::MonotonicMs() + options_.retry_ms;
  if (last_error_logged_ != pulled.status().message()) {
    last_error_logged_ = pulled.status().message();
    spdlog::warn("controller: cannot pull {} ({}): trying again in {:g} s", resource,
                 pulled.status().message(), static_cast<double>(options_.retry_ms) / 1000);
  }
}

std::vector<FetchedInput> CorpusPull::Take(size_t max, bool* resume) {
  std::vector<FetchedInput> taken;
  std::lock_guard lock(mu_);
  while (!queue_.empty() && taken.size() < max) {
    queued_bytes_ -= FetchedBytes(queue_.front());
    taken.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  *resume = !taken.empty() && paused_ && RoomLocked();
  return taken;
}

CorpusPullCounters CorpusPull::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

bool CorpusPull::RoomLocked() const {
  return queue_.size() <= options_.max_inputs / 2 && queued_bytes_ <= options_.max_bytes / 2;
}

Status CorpusPull::Commit(bool pushed, std::string_view name, std::string_view data) {
  FetchedInput in;
  in.pushed = pushed;
  uint64_t seq = 0;
  bool good = true;
  if (pushed) {
    base::Digest hash;
    good = controller::ParsePushedRecordName(name, &seq, &hash);
    in.bytes.assign(data.begin(), data.end());
  } else {
    std::string_view input;
    good = controller::DecodeEntryRecord(data, options_.max_features, &in.features, &input).ok();
    in.bytes.assign(input.begin(), input.end());
  }
  std::lock_guard lock(mu_);
  if (good) {
    size_t bytes = FetchedBytes(in);
    if (queue_.size() >= options_.max_inputs || queued_bytes_ + bytes > options_.max_bytes) {
      paused_ = true;
      return Status::Error("the node's queue of pulled inputs is full (pausing)");
    }
    queued_bytes_ += bytes;
    queue_.push_back(std::move(in));
    (pushed ? counters_.pushed : counters_.fetched)++;
  } else {
    counters_.bad_records++;  // skipped: the cursor moves past it
  }
  if (pushed) {
    pushed_done_ = std::max(pushed_done_, seq);
  } else {
    entries_cursor_ = std::string(name);
  }
  return Status::Ok();
}

}  // namespace pollen::node
