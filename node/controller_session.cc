#include "node/controller_session.h"

#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <utility>

#include "base/clock.h"
#include "controller/client/record_names.h"
#include "controller/client/stream_client.h"
#include "node/process_rss.h"

namespace pollen::node {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr int kCrashStreamAttempts = 3;
constexpr uint64_t kMaxRefusedRetryMs = 60000;
// Room kept in a message for its header, the node id and the lists' framing.
constexpr size_t kMessageSlack = 64 * 1024;
// After the controller's storage failed: a little longer than an ordinary retry.
constexpr uint64_t kStorageRetryFactor = 5;

// An upper bound of what an input adds to a newInputs message: its bytes, its hash, its
// features (delta-LEB128: at most 5 bytes each) and Cap'n Proto's pointers.
size_t EncodedBound(const controller::InputEntry& e) {
  return e.bytes.size() + 5 * e.features.size() + 64;
}

// What an input holds in memory while it waits.
size_t QueuedBytes(const controller::InputEntry& e) {
  return e.bytes.size() + 4 * e.features.size() + sizeof(controller::InputEntry);
}

// Hands each record a pull commits to a function (the session's queue).
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

// "0.1 s", "2 s", "60 s".
std::string Seconds(uint64_t ms) { return fmt::format("{:g} s", static_cast<double>(ms) / 1000); }

}  // namespace

ControllerSession::ControllerSession(ControllerSessionOptions options,
                                     ControllerClientFactory connect)
    : options_(std::move(options)), connect_(std::move(connect)) {}

ControllerSession::~ControllerSession() { Stop(0); }

void ControllerSession::Start() {
  POLLEN_CHECK(!thread_.joinable());
  thread_ = std::thread([this] { Run(); });
}

bool ControllerSession::WaitForFirstAnswer(uint64_t timeout_ms) {
  std::unique_lock lock(mu_);
  return answered_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                            [this] { return first_answer_; });
}

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

void ControllerSession::SetStats(const controller::NodeStats& stats) {
  std::lock_guard lock(mu_);
  stats_ = stats;
}

std::vector<std::string> ControllerSession::TakeMinimizeRequests() {
  std::lock_guard lock(mu_);
  return std::exchange(minimize_, {});
}

bool ControllerSession::TakeResyncRequest() {
  std::lock_guard lock(mu_);
  return std::exchange(resync_, false);
}

std::vector<FetchedInput> ControllerSession::TakeFetched(size_t max) {
  std::vector<FetchedInput> taken;
  std::lock_guard lock(mu_);
  while (!fetched_.empty() && taken.size() < max) {
    fetched_bytes_ -= FetchedBytes(fetched_.front());
    taken.push_back(std::move(fetched_.front()));
    fetched_.pop_front();
  }
  if (!taken.empty() && pull_paused_ && PullRoomLocked()) wake_.notify_one();
  return taken;
}

ControllerState ControllerSession::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

ControllerSessionCounters ControllerSession::counters() const {
  std::lock_guard lock(mu_);
  ControllerSessionCounters c = counters_;
  c.inputs_queued = inputs_.size() + inflight_inputs_;
  c.crashes_queued = crashes_.size();
  return c;
}

void ControllerSession::Stop(uint64_t flush_ms) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      stopping_ = true;
      leave_ = flush_ms > 0;
      stop_deadline_ms_ = base::MonotonicMs() + flush_ms;
    }
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

bool ControllerSession::HasWorkLocked() const {
  return !inputs_.empty() || inflight_inputs_ > 0 || !crashes_.empty();
}

void ControllerSession::Run() {
  // Ctrl-C and SIGTERM go to the coordinator's thread (node/interrupt.h), never here: a
  // signal would cut a request short (EINTR) and look like an outage. ZeroMQ's threads,
  // started from this one, inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::unique_lock lock(mu_);
  while (true) {
    uint64_t now = base::MonotonicMs();
    if (stopping_ && (now >= stop_deadline_ms_ || !registered_ || !HasWorkLocked())) break;
    uint64_t wake_ms = kNever;
    Action action = NextActionLocked(now, &wake_ms);
    if (action == Action::kNone) {
      if (stopping_) wake_ms = std::min(wake_ms, stop_deadline_ms_);
      // Looked at again at least every second: cheap, and robust to a missed wake-up.
      uint64_t wait = std::min<uint64_t>(wake_ms > now ? wake_ms - now : 1, 1000);
      wake_.wait_for(lock, std::chrono::milliseconds(wait));
      continue;
    }
    lock.unlock();
    Do(action);
    lock.lock();
  }
  // A clean end says so; else the controller would report the node lost a little later.
  if (leave_ && registered_ && state_ != ControllerState::kRejected) {
    stop_deadline_ms_ = std::max(stop_deadline_ms_, base::MonotonicMs() + kLeavingMs);
    lock.unlock();
    Heartbeat(/*leaving=*/true);
  }
}

