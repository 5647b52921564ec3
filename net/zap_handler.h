// The broker's ZAP handler (ZeroMQ RFC 27, as zguide ch. 5 and czmq's zauth do it): decides,
// for every CURVE handshake on the broker's sockets, whether the client's public key is
// authorised. It answers on a REP socket bound to inproc://zeromq.zap.01 in the broker's
// context, polled by the broker's loop beside its ROUTER socket.
//
// The authorised keys are the *.pub files of one directory, read again (at most once a
// second) when a handshake comes, so adding a node needs no broker restart. If the directory
// cannot be read, the keys read last stay in force.
#ifndef POLLEN_NET_ZAP_HANDLER_H_
#define POLLEN_NET_ZAP_HANDLER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <zmq.hpp>

#include "base/status.h"

namespace pollen::net {

class ZapHandler {
 public:
  // Reads the keys of `authorized_dir` (an error if it cannot be read) and binds the ZAP
  // endpoint in `context`. Must run before any CURVE server socket of `context` binds:
  // without a handler, libzmq lets every client in.
  static Result<std::unique_ptr<ZapHandler>> Start(zmq::context_t& context,
                                                   std::string authorized_dir);

  zmq::socket_t& socket() { return socket_; }

  // Answers every request waiting on the socket, without blocking.
  void HandlePending();

  size_t authorized_keys() const { return keys_.size(); }
  uint64_t accepted() const { return accepted_; }
  uint64_t refused() const { return refused_; }

 private:
  ZapHandler(zmq::context_t& context, std::string dir, std::map<std::string, std::string> keys);
  void Reload();
  // Handles one request; false when none was waiting.
  bool HandleOne();

  zmq::socket_t socket_;
  std::string dir_;
  std::map<std::string, std::string> keys_;  // Z85 public key -> file name without .pub
  uint64_t last_reload_ms_ = 0;
  std::set<std::string> refused_keys_;  // logged once each
  uint64_t accepted_ = 0;
  uint64_t refused_ = 0;
};

}  // namespace pollen::net

#endif  // POLLEN_NET_ZAP_HANDLER_H_
