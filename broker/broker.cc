#include "broker/broker.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <mutex>
#include <random>
#include <vector>
#include <zmq.hpp>

#include "base/clock.h"
#include "broker/client/relay_header.h"
#include "net/listen_endpoint.h"
#include "net/socket_options.h"
#include "net/zap_handler.h"
#include "net/zmq_status.h"

namespace pollen::broker {
namespace {

constexpr int kPollMs = 100;
constexpr uint64_t kExpiryIntervalMs = 1000;

uint64_t RandomSession() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

class BrokerImpl : public Broker {
 public:
  explicit BrokerImpl(const BrokerOptions& options)
      : options_(options),
        context_(options.io_threads),
        router_(context_, zmq::socket_type::router),
        peers_(options.peers),
        reader_(options.limits),
        session_(RandomSession()) {}

  Status Start();
  std::string endpoint() const override { return endpoint_; }
  void Run(const std::function<bool()>& should_stop) override;
  void Stop() override { stop_.store(true); }
  BrokerStatus status() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return snapshot_;
  }

 private:
  void ReceiveBatch(uint64_t now_ms);
  void Handle(const zmq::message_t& routing_id, zmq::message_t& payload, bool extra_parts,
              uint64_t now_ms);
  void Deliver(Peer& to, zmq::message_t& payload);
  void Drop(DropReason reason) { counters_.drops.Add(reason); }
  void Snapshot(const BrokerStatus* with_rates);