ControllerSession::Action ControllerSession::NextActionLocked(uint64_t now,
                                                              uint64_t* wake_ms) const {
  if (state_ == ControllerState::kRejected) return Action::kNone;
  if (now < retry_at_ms_) {
    *wake_ms = retry_at_ms_;
    return Action::kNone;
  }
  if (!registered_) return Action::kRegister;
  if (now >= next_heartbeat_ms_) return Action::kHeartbeat;
  if (!crashes_.empty() && now >= crash_retry_at_ms_) return Action::kCrash;
  if (inflight_inputs_ > 0 || inputs_.size() >= options_.max_batch_entries) return Action::kInputs;
  *wake_ms = next_heartbeat_ms_;
  if (!crashes_.empty()) *wake_ms = std::min(*wake_ms, crash_retry_at_ms_);
  if (!inputs_.empty()) {
    if (stopping_ || now >= oldest_input_ms_ + options_.batch_interval_ms) return Action::kInputs;
    *wake_ms = std::min(*wake_ms, oldest_input_ms_ + options_.batch_interval_ms);
  }
  // A pull after what waits to be sent: it holds the thread for its whole length.
  if (!stopping_ && PullRoomLocked()) {
    const bool entries = join_fetch_pending_ && heard_pushed_seq_;
    const bool pushed = !join_fetch_pending_ && pushed_announced_ > pushed_done_;
    if (entries || pushed) {
      if (now >= pull_retry_at_ms_) return entries ? Action::kPullEntries : Action::kPullPushed;
      *wake_ms = std::min(*wake_ms, pull_retry_at_ms_);
    }
  }
  return Action::kNone;
}

void ControllerSession::Do(Action action) {
  switch (action) {
    case Action::kRegister:
      Register();
      break;
    case Action::kHeartbeat:
      Heartbeat();
      break;
    case Action::kCrash:
      SendCrash();
      break;
    case Action::kInputs:
      SendInputs();
      break;
    case Action::kPullEntries:
      Pull(/*pushed=*/false);
      break;
    case Action::kPullPushed:
      Pull(/*pushed=*/true);
      break;
    case Action::kNone:
      break;
  }
}

std::optional<controller::Reply> ControllerSession::Send(const controller::Request& request,
                                                         uint64_t timeout_ms) {
  uint64_t now = base::MonotonicMs();
  {
    std::lock_guard lock(mu_);
    if (stopping_)
      timeout_ms =
          std::clamp<uint64_t>(stop_deadline_ms_ - std::min(now, stop_deadline_ms_), 1, timeout_ms);
  }
  if (client_ == nullptr) {
    Result<std::unique_ptr<controller::ControllerClient>> made = connect_();
    if (!made.ok()) {
      // Invalid keys or endpoint were checked before the session started: unexpected.
      Reject("cannot connect to the controller at " + options_.endpoint + ": " +
             made.status().message());
      return std::nullopt;
    }
    client_ = std::move(made).value();
  }
  Result<controller::Reply> reply = client_->Request(request, static_cast<int>(timeout_ms));
  if (reply.ok()) return std::move(reply).value();

  now = base::MonotonicMs();
  const bool refused = client_->refused();
  std::lock_guard lock(mu_);
  counters_.failed_requests++;
  const bool was_registered = registered_;
  registered_ = false;  // the next request is a registration
  if (refused) {
    counters_.refusals++;
    client_.reset();  // libzmq does not retry a refused handshake: a new connection will
    refused_backoff_ms_ = refused_backoff_ms_ == 0
                              ? options_.refused_retry_ms
                              : std::min(refused_backoff_ms_ * 2, kMaxRefusedRetryMs);
    retry_at_ms_ = now + refused_backoff_ms_;
    if (state_ != ControllerState::kRefused) {
      spdlog::error(
          "the controller at {} refused this node's key (its .pub file is not in the "
          "controller's authorized/ directory): fuzzing on without it, trying again "
          "in {}, then at most every minute",
          options_.endpoint, Seconds(refused_backoff_ms_));
    }
    state_ = ControllerState::kRefused;
    return std::nullopt;
  }
  retry_at_ms_ = now + options_.retry_interval_ms;
  if (was_registered || state_ == ControllerState::kConnecting) outage_start_ms_ = now;
  if (!outage_logged_) {
    outage_logged_ = true;
    spdlog::warn(
        "{}: {} without the controller, trying again every {}; what it should get "
        "waits in a queue (at most {} inputs, {} crashes) until it answers",
        reply.status().message(), ever_registered_ ? "fuzzing on" : "fuzzing",
        Seconds(options_.retry_interval_ms), options_.max_queued_inputs,
        options_.max_queued_crashes);
  }
  state_ = ControllerState::kUnreachable;
  return std::nullopt;
}

