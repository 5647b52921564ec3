#include "node/controller_link.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "base/clock.h"
#include "base/digest.h"
#include "base/sha1.h"
#include "engine/coverage.h"
#include "node/cluster_link.h"
#include "node/interrupt.h"

namespace pollen::node {
namespace {

bool IsPeerOrigin(const std::string& origin) { return origin.rfind(kPeerOriginPrefix, 0) == 0; }

// Entries this node did not find: their origin node, or the controller, has them.
bool NotFoundHere(const std::string& origin) {
  return IsPeerOrigin(origin) || origin == kControllerOrigin;
}

}  // namespace

ControllerLink::ControllerLink(ControllerLinkOptions options,
                               std::unique_ptr<ControllerSession> session,
                               CrashMinimizerFn minimize, storage::CorpusStore* store)
    : options_(std::move(options)),
      session_(std::move(session)),
      minimize_(std::move(minimize)),
      store_(store) {
  POLLEN_CHECK(session_ != nullptr);
}

ControllerLink::~ControllerLink() = default;

bool ControllerLink::Start(uint64_t wait_ms) {
  session_->Start();
  // In slices, so that Ctrl-C (node/interrupt.h) need not wait for the whole time.
  const uint64_t deadline = base::MonotonicMs() + wait_ms;
  bool answered = false;
  for (uint64_t now = base::MonotonicMs(); !answered && !Interrupted() && now < deadline;
       now = base::MonotonicMs()) {
    answered = session_->WaitForFirstAnswer(std::min<uint64_t>(50, deadline - now));
  }
  // An unreachable controller or a refused key was logged by the session already.
  if (!answered && session_->state() == ControllerState::kConnecting) {
    spdlog::warn(
        "no answer from the controller at {} within {}: fuzzing meanwhile; the node "
        "registers as soon as it answers",
        session_->options().endpoint, fmt::format("{:g} s", wait_ms / 1000.0));
  }
  return answered;
}

void ControllerLink::OnStart(CorpusFeed& feed) {
  uint64_t now = base::MonotonicMs();
  rate_window_ms_ = now;
  rate_window_executions_ = feed.executions();
  UpdateStats(feed, now);
  StartResync(feed);  // the restored corpus: the controller keeps what it lacks
  size_t own = 0;
  for (size_t i = 0; i < feed.corpus().size(); i++) {
    own += !NotFoundHere(feed.corpus().entry(i).origin);
  }
  if (own > 0) {
    spdlog::info(
        "controller: offering the {} restored corpus entries found here to the merged "
        "corpus of campaign {}",
        own, options_.campaign);
  }
}

void ControllerLink::OnTurn(CorpusFeed& feed) {
  uint64_t now = base::MonotonicMs();
  if (now >= next_stats_ms_) UpdateStats(feed, now);
  if (session_->TakeResyncRequest()) StartResync(feed);
  // Inputs were dropped from a full queue: once the queue has room again (the controller is
  // back, or caught up), send the corpus again; the controller keeps what it lacks.
  if (drops_since_resync_ > 0 && resync_next_ >= resync_end_ &&
      session_->state() == ControllerState::kRegistered &&
      session_->InputRoom() * 2 >= session_->options().max_queued_inputs) {
    StartResync(feed);
  }
  ContinueResync(feed);
  DrainFetched(feed);
  for (std::string& s : session_->TakeMinimizeRequests()) {
    if (std::find(to_minimize_.begin(), to_minimize_.end(), s) == to_minimize_.end()) {
      to_minimize_.push_back(std::move(s));
    }
  }
  // One per turn: each costs up to --minimize-time, as a new failure's minimization does.
  if (!to_minimize_.empty() && !StopRequested() && !Interrupted()) {
    std::string signature = std::move(to_minimize_.front());
    to_minimize_.pop_front();
    Minimize(signature);
  }
}

void ControllerLink::OnEntryAdded(const CorpusEntry& entry) {
  if (IsPeerOrigin(entry.origin)) {
    counters_.inputs_from_peers++;  // its origin node sends it
    return;
  }
  if (entry.origin == kControllerOrigin) {
    counters_.from_controller++;  // the controller has it
    return;
  }
  if (!QueueEntry(entry, /*live=*/true)) drops_since_resync_++;
}

bool ControllerLink::QueueEntry(const CorpusEntry& entry, bool live) {
  controller::InputEntry input;
  input.hash = entry.hash;
  input.bytes = entry.data;
  input.features = entry.features;  // ascending (LiveCorpus sorts them)
  input.features.erase(std::unique(input.features.begin(), input.features.end()),
                       input.features.end());
  switch (session_->QueueInput(std::move(input), /*count_if_full=*/live)) {
    case ControllerSession::Queued::kQueued:
      counters_.inputs_queued++;
      return true;
    case ControllerSession::Queued::kFull:
      return false;
    case ControllerSession::Queued::kTooLarge:  // counted by the session; never fits
    case ControllerSession::Queued::kRejected:  // the session has ended
      return true;
  }
  return true;
}

void ControllerLink::StartResync(const CorpusFeed& feed) {
  resync_next_ = 0;
  resync_end_ = feed.corpus().size();
  drops_since_resync_ = 0;
  counters_.resyncs++;
}

void ControllerLink::ContinueResync(const CorpusFeed& feed) {
  if (resync_next_ >= resync_end_) return;
  size_t room = session_->InputRoom();
  size_t reserve =
      session_->options().max_queued_inputs / std::max<size_t>(1, options_.resync_reserve_divisor);
  if (room <= reserve) return;
  size_t budget = std::min(room - reserve, options_.resync_per_turn);
  const LiveCorpus& corpus = feed.corpus();
  resync_end_ = std::min(resync_end_, corpus.size());
  for (size_t looked = 0;
       looked < options_.resync_per_turn && budget > 0 && resync_next_ < resync_end_; looked++) {
    const CorpusEntry& e = corpus.entry(resync_next_);
    if (!NotFoundHere(e.origin)) {
      if (!QueueEntry(e, /*live=*/false)) return;  // full after all: the same entry next turn
      budget--;
    }
    resync_next_++;
  }
}

void ControllerLink::DrainFetched(CorpusFeed& feed) {
  // Inputs to run wait here while the feed's executions are full; beyond max_waiting_runs
  // nothing more is taken from the session, whose queue then fills and pauses its pull.
  if (fetched_.empty() && to_run_.size() < options_.max_waiting_runs) {
    for (FetchedInput& in : session_->TakeFetched(options_.fetched_per_turn)) {
      fetched_.push_back(std::move(in));
    }
  }
  const uint64_t counters = feed.coverage().num_counters();
  for (size_t budget = options_.fetched_per_turn; budget > 0 && !fetched_.empty(); budget--) {
    FetchedInput& in = fetched_.front();
    if (feed.corpus().Contains(base::Sha1(in.bytes.data(), in.bytes.size()))) {
      counters_.fetched_held++;
    } else if (!in.features.empty() && engine::FeatureCounter(in.features.back()) < counters &&
               in.bytes.size() <= feed.max_len()) {
      // Measured on this very build (entries/<campaign>/<build>): taken as they are.
      counters_.fetched_offered++;
      feed.OfferEntry(std::move(in.bytes), std::move(in.features), kControllerOrigin);
    } else {
      // A pushed input (no features), or features this map cannot hold: to run.
      to_run_.push_back(std::move(in.bytes));
    }
    fetched_.pop_front();
  }
  for (size_t budget = options_.fetched_per_turn;
       budget > 0 && !to_run_.empty() && feed.PendingExecutions() < options_.max_pending_executions;
       budget--) {
    counters_.fetched_executed++;
    feed.ExecuteInput(std::move(to_run_.front()), kControllerOrigin);
    to_run_.pop_front();
  }
}

void ControllerLink::OnNewFailure(const Failure& failure, const std::vector<uint8_t>& input) {
  if (!crashes_reported_.insert(failure.signature).second) return;
  if (held_crashes_.size() < options_.max_held_crashes) {
    held_crashes_[failure.signature] = HeldCrash{failure.kind, input, failure.report};
  }
  controller::CrashRequest crash;
  crash.signature = failure.signature;
  crash.kind = failure.kind;
  crash.input = input;
  crash.report = failure.report;
  // The coordinator minimized it (within --minimize-time) unless the run was being
  // interrupted; a kind that cannot be minimized (timeout, oom) is as minimized as it gets.
  crash.minimized = !Interrupted();
  if (session_->QueueCrash(std::move(crash))) {
    counters_.crashes_queued++;
  } else if (!crash_drop_warned_) {
    crash_drop_warned_ = true;
    spdlog::warn(
        "controller: crash {} cannot be reported (the queue is full, or it is over the "
        "message limit); it is in this node's crashes/ directory",
        failure.signature);
  }
}

void ControllerLink::Minimize(const std::string& signature) {
  HeldCrash crash;
  if (auto it = held_crashes_.find(signature); it != held_crashes_.end()) {
    crash = it->second;
  } else if (store_ != nullptr) {
    Result<std::optional<storage::CrashRecord>> record = store_->GetCrash(signature);
    // A count of 0: reported by another node through the broker, never reproduced here.
    if (record.ok() && record->has_value() && (*record)->count > 0) {
      crash = HeldCrash{(*record)->kind, (*record)->input, (*record)->report};
    }
  }
  if (crash.input.empty() || !minimize_) {
    spdlog::info(
        "controller: asked to minimize crash {}, which this node cannot (it does not "
        "hold its reproducer)",
        signature);
    return;
  }
  Failure failure;
  failure.kind = crash.kind;
  failure.signature = signature;
  failure.report = crash.report;
  spdlog::info("controller: minimizing crash {} ({} bytes) as the controller asked", signature,
               crash.input.size());
  CrashMinimizeResult result = minimize_(crash.input, failure);
  if (result.interrupted) return;  // the run is ending; asked again later
  spdlog::info("controller: crash {} minimized to {} bytes in {} attempts; reporting it again",
               signature, result.input.size(), result.attempts);
  counters_.minimized++;
  held_crashes_[signature] = HeldCrash{crash.kind, result.input, result.failure.report};
  controller::CrashRequest again;
  again.signature = signature;
  again.kind = crash.kind;
  again.input = std::move(result.input);
  again.report = result.failure.report.empty() ? crash.report : result.failure.report;
  again.minimized = true;
  if (session_->QueueCrash(std::move(again))) counters_.crashes_queued++;
}

void ControllerLink::UpdateStats(const CorpusFeed& feed, uint64_t now_ms) {
  uint64_t executions = feed.executions();
  if (now_ms >= rate_window_ms_ + 1000) {
    execs_per_second_ = (executions - std::min(executions, rate_window_executions_)) * 1000 /
                        (now_ms - rate_window_ms_);
    rate_window_ms_ = now_ms;
    rate_window_executions_ = executions;
  }
  controller::NodeStats stats;
  stats.execs_per_second = execs_per_second_;
  stats.executions = executions;
  stats.edges = feed.coverage().edges();
  stats.features = feed.coverage().features();
  stats.corpus_entries = feed.corpus().size();
  stats.crashes = feed.failures();
  session_->SetStats(stats);
  next_stats_ms_ = now_ms + options_.stats_interval_ms;
}

std::string ControllerLink::StatusFields() const {
  ControllerSessionCounters c = session_->counters();
  std::string fields =
      "\tcontroller: sent " + std::to_string(c.inputs_sent) + " crashes " +
      std::to_string(c.crashes_sent) + " queued " +
      std::to_string(c.inputs_queued + c.crashes_queued) + " dropped " +
      std::to_string(c.inputs_dropped + c.crashes_dropped + c.too_large + c.rejected);
  switch (session_->state()) {
    case ControllerState::kConnecting:
    case ControllerState::kUnreachable:
      fields += " offline";
      break;
    case ControllerState::kRefused:
      fields += " REFUSED";
      break;
    case ControllerState::kRejected:
      fields += " REJECTED";
      break;
    case ControllerState::kRegistered:
      break;
  }
  if (session_->options().streams.has_value()) {
    fields += " fetched " + std::to_string(c.fetched) + " pushed " + std::to_string(c.pushed);
  }
  return fields;
}

void ControllerLink::OnStop(CorpusFeed& feed) {
  UpdateStats(feed, base::MonotonicMs());
  session_->Stop(options_.stop_flush_ms);
  ControllerSessionCounters c = session_->counters();
  spdlog::info(
      "controller: inputs sent {} (added {}, duplicates {}, not needed {}), from peers not sent "
      "{}; crashes sent {} (streamed {}), minimized on request {}; heartbeats {}, registrations "
      "{}, failed requests {}, refusals {}; dropped: inputs {} crashes {} (queue full or "
      "refused stream), too large {}, "
      "rejected {}; corpus sent again {} times; pulled: merged corpus {}{}, pushed {} (offered "
      "{}, run {}, held already {}), failed pulls {}",
      c.inputs_sent, c.inputs_added, c.inputs_duplicate, c.inputs_not_needed,
      counters_.inputs_from_peers, c.crashes_sent, c.crashes_streamed, counters_.minimized,
      c.heartbeats, c.registrations, c.failed_requests, c.refusals, c.inputs_dropped,
      c.crashes_dropped, c.too_large, c.rejected, counters_.resyncs > 0 ? counters_.resyncs - 1 : 0,
      c.fetched, c.joined ? "" : " (incomplete)", c.pushed, counters_.fetched_offered,
      counters_.fetched_executed, counters_.fetched_held, c.failed_pulls);
  if (c.inputs_queued + c.crashes_queued > 0) {
    spdlog::warn(
        "controller: {} inputs and {} crashes were not delivered (the inputs are in "
        "the corpus store and are offered again at the next start; the crashes are in "
        "crashes/)",
        c.inputs_queued, c.crashes_queued);
  }
}

bool ControllerLink::StopRequested() const { return session_->stop_requested(); }

}  // namespace pollen::node
