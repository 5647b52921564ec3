// What the controller session delivers: the queues of inputs and crashes, their batches
// and streams, and what an error reply means for what a request carried.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "base/clock.h"
#include "controller/client/stream_client.h"
#include "node/controller_session.h"

namespace pollen::node {
namespace {

constexpr int kCrashStreamAttempts = 3;

// An upper bound of what an input adds to a newInputs message: its bytes, its hash, its
// features (delta-LEB128: at most 5 bytes each) and Cap'n Proto's pointers.
size_t EncodedBound(const controller::InputEntry& e) {
  return e.bytes.size() + 5 * e.features.size() + 64;
}

// What an input holds in memory while it waits.
size_t QueuedBytes(const controller::InputEntry& e) {
  return e.bytes.size() + 4 * e.features.size() + sizeof(controller::InputEntry);
}

}  // namespace

ControllerSession::Queued ControllerSession::QueueInput(controller::InputEntry entry,
                                                        bool count_if_full) {
  std::lock_guard lock(mu_);
  if (state_ == ControllerState::kRejected) {
    counters_.rejected++;
    return Queued::kRejected;
  }
  if (EncodedBound(entry) + kMessageSlack > options_.limits.max_message_bytes) {
    counters_.too_large++;
    return Queued::kTooLarge;
  }
  size_t bytes = QueuedBytes(entry);
  if (inputs_.size() + inflight_inputs_ >= options_.max_queued_inputs ||
      queued_bytes_ + bytes > options_.max_queued_bytes) {
    if (count_if_full) counters_.inputs_dropped++;
    return Queued::kFull;
  }
  if (inputs_.empty()) oldest_input_ms_ = base::MonotonicMs();
  inputs_.push_back(std::move(entry));
  queued_bytes_ += bytes;
  if (inputs_.size() == options_.max_batch_entries) wake_.notify_one();
  return Queued::kQueued;
}

bool ControllerSession::QueueCrash(controller::CrashRequest crash) {
  crash.node_id = options_.registration.node_id;
  if (crash.report.size() > options_.limits.max_report_bytes) {
    crash.report.resize(options_.limits.max_report_bytes);
  }
  std::lock_guard lock(mu_);
  if (state_ == ControllerState::kRejected) {
    counters_.rejected++;
    return false;
  }
  // One that does not fit in a message goes in a stream (pushCrash), one at a time in the
  // queue: a reproducer may be as large as a stream's record (64 MiB).
  const bool streamed = !FitsInMessage(crash);
  if (streamed && (!options_.streams.has_value() ||
                   crash.input.size() > options_.streams->limits.stream.max_record_bytes ||
                   std::any_of(crashes_.begin(), crashes_.end(),
                               [this](const auto& c) { return !FitsInMessage(c); }))) {
    counters_.too_large++;
    return false;
  }
  if (crashes_.size() >= options_.max_queued_crashes) {
    counters_.crashes_dropped++;
    return false;
  }
  crashes_.push_back(std::move(crash));
  wake_.notify_one();
  return true;
}

size_t ControllerSession::InputRoom() const {
  std::lock_guard lock(mu_);
  size_t queued = inputs_.size() + inflight_inputs_;
  return queued >= options_.max_queued_inputs ? 0 : options_.max_queued_inputs - queued;
}

bool ControllerSession::FitsInMessage(const controller::CrashRequest& crash) const {
  const size_t size = crash.input.size() + crash.report.size() + crash.signature.size() +
                      crash.kind.size() + crash.node_id.size();
  return size + kMessageSlack <= options_.limits.max_message_bytes;
}

void ControllerSession::SendCrash() {
  controller::CrashRequest crash;
  {
    std::lock_guard lock(mu_);
    if (crashes_.empty()) return;
    crash = crashes_.front();
  }
  if (!FitsInMessage(crash)) return StreamCrash(std::move(crash));
  std::optional<controller::Reply> reply = Send(crash, options_.request_timeout_ms);
  if (!reply) return;
  if (auto* error = std::get_if<controller::ErrorReply>(&*reply)) {
    if (KeepAfterError(*error, "a crash", 1)) return;
  }
  std::lock_guard lock(mu_);
  if (std::holds_alternative<controller::CrashReply>(*reply)) counters_.crashes_sent++;
  crashes_.pop_front();
}

void ControllerSession::StreamCrash(controller::CrashRequest crash) {
  const controller::StreamClientOptions stream = StreamOptions();
  const std::string signature = crash.signature;
  const size_t size = crash.input.size();
  const Status pushed = controller::PushCrashStream(
      *options_.streams, options_.registration.campaign, std::move(crash), stream);
  std::lock_guard lock(mu_);
  if (!pushed.ok()) {
    // Sent again after a pause (the heartbeats go on); dropped after a few failures: a
    // controller that refuses it (e.g. a lower record limit) would refuse it for good.
    if (++crash_stream_failures_ >= kCrashStreamAttempts) {
      spdlog::error("controller: crash {} ({} bytes) dropped after {} failed streams: {}",
                    signature, size, crash_stream_failures_, pushed.message());
      counters_.crashes_dropped++;
      crashes_.pop_front();
      crash_stream_failures_ = 0;
      return;
    }
    spdlog::warn("controller: crash {} ({} bytes) not sent yet: {}", signature, size,
                 pushed.message());
    crash_retry_at_ms_ = base::MonotonicMs() + options_.pull_retry_ms;
    return;
  }
  crash_stream_failures_ = 0;
  counters_.crashes_sent++;
  counters_.crashes_streamed++;
  crashes_.pop_front();
}

void ControllerSession::SendInputs() {
  controller::NewInputsRequest request;
  request.node_id = options_.registration.node_id;
  if (inflight_.empty()) {
    // A new batch: as many as fit in one message.
    std::lock_guard lock(mu_);
    size_t budget = options_.limits.max_message_bytes - kMessageSlack;
    size_t max_entries = std::min(options_.max_batch_entries, options_.limits.max_entries);
    size_t bytes = 0;
    while (!inputs_.empty() && inflight_.size() < max_entries) {
      size_t size = EncodedBound(inputs_.front());
      if (!inflight_.empty() && bytes + size > budget) break;
      bytes += size;
      inflight_.push_back(std::move(inputs_.front()));
      inputs_.pop_front();
    }
    inflight_inputs_ = inflight_.size();
    if (!inputs_.empty()) oldest_input_ms_ = base::MonotonicMs();
  }
  if (inflight_.empty()) return;
  request.entries = std::move(inflight_);
  inflight_.clear();
  std::optional<controller::Reply> reply = Send(request, options_.request_timeout_ms);
  size_t n = request.entries.size();
  bool keep = !reply;
  if (reply) {
    if (auto* error = std::get_if<controller::ErrorReply>(&*reply)) {
      keep = KeepAfterError(*error, "inputs", n);
    }
  }
  std::lock_guard lock(mu_);
  if (keep && state_ != ControllerState::kRejected) {
    inflight_ = std::move(request.entries);
    return;
  }
  if (state_ == ControllerState::kRejected) return;  // Reject dropped and counted them
  for (const controller::InputEntry& e : request.entries) queued_bytes_ -= QueuedBytes(e);
  inflight_inputs_ = 0;
  if (auto* accepted = std::get_if<controller::InputsReply>(&*reply)) {
    counters_.inputs_sent += n;
    counters_.inputs_added += accepted->added;
    counters_.inputs_duplicate += accepted->duplicates;
    counters_.inputs_not_needed += accepted->not_needed;
  }
}

bool ControllerSession::KeepAfterError(const controller::ErrorReply& error, const char* what,
                                       size_t items) {
  std::lock_guard lock(mu_);
  if (error.code == controller::ErrorCode::kUnknownNode) {
    // Forgotten (a node lost for a day, or a controller with a new data directory): register
    // again, then send what it should have, and the corpus again.
    if (registered_) {
      spdlog::warn(
          "the controller at {} does not know this node any more: registering again "
          "and sending the corpus again",
          options_.endpoint);
    }
    registered_ = false;
    resync_ = true;
    return true;
  }
  if (error.code == controller::ErrorCode::kStorage) {
    retry_at_ms_ = base::MonotonicMs() + kStorageRetryFactor * options_.retry_interval_ms;
    if (last_error_logged_ != error.message) {
      last_error_logged_ = error.message;
      spdlog::warn("the controller at {} could not store {} ({}): trying again", options_.endpoint,
                   what, error.message);
    }
    return true;
  }
  counters_.rejected += items;
  if (last_error_logged_ != error.message) {
    last_error_logged_ = error.message;
    spdlog::warn("the controller at {} refused {}: {}{}", options_.endpoint, what, error.message,
                 items > 0 ? " (dropped, counted as rejected)" : "");
  }
  return false;
}

}  // namespace pollen::node