void ControllerSession::Register() {
  std::optional<controller::Reply> reply =
      Send(options_.registration, options_.register_timeout_ms);
  if (!reply) return;
  const std::string& campaign = options_.registration.campaign;
  if (auto* error = std::get_if<controller::ErrorReply>(&*reply)) {
    if (error->code == controller::ErrorCode::kStorage) {
      std::lock_guard lock(mu_);
      retry_at_ms_ = base::MonotonicMs() + kStorageRetryFactor * options_.retry_interval_ms;
      if (last_error_logged_ != error->message) {
        last_error_logged_ = error->message;
        spdlog::warn("the controller at {} could not register this node ({}): trying again",
                     options_.endpoint, error->message);
      }
      return;
    }
    Reject("the controller at " + options_.endpoint +
           " refused to register this node: " + error->message);
    return;
  }
  auto* registered = std::get_if<controller::RegisterReply>(&*reply);
  if (registered == nullptr) {
    Reject("the controller at " + options_.endpoint + " answered a registration with another kind");
    return;
  }
  uint64_t now = base::MonotonicMs();
  std::lock_guard lock(mu_);
  counters_.registrations++;
  registered_ = true;
  state_ = ControllerState::kRegistered;
  refused_backoff_ms_ = 0;
  next_heartbeat_ms_ = now + options_.heartbeat_interval_ms;
  if (!ever_registered_) {
    spdlog::info(
        "controller: node {} registered at {} in campaign {} (build {}); its merged "
        "corpus of this build holds {} inputs",
        options_.registration.node_id, options_.endpoint, campaign, options_.registration.build_id,
        registered->corpus_entries);
  } else {
    spdlog::info(
        "controller: registered again at {} after {}; catching up ({} inputs, {} "
        "crashes to send)",
        options_.endpoint, Seconds(now - outage_start_ms_), inputs_.size() + inflight_inputs_,
        crashes_.size());
  }
  ever_registered_ = true;
  outage_logged_ = false;
  last_error_logged_.clear();
  if (registered->stopped && !stop_requested_.load()) {
    spdlog::warn(
        "controller: campaign {} is stopped (pollen stop {}; pollen start {} lets its "
        "nodes run again)",
        campaign, campaign, campaign);
    stop_requested_.store(true, std::memory_order_release);
  }
  first_answer_ = true;
  answered_.notify_all();
}

