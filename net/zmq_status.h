// ZeroMQ's errors as Statuses with a class (base/status.h's StatusCode): the one place where
// an errno of libzmq becomes something a caller can act on (docs/decisions.md, "the wire
// layer"). cppzmq throws zmq::error_t from socket calls; code above net/ calls these instead
// of catching it, except where one errno means something of its own at that call (a reply
// to a peer that has gone: EHOSTUNREACH).
#ifndef POLLEN_NET_ZMQ_STATUS_H_
#define POLLEN_NET_ZMQ_STATUS_H_

#include <chrono>
#include <string>
#include <string_view>
#include <zmq.hpp>

#include "base/status.h"

namespace pollen::net {

// The class of a libzmq errno: EAGAIN kOverloaded (a full queue), EINTR and ETERM
// kInterrupted, a peer or address that is not there kUnavailable, a malformed endpoint or
// option kInvalid, anything else kFailed.
StatusCode ZmqCode(int errnum);

// "`what`: libzmq's message", classed by ZmqCode.
Status ZmqStatus(std::string_view what, const zmq::error_t& error);

// Runs `calls` (socket calls that may throw zmq::error_t); a throw becomes ZmqStatus(what).
template <typename Calls>
Status ZmqCall(std::string_view what, Calls&& calls) {
  try {
    calls();
  } catch (const zmq::error_t& e) {
    return ZmqStatus(what, e);
  }
  return Status::Ok();
}

// As ZmqCall, with the text made by `what()` only on an error: for calls on a hot path (a
// stream's every message), where building it each time would cost an allocation.
template <typename What, typename Calls>
Status ZmqCallWith(What&& what, Calls&& calls) {
  try {
    calls();
  } catch (const zmq::error_t& e) {
    return ZmqStatus(what(), e);
  }
  return Status::Ok();
}

// zmq::poll for at most `timeout`. A poll cut short by a signal is ok (the caller goes round
// again and its deadline still holds); other errors are returned.
Status Poll(zmq::pollitem_t* items, size_t count, std::chrono::milliseconds timeout);

// Binds a server socket to `endpoint`; a malformed address's error (EINVAL, EPROTONOSUPPORT,
// ENODEV) shows the forms an address takes, with `example_port`.
Status Bind(zmq::socket_t& socket, const std::string& endpoint, int example_port);

}  // namespace pollen::net

#endif  // POLLEN_NET_ZMQ_STATUS_H_
