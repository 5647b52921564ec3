#include "node/cluster_link.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "base/clock.h"
#include "base/digest.h"
#include "base/sha1.h"

namespace pollen::node {
namespace {

constexpr uint64_t kNodeStatsEveryMs = 1000;
// Messages read per loop turn: the workers wait while the coordinator handles them.
constexpr size_t kMessagesPerTurn = 256;
// How long OnStop lets ZeroMQ write what is queued before the socket closes (and drops it).
constexpr uint64_t kFlushMs = 300;
// Node sessions remembered as already heard from; beyond this the set starts again (a few
// digest pages too many, to nodes that had them).
constexpr size_t kMaxPeersRemembered = 100000;
// Room kept for the header and the features when a crash's reproducer goes with it.
constexpr size_t kCrashMessageSlack = 64 * 1024;

bool IsPeerOrigin(const std::string& origin) { return origin.rfind(kPeerOriginPrefix, 0) == 0; }

}  // namespace

ClusterLink::ClusterLink(const ClusterLinkOptions& options,
                         std::unique_ptr<broker::BrokerClient> client, storage::CorpusStore* store)
    : options_(options),
      client_(std::move(client)),
      store_(store),
      own_hashes_(
          std::max<size_t>(1, std::min(options.digest_page_size, options.limits.max_hashes))) {}

ClusterLink::~ClusterLink() = default;

void ClusterLink::OnStart(CorpusFeed& feed) {
  start_ms_ = base::MonotonicMs();
  size_t counters = feed.coverage().num_counters();
  cluster_known_ = std::make_unique<engine::CoverageMap>(counters);
  announced_ = std::make_unique<engine::CoverageMap>(counters);
  // The restored corpus: its entries were sent or announced by digest in an earlier run, or
  // came from the cluster; the first delta carries its coverage.
  const LiveCorpus& corpus = feed.corpus();
  size_t own = 0;
  for (size_t i = 0; i < corpus.size(); i++) {
    const CorpusEntry& e = corpus.entry(i);
    cluster_known_->Add(e.features.data(), e.features.size());
    for (uint32_t f : e.features) {
      if (announced_->Contains(f)) continue;
      announced_->Add(&f, 1);
      pending_delta_.push_back(f);
    }
    if (IsPeerOrigin(e.origin)) continue;
    own_hashes_.Add(e.hash);
    own++;
  }
  next_delta_ms_ = start_ms_;
  next_digest_ms_ = start_ms_ + options_.digest_interval_ms;
  spdlog::info(
      "cluster: node {} joins campaign {} through the broker at {}; {} restored entries "
      "found here to announce",
      options_.node_id, options_.campaign, options_.broker, own);
}

void ClusterLink::OnTurn(CorpusFeed& feed) {
  uint64_t now = base::MonotonicMs();
  inbox_.clear();
  client_->Poll(0, &inbox_, kMessagesPerTurn);
  FollowConnection(now);
  for (broker::ClusterMessage& m : inbox_) Receive(m, feed);
  if (now >= next_delta_ms_) {
    SendDelta(feed);
    next_delta_ms_ = now + options_.delta_interval_ms;
  }
  if (now >= next_digest_ms_) {
    SendDigestPage("");
    next_digest_ms_ = now + options_.digest_interval_ms;
  }
  if (now >= next_stats_ms_) UpdateNodeStats(feed, now);
}

void ClusterLink::OnEntryAdded(const CorpusEntry& entry) {
  POLLEN_CHECK(cluster_known_ != nullptr);  // OnStart comes first
  const std::vector<uint32_t>& features = entry.features;
  if (IsPeerOrigin(entry.origin)) {
    counters_.inputs_kept++;
    cluster_known_->Add(features.data(), features.size());
    return;
  }
  own_hashes_.Add(entry.hash);
  for (uint32_t f : features) {
    if (announced_->Contains(f)) continue;
    announced_->Add(&f, 1);
    pending_delta_.push_back(f);
  }
  if (cluster_known_->CountNew(features.data(), features.size()) == 0) {
    counters_.inputs_known++;  // another node has all of it already
    return;
  }
  cluster_known_->Add(features.data(), features.size());
  if (Publish(broker::NewInput{entry.hash, entry.data, features})) counters_.inputs_published++;
}

void ClusterLink::OnNewFailure(const Failure& failure, const std::vector<uint8_t>& input) {
  if (!crash_signatures_.insert(failure.signature).second) return;  // the cluster knows it
  broker::CrashReport report;
  report.signature = failure.signature;
  report.kind = failure.kind;
  report.input_hash = base::Sha1(input.data(), input.size());
  if (input.size() + kCrashMessageSlack <= options_.limits.max_message_bytes) report.input = input;
  if (Publish(std::move(report))) counters_.crashes_sent++;
}

std::string ClusterLink::StatusFields() const {
  return ClusterStatusFields(counters_, client_->stats(), refused_);
}

void ClusterLink::OnStop(CorpusFeed& feed) {
  SendDelta(feed);
  // The socket drops what is still queued when it closes: let ZeroMQ write it, first
  // waiting a little for a connection that is not up yet (a node that found a failure
  // right after it started has a crash report to deliver).
  uint64_t now = base::MonotonicMs();
  uint64_t deadline = now + options_.stop_connect_wait_ms;
  bool flushing = false;
  while (true) {
    inbox_.clear();
    client_->Poll(0, &inbox_, kMessagesPerTurn);
    now = base::MonotonicMs();
    if (!flushing && client_->stats().connected) {
      flushing = true;
      deadline = now + kFlushMs;
    }
    if (now >= deadline) break;
    client_->Poll(static_cast<int>(std::min<uint64_t>(deadline - now, 20)), &inbox_,
                  kMessagesPerTurn);
  }
  spdlog::info("{}", ClusterSummary(counters_, client_->stats()));
}

void ClusterLink::Receive(broker::ClusterMessage& message, CorpusFeed& feed) {
  const std::string& origin = message.header.origin;
  // A node is new when its session is: a restarted node keeps its id if it was given one.
  if (peers_seen_.size() >= kMaxPeersRemembered) peers_seen_.clear();
  bool newcomer = peers_seen_.insert(origin + '\0' + std::to_string(message.header.session)).second;
  if (auto* input = std::get_if<broker::NewInput>(&message.body)) {
    ReceiveInput(origin, *input, feed);
  } else if (auto* delta = std::get_if<broker::CoverageDelta>(&message.body)) {
    if (InRange(delta->features))
      cluster_known_->Add(delta->features.data(), delta->features.size());
  } else if (auto* crash = std::get_if<broker::CrashReport>(&message.body)) {
    ReceiveCrash(origin, *crash);
  } else if (auto* digest = std::get_if<broker::CorpusDigest>(&message.body)) {
    ReceiveDigest(origin, *digest, feed);
  } else if (auto* request = std::get_if<broker::MissingRequest>(&message.body)) {
    AnswerRequest(origin, *request, feed);
  }
  // A node heard from for the first time (just started, or restarted) gets a page of ours at
  // once, as it announced its own: both sides catch up without waiting for a cycle.
  if (newcomer) SendDigestPage(origin);
}

void ClusterLink::ReceiveInput(const std::string& origin, broker::NewInput& input,
                               CorpusFeed& feed) {
  bool in_range = InRange(input.features);
  if (in_range) cluster_known_->Add(input.features.data(), input.features.size());
  if (feed.corpus().Contains(input.hash)) {
    counters_.inputs_held++;
    return;
  }
  std::string entry_origin = kPeerOriginPrefix + origin;
  // Same campaign, so the same build: its features hold here, unless they are missing or
  // do not fit this build's map, or the input is longer than this node runs.
  if (!input.features.empty() && in_range && input.bytes.size() <= feed.max_len()) {
    counters_.inputs_trusted++;
    feed.OfferEntry(std::move(input.bytes), std::move(input.features), std::move(entry_origin));
    return;
  }
  if (feed.PendingExecutions() >= options_.max_pending_executions) {
    // Its origin lists it in a later digest page; asked for again then.
    counters_.backlog_drops++;
    client_->Forget(input.hash);
    return;
  }
  counters_.inputs_executed++;
  feed.ExecuteInput(std::move(input.bytes), std::move(entry_origin));
}

void ClusterLink::ReceiveDigest(const std::string& origin, const broker::CorpusDigest& digest,
                                const CorpusFeed& feed) {
  if (digest.hashes.empty()) return;
  broker::MissingRequest request;
  for (const base::Digest& h : client_->Unseen(digest.hashes)) {
    if (!feed.corpus().Contains(h)) request.hashes.push_back(h);
  }
  if (request.hashes.empty()) return;
  size_t n = request.hashes.size();
  if (Publish(std::move(request), origin)) counters_.hashes_requested += n;
}

void ClusterLink::AnswerRequest(const std::string& origin, const broker::MissingRequest& request,
                                const CorpusFeed& feed) {
  for (const base::Digest& h : request.hashes) {
    const CorpusEntry* entry = feed.corpus().Find(h);
    if (entry == nullptr) continue;  // never had it, or asked of the wrong node
    if (Publish(broker::NewInput{h, entry->data, entry->features}, origin)) {
      counters_.inputs_replied++;
    }
  }
}

void ClusterLink::ReceiveCrash(const std::string& origin, const broker::CrashReport& crash) {
  counters_.crashes_received++;
  if (!crash_signatures_.insert(crash.signature).second) return;
  spdlog::warn("cluster: node {} found a failure: {} [{}], {}-byte reproducer", origin, crash.kind,
               crash.signature, crash.input.size());
  if (store_ == nullptr) return;
  int64_t now = base::UnixMs();
  storage::CrashRecord record{
      crash.kind,
      crash.input,
      "reported by cluster node " + origin +
          "; not reproduced here (pollen repro TARGET FILE shows its stack)",
      0,
      now,
      now};
  Status st = store_->PutCrash(crash.signature, record);
  if (!st.ok())
    spdlog::warn("cannot record the failure node {} reported: {}", origin, st.message());
}

bool ClusterLink::InRange(const std::vector<uint32_t>& features) const {
  // Ascending (the codec checks it): the last one is the largest.
  return features.empty() || engine::FeatureCounter(features.back()) < cluster_known_->size();
}

void ClusterLink::SendDelta(const CorpusFeed& feed) {
  if (pending_delta_.empty()) return;
  std::sort(pending_delta_.begin(), pending_delta_.end());
  size_t chunk = std::max<size_t>(1, options_.limits.max_features);
  for (size_t i = 0; i < pending_delta_.size(); i += chunk) {
    broker::CoverageDelta delta;
    delta.features.assign(pending_delta_.begin() + i,
                          pending_delta_.begin() + std::min(pending_delta_.size(), i + chunk));
    delta.total_features = feed.coverage().features();
    if (Publish(std::move(delta))) counters_.deltas_sent++;
  }
  pending_delta_.clear();
}

void ClusterLink::SendDigestPage(const std::string& to_node, bool even_if_empty) {
  if (own_hashes_.size() == 0 && !even_if_empty) return;
  if (Publish(own_hashes_.NextPage(), to_node)) counters_.digests_sent++;
}

bool ClusterLink::Publish(broker::MessageBody body, const std::string& to_node) {
  Status st = client_->Publish(std::move(body), to_node);
  if (st.ok()) return true;
  counters_.too_large++;
  if (!too_large_warned_) {
    spdlog::warn("cluster: {} (not sent; more are counted as too_large)", st.message());
    too_large_warned_ = true;
  }
  return false;
}

void ClusterLink::FollowConnection(uint64_t now_ms) {
  broker::ClientStats s = client_->stats();
  if (s.auth_failures > auth_failures_seen_) {
    auth_failures_seen_ = s.auth_failures;
    if (!refused_) {
      // The client tries again by itself (libzmq would not), at most a minute apart.
      spdlog::error(
          "the broker at {} refused this node's key (its .pub file is not in the "
          "broker's authorized/ directory): fuzzing alone, sharing nothing, and "
          "trying again every minute at most: it joins once the key is authorised",
          options_.broker);
    }
    refused_ = true;
  }
  if (s.disconnects > disconnects_seen_) {
    disconnects_seen_ = s.disconnects;
    if (!s.connected && connects_seen_ > 0) {
      spdlog::warn("lost the connection to the broker at {}: fuzzing on alone, reconnecting",
                   options_.broker);
    }
  }
  if (s.connects > connects_seen_) {
    if (connects_seen_ == 0) {
      spdlog::info("connected to the broker at {}", options_.broker);
      SendDigestPage("", /*even_if_empty=*/true);  // hello: the others answer with theirs
    } else {
      spdlog::info("reconnected to the broker at {}", options_.broker);
    }
    connects_seen_ = s.connects;
    refused_ = false;
  }
  if (!alone_warned_ && !refused_ && s.connects == 0 &&
      now_ms - start_ms_ >= options_.connect_warning_ms) {
    alone_warned_ = true;
    spdlog::warn(
        "no connection to the broker at {} after {} s: fuzzing alone meanwhile (is it "
        "running there? is --broker-key its public key?)",
        options_.broker, options_.connect_warning_ms / 1000);
  }
}

void ClusterLink::UpdateNodeStats(const CorpusFeed& feed, uint64_t now_ms) {
  broker::ClientStats client = client_->stats();
  broker::NodeStats stats;
  stats.executions = feed.executions();
  if (last_stats_ms_ != 0 && now_ms > last_stats_ms_) {
    stats.execs_per_second = (stats.executions - std::min(stats.executions, last_executions_)) *
                             1000 / (now_ms - last_stats_ms_);
  }
  stats.corpus_entries = feed.corpus().size();
  stats.features = feed.coverage().features();
  stats.crashes = feed.failures();
  stats.inputs_sent = client.inputs_sent;
  stats.inputs_received = client.inputs_received;
  stats.inputs_kept = counters_.inputs_kept;
  client_->SetNodeStats(stats);
  last_executions_ = stats.executions;
  last_stats_ms_ = now_ms;
  next_stats_ms_ = now_ms + kNodeStatsEveryMs;
}

}  // namespace pollen::node