void ControllerSession::Heartbeat(bool leaving) {
  controller::HeartbeatRequest request;
  request.node_id = options_.registration.node_id;
  request.leaving = leaving;
  {
    std::lock_guard lock(mu_);
    request.stats = stats_;
    next_heartbeat_ms_ = base::MonotonicMs() + options_.heartbeat_interval_ms;
  }
  request.stats.rss_bytes = ProcessTreeRssBytes();
  std::optional<controller::Reply> reply = Send(request, options_.request_timeout_ms);
  if (!reply) return;
  if (auto* error = std::get_if<controller::ErrorReply>(&*reply)) {
    KeepAfterError(*error, "a heartbeat", 0);
    return;
  }
  auto* answer = std::get_if<controller::HeartbeatReply>(&*reply);
  if (answer == nullptr) return;
  std::lock_guard lock(mu_);
  counters_.heartbeats++;
  pushed_announced_ = answer->pushed_seq;
  if (!heard_pushed_seq_) {
    heard_pushed_seq_ = true;
    // The joining fetch that follows has every input pushed so far (entries/ holds them).
    if (join_fetch_pending_) pushed_done_ = pushed_announced_;
  }
  for (std::string& s : answer->minimize) {
    if (std::find(minimize_.begin(), minimize_.end(), s) == minimize_.end()) {
      minimize_.push_back(std::move(s));
    }
  }
  if (answer->stop && !stop_requested_.load()) {
    const std::string& campaign = options_.registration.campaign;
    spdlog::warn("stopped by the controller (pollen stop {})", campaign);
    stop_requested_.store(true, std::memory_order_release);
  }
  if (options_.follow_builds && !answer->assigned_build.empty() &&
      answer->assigned_build != options_.registration.build_id && !build_changed_.load()) {
    spdlog::info("controller: campaign {} now fuzzes build {}: this node moves to it",
                 options_.registration.campaign, answer->assigned_build);
    build_changed_.store(true, std::memory_order_release);
    stop_requested_.store(true, std::memory_order_release);
  }
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

controller::StreamClientOptions ControllerSession::StreamOptions() {
  controller::StreamClientOptions stream;
  stream.connect_timeout_ms = options_.stream_connect_timeout_ms;
  stream.idle_timeout_ms = options_.stream_idle_timeout_ms;
  stream.should_stop = [this] {
    std::lock_guard lock(mu_);
    return stopping_;
  };
  return stream;
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

void ControllerSession::Reject(const std::string& message) {
  std::lock_guard lock(mu_);
  if (state_ == ControllerState::kRejected) return;
  spdlog::error("{}: fuzzing on without the controller", message);
  state_ = ControllerState::kRejected;
  registered_ = false;
  counters_.rejected += inputs_.size() + inflight_inputs_ + crashes_.size();
  inputs_.clear();
  inflight_.clear();
  inflight_inputs_ = 0;
  crashes_.clear();
  queued_bytes_ = 0;
  first_answer_ = true;
  answered_.notify_all();
}


bool ControllerSession::PullRoomLocked() const {
  return options_.streams.has_value() && fetched_.size() <= options_.max_fetched_inputs / 2 &&
         fetched_bytes_ <= options_.max_fetched_bytes / 2;
}

void ControllerSession::Pull(bool pushed) {
  const controller::RegisterRequest& r = options_.registration;
  const std::string resource = pushed ? controller::PushedResource(r.campaign)
                                      : controller::EntriesResource(r.campaign, r.build_id);
  std::string after;
  uint64_t announced = 0;
  {
    std::lock_guard lock(mu_);
    after = pushed ? controller::PushedCursorAfter(pushed_done_) : entries_cursor_;
    announced = pushed_announced_;
    pull_paused_ = false;
  }
  const controller::StreamClientOptions stream = StreamOptions();
  FunctionSink sink([this, pushed](std::string_view name, std::string_view data) {
    return CommitFetched(pushed, name, data);
  });
  Result<transfer::TransferCounters> pulled =
      controller::PullStream(*options_.streams, resource, after, &sink, nullptr, stream);
  std::lock_guard lock(mu_);
  if (pulled.ok()) {
    pull_retry_at_ms_ = 0;
    last_pull_error_logged_.clear();
    if (pushed) {
      pushed_done_ = std::max(pushed_done_, announced);  // everything announced was in it
    } else {
      join_fetch_pending_ = false;
      counters_.joined = true;
      spdlog::info("controller: fetched the merged corpus of campaign {} (build {}): {} inputs",
                   r.campaign, r.build_id, counters_.fetched);
    }
    return;
  }
  if (pull_paused_ || stopping_) return;  // resumed when the queue has room; or the end
  counters_.failed_pulls++;
  pull_retry_at_ms_ = base::MonotonicMs() + options_.pull_retry_ms;
  if (last_pull_error_logged_ != pulled.status().message()) {
    last_pull_error_logged_ = pulled.status().message();
    spdlog::warn("controller: cannot pull {} ({}): trying again in {}", resource,
                 pulled.status().message(), Seconds(options_.pull_retry_ms));
  }
}

Status ControllerSession::CommitFetched(bool pushed, std::string_view name,
                                        std::string_view data) {
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
    good = controller::DecodeEntryRecord(data, options_.limits.max_features, &in.features, &input)
               .ok();
    in.bytes.assign(input.begin(), input.end());
  }
  std::lock_guard lock(mu_);
  if (good) {
    size_t bytes = FetchedBytes(in);
    if (fetched_.size() >= options_.max_fetched_inputs ||
        fetched_bytes_ + bytes > options_.max_fetched_bytes) {
      pull_paused_ = true;
      return Status::Error("the node's queue of pulled inputs is full (pausing)");
    }
    fetched_bytes_ += bytes;
    fetched_.push_back(std::move(in));
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
