// The ZeroMQ socket options the broker's ROUTER and each node's DEALER share, so that both
// ends of a connection agree on them (docs/cluster.md, "Back-pressure" and "Dead or stuck
// nodes"), and the CURVE setup of every server (broker, controller) and client.
#ifndef POLLEN_NET_SOCKET_OPTIONS_H_
#define POLLEN_NET_SOCKET_OPTIONS_H_

#include <cstddef>
#include <string>
#include <zmq.hpp>

#include "net/curve_keys.h"

namespace pollen::net {

// ZMTP heartbeats: a connection that answers no ping for kZmtpTimeoutMs is closed by
// libzmq, so a dead peer's queue is freed without waiting for TCP.
inline constexpr int kZmtpHeartbeatMs = 2000;
inline constexpr int kZmtpTimeoutMs = 6000;

// Sets linger 0, the high-water marks (messages queued per peer in each direction), the
// heartbeats, and the largest message libzmq reads: twice `max_message_bytes`, so that a
// message up to twice the limit is read, counted as oversized and dropped, and beyond that
// the connection is closed instead of buffered. Throws zmq::error_t like socket_t::set.
inline void SetSharedSocketOptions(zmq::socket_t& socket, int high_water_mark,
                                   size_t max_message_bytes) {
  socket.set(zmq::sockopt::linger, 0);
  socket.set(zmq::sockopt::sndhwm, high_water_mark);
  socket.set(zmq::sockopt::rcvhwm, high_water_mark);
  socket.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(max_message_bytes) * 2);
  socket.set(zmq::sockopt::heartbeat_ivl, kZmtpHeartbeatMs);
  socket.set(zmq::sockopt::heartbeat_timeout, kZmtpTimeoutMs);
  socket.set(zmq::sockopt::heartbeat_ttl, kZmtpTimeoutMs);
}

// Makes `socket` a CURVE server with `secret_key` (Z85), its clients checked by the ZAP
// handler (net/zap_handler.h) of the "pollen" domain. Throws zmq::error_t.
inline void SetCurveServer(zmq::socket_t& socket, const std::string& secret_key) {
  socket.set(zmq::sockopt::curve_server, 1);
  socket.set(zmq::sockopt::curve_secretkey, secret_key);
  socket.set(zmq::sockopt::zap_domain, "pollen");
}

// Makes `socket` a CURVE client with `keys`, of the server whose public key is
// `server_public_key` (Z85). Throws zmq::error_t.
inline void SetCurveClient(zmq::socket_t& socket, const CurveKeyPair& keys,
                           const std::string& server_public_key) {
  socket.set(zmq::sockopt::curve_serverkey, server_public_key);
  socket.set(zmq::sockopt::curve_publickey, keys.public_key);
  socket.set(zmq::sockopt::curve_secretkey, keys.secret_key);
}

}  // namespace pollen::net

#endif  // POLLEN_NET_SOCKET_OPTIONS_H_
