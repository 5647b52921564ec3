// The client side of the controller's protocol, for nodes and for the developer-host
// commands: one DEALER connection, requests answered one at a time.
//
// Request sends one request and waits for the reply that carries its id, up to a time
// limit; replies to earlier requests that came too late are dropped. It never queues a
// request for later: while no connection is up, it waits (within the limit) for one, so that
// a request that timed out is not delivered behind the caller's back. The errors are meant
// to be shown as they are:
//   "controller at tcp://host:7200 did not answer within 5 s (no connection was made: is it
//    running there, and is its public key the one given?)"
//   "controller at tcp://host:7200 refused this key: add its .pub file to the controller's
//    authorized/ directory"
// A refusal is final for this client (libzmq does not retry a handshake that the server's
// authentication refused): once the key is authorised, connect again.
//
// Thread safety: none; one thread uses a client.
#ifndef POLLEN_CONTROLLER_CLIENT_CONTROLLER_CLIENT_H_
#define POLLEN_CONTROLLER_CLIENT_CONTROLLER_CLIENT_H_

#include <memory>
#include <string>
#include <type_traits>
#include <variant>

#include "base/status.h"
#include "controller/client/controller_message.h"
#include "net/curve_keys.h"

namespace pollen::controller {

struct ControllerClientOptions {
  std::string controller;  // the controller's endpoint, e.g. tcp://controller:7200
  // CURVE: this host's key pair and the controller's public key (Z85). All empty: plain text.
  net::CurveKeyPair keys;
  std::string controller_public_key;
  ControllerLimits limits;
};

// Options with keys read from files: PREFIX.key (pollen keygen PREFIX; a key_prefix that
// already ends in ".key" is the file itself, as a Kubernetes manifest names it) and the
// controller's .pub file. Errors name the file that cannot be read.
Result<ControllerClientOptions> ClientOptionsFromKeyFiles(const std::string& controller,
                                                          const std::string& key_prefix,
                                                          const std::string& controller_pub);

class ControllerClient {
 public:
  virtual ~ControllerClient() = default;

  // Sends `request` and returns the controller's reply, which may be an ErrorReply (the
  // controller's answer: unknown node, invalid name...). Errors: no reply within
  // timeout_ms, the key refused, a request over the message limit, a reply that cannot be
  // read.
  virtual Result<Reply> Request(const controller::Request& request, int timeout_ms) = 0;

  // Request, for callers that expect one kind of reply: an ErrorReply becomes an error
  // "controller at ADDR: MESSAGE", another kind an error too.
  template <typename T>
  Result<T> Call(const controller::Request& request, int timeout_ms);

  // The handshake was refused: this key is not authorised.
  virtual bool refused() const = 0;
  virtual const std::string& endpoint() const = 0;
};

// The errors a client words for the two ways a connection fails, shared by every connection
// to the controller (requests, streams): "controller at ADDR refused this key: ..." and
// "controller at ADDR did not answer within N s (no connection was made: ...)" (the hint
// only when no connection was ever made; `curve`: keys were given).
std::string RefusedKeyText(const std::string& endpoint);
std::string NoAnswerText(const std::string& endpoint, int timeout_ms, bool ever_connected,
                         bool curve);

// Creates the connection, which completes in the background (Request waits for it).
// Errors: invalid keys or endpoint.
Result<std::unique_ptr<ControllerClient>> ConnectController(const ControllerClientOptions& options);

template <typename T>
Result<T> ControllerClient::Call(const controller::Request& request, int timeout_ms) {
  Result<Reply> reply = Request(request, timeout_ms);
  if (!reply.ok()) return reply.status();
  if (auto* error = std::get_if<ErrorReply>(&reply.value())) {
    return Status::Error("controller at " + endpoint() + ": " + error->message);
  }
  if (auto* value = std::get_if<T>(&reply.value())) return std::move(*value);
  return Status::Error("controller at " + endpoint() + " answered with another kind of reply");
}

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CLIENT_CONTROLLER_CLIENT_H_
