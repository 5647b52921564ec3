#include "controller/client/controller_client.h"

#include <algorithm>
#include <cstdio>
#include <zmq.hpp>

#include "base/clock.h"
#include "controller/client/controller_codec.h"
#include "net/connection_monitor.h"
#include "net/socket_options.h"
#include "net/zmq_status.h"

namespace pollen::controller {
namespace {

constexpr int kReconnectMs = 100;
constexpr int kReconnectMaxMs = 2000;
constexpr int kHighWaterMark = 64;  // one request at a time: a few stale replies at most

std::string Seconds(int ms) {
  char text[32];
  if (ms % 1000 == 0) {
    std::snprintf(text, sizeof(text), "%d s", ms / 1000);
  } else {
    std::snprintf(text, sizeof(text), "%.1f s", ms / 1000.0);
  }
  return text;
}

class ControllerClientImpl : public ControllerClient {
 public:
  explicit ControllerClientImpl(const ControllerClientOptions& options)
      : options_(options),
        codec_(options.limits),
        context_(1),
        dealer_(context_, zmq::socket_type::dealer),
        monitor_(context_, dealer_) {}

  Status Connect();
  Result<Reply> Request(const controller::Request& request, int timeout_ms) override;
  bool refused() const override { return refused_; }
  const std::string& endpoint() const override { return options_.controller; }

 private:
  // Follows the connection; false once the key was refused.
  bool Follow();
  // Waits up to `ms` for the dealer (when `for_reply`) or the monitor to have something.
  void Wait(uint64_t ms, bool for_reply);
  Status Refused() const;
  Status TimedOut(int timeout_ms) const;

