#include "net/connection_monitor.h"

#include <atomic>
#include <cstring>

namespace pollen::net {
namespace {

std::string UniqueMonitorEndpoint() {
  static std::atomic<uint64_t> counter{0};
  return "inproc://pollen-monitor-" + std::to_string(counter.fetch_add(1));
}

}  // namespace

ConnectionMonitor::ConnectionMonitor(zmq::context_t& context, zmq::socket_t& socket)
    : pair_(context, zmq::socket_type::pair) {
  std::string endpoint = UniqueMonitorEndpoint();
  int events =
      ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
  // Fails only for an invalid socket or endpoint: a bug.
  POLLEN_CHECK(zmq_socket_monitor(socket.handle(), endpoint.c_str(), events) == 0);
  pair_.set(zmq::sockopt::linger, 0);
  pair_.connect(endpoint);
}

ConnectionMonitor::Events ConnectionMonitor::Drain() {
  Events seen;
  while (true) {
    // An event is two frames: u16 event and u32 value, then the endpoint.
    zmq::message_t event, endpoint;
    if (!pair_.recv(event, zmq::recv_flags::dontwait)) break;
    if (event.more()) (void)pair_.recv(endpoint, zmq::recv_flags::dontwait);
    if (event.size() < sizeof(uint16_t)) continue;
    uint16_t id;
    std::memcpy(&id, event.data(), sizeof(id));
    switch (id) {
      case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
        seen.handshakes++;
        connected_ = true;
        break;
      case ZMQ_EVENT_DISCONNECTED:
        seen.disconnects++;
        connected_ = false;
        break;
      case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
        seen.auth_failures++;
        break;
    }
  }
  return seen;
}

}  // namespace pollen::net
