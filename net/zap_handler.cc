#include "net/zap_handler.h"

#include <spdlog/spdlog.h>

#include <vector>

#include "base/clock.h"
#include "net/curve_keys.h"
#include "net/zmq_status.h"

namespace pollen::net {
namespace {

constexpr char kZapEndpoint[] = "inproc://zeromq.zap.01";
constexpr uint64_t kReloadIntervalMs = 1000;
constexpr size_t kMaxRefusedKeysLogged = 1024;

}  // namespace

Result<std::unique_ptr<ZapHandler>> ZapHandler::Start(zmq::context_t& context,
                                                      std::string authorized_dir) {
  auto keys = ReadAuthorizedKeys(authorized_dir);
  if (!keys.ok()) return keys.status();
  std::unique_ptr<ZapHandler> handler(
      new ZapHandler(context, std::move(authorized_dir), std::move(keys.value())));
  Status bound =
      ZmqCall("cannot start the ZAP handler", [&] { handler->socket_.bind(kZapEndpoint); });
  if (!bound.ok()) return bound;
  handler->last_reload_ms_ = base::MonotonicMs();
  return handler;
}

ZapHandler::ZapHandler(zmq::context_t& context, std::string dir,
                       std::map<std::string, std::string> keys)
    : socket_(context, zmq::socket_type::rep), dir_(std::move(dir)), keys_(std::move(keys)) {
  socket_.set(zmq::sockopt::linger, 0);
}

void ZapHandler::Reload() {
  uint64_t now = base::MonotonicMs();
  if (now - last_reload_ms_ < kReloadIntervalMs) return;
  last_reload_ms_ = now;
  auto keys = ReadAuthorizedKeys(dir_);
  if (!keys.ok()) {
    spdlog::warn("keeping the {} authorised keys read before: {}", keys_.size(),
                 keys.status().message());
    return;
  }
  if (keys->size() != keys_.size()) spdlog::info("{} authorised keys in {}", keys->size(), dir_);
  keys_ = std::move(keys.value());
}

void ZapHandler::HandlePending() {
  while (HandleOne()) {
  }
}

bool ZapHandler::HandleOne() {
  // Request: version, request id, domain, address, routing id, mechanism, credentials...
  std::vector<zmq::message_t> frames;
  zmq::message_t frame;
  if (!socket_.recv(frame, zmq::recv_flags::dontwait)) return false;
  frames.push_back(std::move(frame));
  while (frames.back().more()) {
    zmq::message_t next;
    if (!socket_.recv(next, zmq::recv_flags::dontwait)) break;  // parts arrive together
    frames.push_back(std::move(next));
  }
  std::string request_id = frames.size() > 1 ? frames[1].to_string() : "";
  std::string address = frames.size() > 3 ? frames[3].to_string() : "?";
  std::string status = "400", text = "no such key", user;
  if (frames.size() < 7 || frames[0].to_string() != "1.0") {
    text = "malformed ZAP request";
  } else if (frames[5].to_string() != "CURVE" || frames[6].size() != 32) {
    text = "CURVE required";
  } else {
    char z85[41];
    zmq_z85_encode(z85, static_cast<const uint8_t*>(frames[6].data()), 32);
    Reload();
    auto it = keys_.find(z85);
    if (it != keys_.end()) {
      status = "200";
      text = "OK";
      user = it->second;
      accepted_++;
      spdlog::info("node key '{}' accepted from {}", user, address);
    } else if (refused_keys_.size() < kMaxRefusedKeysLogged && refused_keys_.insert(z85).second) {
      spdlog::warn("refused a client from {}: its key {} is not authorised", address, z85);
    }
  }
  if (status != "200") refused_++;
  // Reply: version, request id, status code, status text, user id, metadata.
  try {
    socket_.send(zmq::buffer(std::string("1.0")), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(request_id), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(status), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(text), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(user), zmq::send_flags::sndmore);
    socket_.send(zmq::message_t(), zmq::send_flags::none);
  } catch (const zmq::error_t& e) {
    spdlog::warn("ZAP reply failed: {}", e.what());
  }
  return true;
}

}  // namespace pollen::net
