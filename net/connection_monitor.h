// Follows the state of a connecting ZeroMQ socket through libzmq's socket monitor: handshakes
// that succeeded (a new connection, or a reconnection after the peer restarted), handshakes
// refused by the peer's authentication, and disconnections. Not thread-safe.
#ifndef POLLEN_NET_CONNECTION_MONITOR_H_
#define POLLEN_NET_CONNECTION_MONITOR_H_

#include <cstdint>
#include <string>
#include <zmq.hpp>

#include "base/status.h"

namespace pollen::net {

class ConnectionMonitor {
 public:
  // Starts monitoring `socket` (of `context`) before it connects.
  ConnectionMonitor(zmq::context_t& context, zmq::socket_t& socket);

  zmq::socket_t& socket() { return pair_; }

  // What Drain saw.
  struct Events {
    uint64_t handshakes = 0;  // connections ready for messages
    uint64_t disconnects = 0;
    uint64_t auth_failures = 0;
  };

  // Reads every event waiting, without blocking.
  Events Drain();

  bool connected() const { return connected_; }

 private:
  zmq::socket_t pair_;
  bool connected_ = false;
};

}  // namespace pollen::net

#endif  // POLLEN_NET_CONNECTION_MONITOR_H_