  ControllerClientOptions options_;
  ControllerCodec codec_;
  zmq::context_t context_;  // before the sockets: destroyed after them
  zmq::socket_t dealer_;
  net::ConnectionMonitor monitor_;
  uint64_t next_id_ = 0;
  bool ever_connected_ = false;
  bool refused_ = false;
};

Status ControllerClientImpl::Connect() {
  const bool curve = !options_.keys.secret_key.empty();
  if (curve && options_.controller_public_key.empty()) {
    return Status::Error("CURVE needs the controller's public key");
  }
  return net::ZmqCall("cannot connect to the controller at " + options_.controller, [&] {
    net::SetSharedSocketOptions(dealer_, kHighWaterMark, options_.limits.max_message_bytes);
    // Sends fail instead of queueing while no connection is up (see the header).
    dealer_.set(zmq::sockopt::immediate, 1);
    dealer_.set(zmq::sockopt::reconnect_ivl, kReconnectMs);
    dealer_.set(zmq::sockopt::reconnect_ivl_max, kReconnectMaxMs);
    if (curve) {
      net::SetCurveClient(dealer_, options_.keys, options_.controller_public_key);
    }
    dealer_.connect(options_.controller);
  });
}

bool ControllerClientImpl::Follow() {
  net::ConnectionMonitor::Events events = monitor_.Drain();
  if (events.handshakes > 0) ever_connected_ = true;
  if (events.auth_failures > 0) refused_ = true;
  return !refused_;
}

void ControllerClientImpl::Wait(uint64_t ms, bool for_reply) {
  zmq::pollitem_t items[2] = {{monitor_.socket().handle(), 0, ZMQ_POLLIN, 0},
                              {dealer_.handle(), 0, ZMQ_POLLIN, 0}};
  // Interrupted or not, the caller goes round again; its deadline still holds.
  (void)net::Poll(items, for_reply ? 2 : 1, std::chrono::milliseconds(ms));
}

Status ControllerClientImpl::Refused() const {
  return Status::Error(RefusedKeyText(options_.controller));
}

Status ControllerClientImpl::TimedOut(int timeout_ms) const {
  return Status::Error(NoAnswerText(options_.controller, timeout_ms, ever_connected_,
                                    !options_.keys.secret_key.empty()));
}

Result<Reply> ControllerClientImpl::Request(const controller::Request& request, int timeout_ms) {
  timeout_ms = std::max(timeout_ms, 0);
  if (!Follow()) return Refused();
  const uint64_t id = ++next_id_;
  std::vector<uint8_t> bytes = ControllerCodec::EncodeRequest(id, request);
  if (bytes.size() > options_.limits.max_message_bytes) {
    return Status::Error("a request of " + std::to_string(bytes.size()) +
                         " bytes is over the message limit of " +
                         std::to_string(options_.limits.max_message_bytes));
  }
  const uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(timeout_ms);
  // Send as soon as a connection is up.
  while (true) {
    bool sent = false;
    Status send = net::ZmqCallWith(
        [&] { return "cannot send to the controller at " + options_.controller; },
        [&] { sent = dealer_.send(zmq::buffer(bytes), zmq::send_flags::dontwait).has_value(); });
    // Interrupted by a signal: tried again (ETERM, the context's end, is not seen here: the
    // client owns its context).
    if (!send.ok() && send.code() != StatusCode::kInterrupted) return send;
    if (sent) break;
    if (!Follow()) return Refused();
    uint64_t now = base::MonotonicMs();
    if (now >= deadline) return TimedOut(timeout_ms);
    Wait(std::min<uint64_t>(deadline - now, 50), false);
  }
  // Wait for the reply with this id.
  while (true) {
    zmq::message_t frame;
    while (dealer_.recv(frame, zmq::recv_flags::dontwait)) {
      bool extra = false;
      while (frame.more()) {  // one frame per reply: anything more is dropped with it
        zmq::message_t rest;
        if (!dealer_.recv(rest, zmq::recv_flags::dontwait)) break;
        extra = true;
        if (!rest.more()) break;
      }
      if (extra) continue;
      auto decoded = codec_.DecodeReply(frame.data(), frame.size());
      if (auto* error = std::get_if<DecodeError>(&decoded)) {
        if (error->request_id != id) continue;  // garbage, or a late reply to an old request
        return Status::Error("controller at " + options_.controller +
                             " sent a reply that cannot be read: " + error->message);
      }
      DecodedReply& reply = std::get<DecodedReply>(decoded);
      if (reply.request_id == id) return std::move(reply.reply);
      // A late reply to a request that timed out: dropped.
    }
    if (!Follow()) return Refused();
    uint64_t now = base::MonotonicMs();
    if (now >= deadline) return TimedOut(timeout_ms);
    Wait(deadline - now, true);
  }
}

}  // namespace

std::string RefusedKeyText(const std::string& endpoint) {
  return "controller at " + endpoint +
         " refused this key: add its .pub file to the controller's authorized/ directory, then "
         "try again";
}

std::string NoAnswerText(const std::string& endpoint, int timeout_ms, bool ever_connected,
                         bool curve) {
  const char* hint =
      ever_connected ? ""
      : curve        ? " (no connection was made: is it running at that address, and is its public "
                       "key the one given?)"
              : " (no connection was made: is it running at that address, and in plain text?)";
  return "controller at " + endpoint + " did not answer within " + Seconds(timeout_ms) + hint;
}

Result<ControllerClientOptions> ClientOptionsFromKeyFiles(const std::string& controller,
                                                          const std::string& key_prefix,
                                                          const std::string& controller_pub) {
  ControllerClientOptions options;
  options.controller = controller;
  auto keys = net::ReadSecretKey(net::SecretKeyFile(key_prefix));
  if (!keys.ok()) return keys.status();
  auto server = net::ReadPublicKey(controller_pub);
  if (!server.ok()) return server.status();
  options.keys = *keys;
  options.controller_public_key = *server;
  return options;
}

Result<std::unique_ptr<ControllerClient>> ConnectController(
    const ControllerClientOptions& options) {
  auto client = std::make_unique<ControllerClientImpl>(options);
  if (Status s = client->Connect(); !s.ok()) return s;
  return std::unique_ptr<ControllerClient>(std::move(client));
}

}  // namespace pollen::controller
