#include "broker/client/broker_client.h"

#include <algorithm>
#include <random>
#include <zmq.hpp>

#include "base/clock.h"
#include "base/sha1.h"
#include "broker/client/bounded_hash_set.h"
#include "broker/client/message_codec.h"
#include "broker/client/relay_header.h"
#include "net/connection_monitor.h"
#include "net/socket_options.h"
#include "net/zmq_status.h"

namespace pollen::broker {
namespace {

constexpr int kReconnectMs = 100;
constexpr int kReconnectMaxMs = 2000;
constexpr uint64_t kRefusedRetryMaxMs = 60000;
constexpr size_t kCrashDedupCapacity = 1 << 14;

uint64_t RandomSession() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ base::MonotonicUs();
}

class BrokerClientImpl : public BrokerClient {
 public:
  explicit BrokerClientImpl(const ClientOptions& options)
      : options_(options),
        context_(1),
        dealer_(context_, zmq::socket_type::dealer),
        monitor_(context_, dealer_),
        reader_(options.limits),
        session_(RandomSession()),
        seen_inputs_(std::max<size_t>(options.dedup_capacity, 1)),
        seen_crashes_(kCrashDedupCapacity) {}

  Status Connect();
  Status Publish(MessageBody body, const std::string& to_node) override;
  size_t Poll(int timeout_ms, std::vector<ClusterMessage>* out, size_t max) override;
  void SetNodeStats(const NodeStats& stats) override { node_stats_ = stats; }
  std::vector<base::Digest> Unseen(const std::vector<base::Digest>& hashes) const override;
  void Forget(const base::Digest& hash) override { seen_inputs_.Erase(hash); }
  ClientStats stats() const override {
    ClientStats s = stats_;
    s.connected = monitor_.connected();
    return s;
  }

 private:
  // Encodes and queues one message with the next sequence number; *queued is false when
  // the queue was full (counted). Error: the message is over the size limit.
  Status Send(MessageBody body, const std::string& to_node, bool* queued);
  void SendHeartbeat(uint64_t now_ms);
  void FollowConnection(uint64_t now_ms);
  // After a refused handshake: connects again once retry_refused_at_ms_ has passed.
  void RetryRefused(uint64_t now_ms);
  size_t ReceiveWaiting(std::vector<ClusterMessage>* out, size_t max);
  // Validates one received message; the drop reason, or nullopt when it goes to the caller.
  std::optional<DropReason> Accept(const zmq::message_t& header, const zmq::message_t& payload,
                                   ClusterMessage* message);

