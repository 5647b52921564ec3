// The session's thread, its connection and registration, heartbeats and the public calls;
// what it delivers (inputs, crashes) is in controller_session_delivery.cc, what it pulls in
// node/corpus_pull.cc.
#include "node/controller_session.h"

#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <utility>

#include "base/clock.h"
#include "node/process_rss.h"

namespace pollen::node {
namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kMaxRefusedRetryMs = 60000;

// "0.1 s", "2 s", "60 s".
std::string Seconds(uint64_t ms) { return fmt::format("{:g} s", static_cast<double>(ms) / 1000); }

// The pulls of inputs, when streams are on.
std::unique_ptr<CorpusPull> MakePull(const ControllerSessionOptions& options) {
  if (!options.streams.has_value()) return nullptr;
  CorpusPullOptions pull;
  pull.client = *options.streams;
  pull.campaign = options.registration.campaign;
  pull.build_id = options.registration.build_id;
  pull.max_features = options.limits.max_features;
  pull.max_inputs = options.max_fetched_inputs;
  pull.max_bytes = options.max_fetched_bytes;
  pull.retry_ms = options.pull_retry_ms;
  return std::make_unique<CorpusPull>(std::move(pull));
}

}  // namespace

ControllerSession::ControllerSession(ControllerSessionOptions options,
                                     ControllerClientFactory connect)
    : options_(std::move(options)), connect_(std::move(connect)), pull_(MakePull(options_)) {}

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
  if (pull_ == nullptr) return {};
  bool resume = false;
  std::vector<FetchedInput> taken = pull_->Take(max, &resume);
  if (resume) {
    std::lock_guard lock(mu_);
    wake_.notify_one();
  }
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
  if (pull_ != nullptr) {
    const CorpusPullCounters f = pull_->counters();
    c.fetched = f.fetched;
    c.pushed = f.pushed;
    c.failed_pulls = f.failed_pulls;
    c.bad_records = f.bad_records;
    c.joined = f.joined;
  }
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
  if (!stopping_ && pull_ != nullptr) {
    switch (pull_->Next(now, wake_ms)) {
      case CorpusPull::Kind::kEntries:
        return Action::kPullEntries;
      case CorpusPull::Kind::kPushed:
        return Action::kPullPushed;
      case CorpusPull::Kind::kNone:
        break;
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
      pull_->Run(CorpusPull::Kind::kEntries, StreamOptions());
      break;
    case Action::kPullPushed:
      pull_->Run(CorpusPull::Kind::kPushed, StreamOptions());
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
  if (pull_ != nullptr) pull_->Announce(answer->pushed_seq);
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

}  // namespace pollen::node