  BrokerOptions options_;
  zmq::context_t context_;  // declared before the sockets: destroyed after them
  std::unique_ptr<net::ZapHandler> zap_;
  zmq::socket_t router_;
  std::string endpoint_;
  PeerTable peers_;
  MessageReader reader_;
  const uint64_t session_;
  BrokerCounters counters_;
  std::vector<std::string> unreachable_;  // peers whose connection is gone, found while sending
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  BrokerStatus snapshot_;
};

Status BrokerImpl::Start() {
  bool curve = !options_.secret_key.empty();
  if (curve && options_.authorized_dir.empty()) {
    return Status::Error("a CURVE broker needs a directory of authorised node keys");
  }
  if (!curve && !options_.allow_plaintext) {
    return Status::Error(
        "no secret key: plain text must be asked for explicitly (--insecure-plaintext)");
  }
  Status zap_started = Status::Ok();
  Status set = net::ZmqCall("cannot set up the broker socket", [&] {
    net::SetSharedSocketOptions(router_, options_.high_water_mark,
                                options_.limits.max_message_bytes);
    // A full or gone peer is an error, not a silent drop.
    router_.set(zmq::sockopt::router_mandatory, 1);
    if (!curve) return;
    auto zap = net::ZapHandler::Start(context_, options_.authorized_dir);
    if (!zap.ok()) {
      zap_started = zap.status();
      return;
    }
    zap_ = std::move(zap.value());
    net::SetCurveServer(router_, options_.secret_key);
  });
  if (!zap_started.ok()) return zap_started;
  if (!set.ok()) return set;
  if (Status port = net::CheckTcpPort(options_.listen); !port.ok()) return port;
  if (Status s = net::Bind(router_, options_.listen, 7100); !s.ok()) return s;
  endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  return Status::Ok();
}

void BrokerImpl::Run(const std::function<bool()>& should_stop) {
  uint64_t last_expiry = base::MonotonicMs(), last_status = last_expiry;
  BrokerCounters before = counters_;
  while (!stop_.load() && !(should_stop && should_stop())) {
    zmq::pollitem_t items[2] = {{router_.handle(), 0, ZMQ_POLLIN, 0}, {nullptr, 0, ZMQ_POLLIN, 0}};
    if (zap_) items[1].socket = zap_->socket().handle();
    Status turn = net::ZmqCall("broker", [&] {
      zmq::poll(items, zap_ ? 2 : 1, std::chrono::milliseconds(kPollMs));
      if (zap_ && (items[1].revents & ZMQ_POLLIN)) {
        zap_->HandlePending();
        counters_.handshakes_accepted = zap_->accepted();
        counters_.handshakes_refused = zap_->refused();
      }
      if (items[0].revents & ZMQ_POLLIN) ReceiveBatch(base::MonotonicMs());
    });
    if (!turn.ok() && turn.code() != StatusCode::kInterrupted) spdlog::warn("{}", turn.message());
    uint64_t now = base::MonotonicMs();
    if (now - last_expiry >= kExpiryIntervalMs) {
      peers_.Expire(now, options_.peer_timeout_ms);
      last_expiry = now;
    }
    if (options_.status_interval_ms > 0 && now - last_status >= options_.status_interval_ms) {
      BrokerStatus status;
      status.totals = counters_;
      ComputeRates(before, static_cast<double>(now - last_status) / 1000.0, &status);
      Snapshot(&status);
      if (options_.on_status) options_.on_status(snapshot_);
      before = counters_;
      last_status = now;
    } else {
      Snapshot(nullptr);
    }
  }
}

void BrokerImpl::Snapshot(const BrokerStatus* with_rates) {
  std::lock_guard<std::mutex> lock(mu_);
  if (with_rates != nullptr) snapshot_ = *with_rates;
  snapshot_.totals = counters_;
  snapshot_.nodes = peers_.peers();
  snapshot_.campaigns = peers_.campaigns();
}

void BrokerImpl::ReceiveBatch(uint64_t now_ms) {
  for (size_t n = 0; n < options_.batch; n++) {
    zmq::message_t routing_id, payload;
    if (!router_.recv(routing_id, zmq::recv_flags::dontwait)) break;
    // A ROUTER always prefixes the routing id; the parts of one message arrive together.
    if (!routing_id.more() || !router_.recv(payload, zmq::recv_flags::dontwait)) {
      counters_.messages_in++;
      Drop(DropReason::kMalformed);
      continue;
    }
    bool extra_parts = false;
    while (payload.more()) {  // nodes send one frame: more is garbage, read and dropped
      zmq::message_t rest;
      if (!router_.recv(rest, zmq::recv_flags::dontwait)) break;
      extra_parts = true;
      if (!rest.more()) break;
    }
    Handle(routing_id, payload, extra_parts, now_ms);
  }
  for (const std::string& id : unreachable_) peers_.Remove(id);
  unreachable_.clear();
}

void BrokerImpl::Handle(const zmq::message_t& routing_id, zmq::message_t& payload, bool extra_parts,
                        uint64_t now_ms) {
  counters_.messages_in++;
  counters_.bytes_in += payload.size();
  if (extra_parts) return Drop(DropReason::kMalformed);
  MessageInfo info;
  if (auto verdict = reader_.Read(payload.data(), payload.size(), &info)) return Drop(*verdict);
  // With CURVE, libzmq tags each message with the user id our ZAP handler gave the key.
  const char* user = zmq_msg_gets(const_cast<zmq_msg_t*>(payload.handle()), "User-Id");
  Peer* peer = nullptr;
  if (auto verdict = peers_.Admit(routing_id.to_string(), info, user ? user : "", now_ms, &peer)) {
    return Drop(*verdict);
  }
  if (info.kind == MessageKind::kHeartbeat) return;  // for the broker only (LibAFL's rule)
  if (!info.to_node.empty()) {
    Peer* to = peers_.FindNode(*peer, info.to_node);
    if (to == nullptr || to == peer) return Drop(DropReason::kUnknownNode);
    return Deliver(*to, payload);
  }
  CampaignState& campaign = peers_.CampaignOf(*peer);
  if (info.dedup_key) {
    BoundedHashSet& seen = info.kind == MessageKind::kCrash ? campaign.crashes : campaign.inputs;
    if (!seen.Insert(*info.dedup_key)) return Drop(DropReason::kDuplicate);
  }
  for (Peer* member : campaign.members) {
    if (member != peer) Deliver(*member, payload);
  }
}

void BrokerImpl::Deliver(Peer& to, zmq::message_t& payload) {
  to.deliveries++;  // numbered even when dropped: the node sees the gap
  auto header = EncodeRelayHeader({session_, to.deliveries});
  try {
    if (!router_.send(zmq::buffer(to.routing_id),
                      zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
      return Drop(DropReason::kSlowPeer);  // its queue is full: never wait for it
    }
    // Once the first part is accepted, the rest of the message is too.
    router_.send(zmq::buffer(header), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    zmq::message_t body;
    body.copy(payload);  // shares the buffer: no copy of the bytes per receiver
    router_.send(body, zmq::send_flags::dontwait);
    counters_.messages_out++;
    counters_.bytes_out += payload.size();
  } catch (const zmq::error_t& e) {
    if (e.num() == EHOSTUNREACH) {
      unreachable_.push_back(to.routing_id);  // disconnected: forget it after this batch
    } else {
      spdlog::warn("broker: send to node '{}' failed: {}", to.node_id, e.what());
    }
  }
}

}  // namespace

Result<std::unique_ptr<Broker>> StartBroker(const BrokerOptions& options) {
  auto broker = std::make_unique<BrokerImpl>(options);
  Status started = broker->Start();
  if (!started.ok()) return started;
  return std::unique_ptr<Broker>(std::move(broker));
}

}  // namespace pollen::broker