  ClientOptions options_;
  zmq::context_t context_;  // declared before the sockets: destroyed after them
  zmq::socket_t dealer_;
  net::ConnectionMonitor monitor_;
  MessageReader reader_;
  const uint64_t session_;
  uint64_t seq_ = 0;
  BoundedHashSet seen_inputs_;
  BoundedHashSet seen_crashes_;
  NodeStats node_stats_;
  uint64_t next_heartbeat_ms_ = 0;
  uint64_t broker_session_ = 0;  // of the last relay header seen
  uint64_t last_delivery_ = 0;
  uint64_t retry_refused_at_ms_ = 0;  // 0: no refusal pending
  uint64_t refused_backoff_ms_ = 0;
  ClientStats stats_;
};

Status BrokerClientImpl::Connect() {
  if (options_.node_id.empty() || options_.node_id.size() > options_.limits.max_name_bytes) {
    return Status::Error("the node id must have 1 to " +
                         std::to_string(options_.limits.max_name_bytes) + " bytes");
  }
  if (options_.campaign.target.empty() || options_.campaign.build_id.empty()) {
    return Status::Error("a campaign needs a target name and a build id");
  }
  bool curve = !options_.keys.secret_key.empty();
  if (curve && options_.broker_public_key.empty()) {
    return Status::Error("CURVE needs the broker's public key");
  }
  Status connected = net::ZmqCall("cannot connect to the broker at " + options_.broker, [&] {
    net::SetSharedSocketOptions(dealer_, options_.high_water_mark,
                                options_.limits.max_message_bytes);
    dealer_.set(zmq::sockopt::reconnect_ivl, kReconnectMs);
    dealer_.set(zmq::sockopt::reconnect_ivl_max, kReconnectMaxMs);
    if (curve) {
      net::SetCurveClient(dealer_, options_.keys, options_.broker_public_key);
    }
    dealer_.connect(options_.broker);
  });
  if (!connected.ok()) return connected;
  SendHeartbeat(base::MonotonicMs());  // queued: it goes out with the first connection
  return Status::Ok();
}

Status BrokerClientImpl::Send(MessageBody body, const std::string& to_node, bool* queued) {
  *queued = false;
  ClusterMessage message{{options_.campaign, options_.node_id, session_, seq_ + 1, to_node},
                         std::move(body)};
  std::vector<uint8_t> bytes = EncodeMessage(message);
  if (bytes.size() > options_.limits.max_message_bytes) {
    return Status::Error(
        "a message of " + std::to_string(bytes.size()) + " bytes is over the limit of " +
        std::to_string(options_.limits.max_message_bytes) + ": no receiver would accept it");
  }
  seq_++;
  if (!dealer_.send(zmq::buffer(bytes), zmq::send_flags::dontwait)) {
    stats_.drops.Add(DropReason::kSlowPeer);
  } else {
    *queued = true;
  }
  return Status::Ok();
}

Status BrokerClientImpl::Publish(MessageBody body, const std::string& to_node) {
  const MessageLimits& limits = options_.limits;
  if (to_node.size() > limits.max_name_bytes) return Status::Error("node id too long: " + to_node);
  if (std::holds_alternative<MissingRequest>(body) && to_node.empty()) {
    return Status::Error("a MissingRequest goes to one node: to_node is empty");
  }
  if (auto* digest = std::get_if<CorpusDigest>(&body);
      digest && digest->hashes.size() > limits.max_hashes) {
    return Status::Error("a digest page holds at most " + std::to_string(limits.max_hashes) +
                         " hashes");
  }
  const NewInput* input = std::get_if<NewInput>(&body);
  std::optional<base::Digest> hash;
  if (input != nullptr) hash = input->hash;
  if (hash && to_node.empty() && seen_inputs_.Contains(*hash)) {
    stats_.drops.Add(DropReason::kDuplicate);
    return Status::Ok();
  }
  bool queued = false;
  Status s = Send(std::move(body), to_node, &queued);
  if (!s.ok() || !queued) return s;
  stats_.sent++;
  if (hash) {
    stats_.inputs_sent++;
    seen_inputs_.Insert(*hash);
  }
  return Status::Ok();
}

void BrokerClientImpl::SendHeartbeat(uint64_t now_ms) {
  bool queued = false;
  (void)Send(node_stats_, "", &queued);  // a heartbeat is far below any limit
  if (queued) stats_.heartbeats_sent++;
  next_heartbeat_ms_ = now_ms + options_.heartbeat_interval_ms;
}

void BrokerClientImpl::FollowConnection(uint64_t now_ms) {
  net::ConnectionMonitor::Events events = monitor_.Drain();
  stats_.connects += events.handshakes;
  stats_.disconnects += events.disconnects;
  stats_.auth_failures += events.auth_failures;
  if (events.handshakes > 0) {
    retry_refused_at_ms_ = 0;
    refused_backoff_ms_ = 0;
  } else if (events.auth_failures > 0 && retry_refused_at_ms_ == 0) {
    refused_backoff_ms_ = refused_backoff_ms_ == 0
                              ? std::max<uint64_t>(options_.refused_retry_ms, 1)
                              : std::min(refused_backoff_ms_ * 2,
                                         std::max(kRefusedRetryMaxMs, options_.refused_retry_ms));
    retry_refused_at_ms_ = now_ms + refused_backoff_ms_;
  }
  RetryRefused(now_ms);
  // A new connection may be a restarted broker that knows nothing of this node: say who we
  // are at once instead of at the next heartbeat, so it routes to us again.
  if (events.handshakes > 0 || now_ms >= next_heartbeat_ms_) SendHeartbeat(now_ms);
}

void BrokerClientImpl::RetryRefused(uint64_t now_ms) {
  if (retry_refused_at_ms_ == 0 || now_ms < retry_refused_at_ms_) return;
  retry_refused_at_ms_ = 0;
  // The refused connection's pipe is gone already; messages queued since are dropped with
  // it, as none could have reached the broker. The handshake that follows, if the key is
  // now authorised, sends a heartbeat at once (FollowConnection).
  // An error disconnecting: not connected any more, nothing to undo. An error connecting:
  // the endpoint was valid at Connect(), and the next refusal tries again.
  (void)net::ZmqCall("disconnect", [&] { dealer_.disconnect(options_.broker); });
  (void)net::ZmqCall("connect", [&] { dealer_.connect(options_.broker); });
}

size_t BrokerClientImpl::Poll(int timeout_ms, std::vector<ClusterMessage>* out, size_t max) {
  uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(std::max(timeout_ms, 0));
  size_t appended = 0;
  while (true) {
    uint64_t now = base::MonotonicMs();
    FollowConnection(now);
    appended += ReceiveWaiting(out, max - appended);
    if (appended > 0 || appended == max || now >= deadline) return appended;
    uint64_t wait = std::min(deadline, next_heartbeat_ms_) - now;
    zmq::pollitem_t items[2] = {{dealer_.handle(), 0, ZMQ_POLLIN, 0},
                                {monitor_.socket().handle(), 0, ZMQ_POLLIN, 0}};
    (void)net::Poll(items, 2, std::chrono::milliseconds(wait));  // the deadline still holds
  }
}

size_t BrokerClientImpl::ReceiveWaiting(std::vector<ClusterMessage>* out, size_t max) {
  size_t appended = 0;
  while (appended < max) {
    zmq::message_t header, payload;
    if (!dealer_.recv(header, zmq::recv_flags::dontwait)) break;
    std::optional<DropReason> verdict = DropReason::kMalformed;
    ClusterMessage message;
    if (header.more() && dealer_.recv(payload, zmq::recv_flags::dontwait)) {
      bool extra = false;
      while (payload.more()) {
        zmq::message_t rest;
        if (!dealer_.recv(rest, zmq::recv_flags::dontwait)) break;
        extra = true;
        if (!rest.more()) break;
      }
      if (!extra) verdict = Accept(header, payload, &message);
    }
    if (verdict) {
      stats_.drops.Add(*verdict);
      continue;
    }
    stats_.received++;
    if (KindOf(message) == MessageKind::kNewInput) stats_.inputs_received++;
    out->push_back(std::move(message));
    appended++;
  }
  return appended;
}

std::optional<DropReason> BrokerClientImpl::Accept(const zmq::message_t& header_frame,
                                                   const zmq::message_t& payload,
                                                   ClusterMessage* message) {
  RelayHeader header;
  if (!DecodeRelayHeader(header_frame.data(), header_frame.size(), &header) ||
      header.delivery == 0) {
    return DropReason::kMalformed;
  }
  // Deliveries are numbered per node by each broker session; a jump is what the broker
  // dropped for us (or lost when its connection to us broke).
  uint64_t expected = header.broker_session == broker_session_ ? last_delivery_ + 1 : 1;
  if (header.delivery > expected) stats_.lost += header.delivery - expected;
  broker_session_ = header.broker_session;
  last_delivery_ = header.delivery;

  if (auto verdict = DecodeMessage(reader_, payload.data(), payload.size(), message)) {
    return verdict;
  }
  const MessageHeader& h = message->header;
  if (!(h.campaign == options_.campaign)) return DropReason::kWrongCampaign;
  if (h.origin == options_.node_id) return DropReason::kBadOrigin;
  if (!h.to_node.empty() && h.to_node != options_.node_id) return DropReason::kUnknownNode;
  if (auto* in = std::get_if<NewInput>(&message->body)) {
    if (base::Sha1(in->bytes.data(), in->bytes.size()) != in->hash) return DropReason::kBadHash;
    if (!seen_inputs_.Insert(in->hash)) return DropReason::kDuplicate;
  } else if (auto* crash = std::get_if<CrashReport>(&message->body)) {
    base::Digest key = base::Sha1(reinterpret_cast<const uint8_t*>(crash->signature.data()),
                                  crash->signature.size());
    if (!seen_crashes_.Insert(key)) return DropReason::kDuplicate;
  }
  return std::nullopt;
}

std::vector<base::Digest> BrokerClientImpl::Unseen(const std::vector<base::Digest>& hashes) const {
  std::vector<base::Digest> unseen;
  for (const base::Digest& h : hashes) {
    if (!seen_inputs_.Contains(h)) unseen.push_back(h);
  }
  return unseen;
}

}  // namespace

Result<std::unique_ptr<BrokerClient>> ConnectBroker(const ClientOptions& options) {
  auto client = std::make_unique<BrokerClientImpl>(options);
  Status connected = client->Connect();
  if (!connected.ok()) return connected;
  return std::unique_ptr<BrokerClient>(std::move(client));
}

}  // namespace pollen::broker
