#include "net/zmq_status.h"

#include <cerrno>

namespace pollen::net {

StatusCode ZmqCode(int errnum) {
  switch (errnum) {
    case EAGAIN:
      return StatusCode::kOverloaded;
    case EINTR:
    case ETERM:
      return StatusCode::kInterrupted;
    case EHOSTUNREACH:
    case ENOTCONN:
    case ECONNREFUSED:
    case ECONNRESET:
    case ENETDOWN:
    case ENETUNREACH:
    case EADDRINUSE:
    case EADDRNOTAVAIL:
      return StatusCode::kUnavailable;
    case EINVAL:
    case EPROTONOSUPPORT:
    case ENODEV:
    case ENOCOMPATPROTO:
    case EMSGSIZE:
      return StatusCode::kInvalid;
    default:
      return StatusCode::kFailed;
  }
}

Status ZmqStatus(std::string_view what, const zmq::error_t& error) {
  return Status::Error(ZmqCode(error.num()), std::string(what) + ": " + error.what());
}

Status Poll(zmq::pollitem_t* items, size_t count, std::chrono::milliseconds timeout) {
  try {
    zmq::poll(items, count, timeout);
  } catch (const zmq::error_t& e) {
    if (e.num() != EINTR) return ZmqStatus("poll", e);
  }
  return Status::Ok();
}

Status Bind(zmq::socket_t& socket, const std::string& endpoint, int example_port) {
  try {
    socket.bind(endpoint);
  } catch (const zmq::error_t& e) {
    Status s = ZmqStatus("cannot listen on " + endpoint, e);
    // The errnos of an address that is not one (the hint the broker and the controller gave).
    if (e.num() != EINVAL && e.num() != EPROTONOSUPPORT && e.num() != ENODEV) return s;
    const std::string port = std::to_string(example_port);
    return Status::Error(StatusCode::kInvalid,
                         s.message() + " (an address looks like tcp://*:" + port +
                             ", tcp://10.0.0.5:" + port + " or tcp://127.0.0.1:*)");
  }
  return Status::Ok();
}

}  // namespace pollen::net
