// The global controller (docs/controller.md): the cluster's memory and its front door.
//
// One ROUTER socket; nodes and developer hosts connect DEALERs and send requests, one
// ControllerMessage per frame (schema/controller.capnp); each gets one reply with its
// request id. Behind it: the campaign and node registries, one corpus store per campaign
// build holding the merged corpus and the triaged crashes, all under --data, all reopened
// as they were after a restart. With CURVE every connection is authenticated and encrypted,
// and only keys in the authorised-keys directory get in (the broker's ZAP handler and
// rules). Every frame from outside is validated; a bad one gets an error reply and is
// counted, never more.
//
// The service loop (Run) answers requests, serves NamedByteSequence streams between them
// (corpus pulls and pushes, per credit: controller/stream_server.h), marks silent nodes lost,
// saves node records, and hands corpus merges to a maintenance thread: every merge_every_ms
// for each corpus that grew, and on a developer's mergeCorpus request (answered when the
// merge ends).
#ifndef POLLEN_CONTROLLER_CONTROLLER_H_
#define POLLEN_CONTROLLER_CONTROLLER_H_

#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "controller/controller_options.h"
#include "controller/controller_status.h"
#include "ops/ops_server.h"

namespace pollen::controller {

class Controller {
 public:
  virtual ~Controller() = default;

  // The endpoint it listens on, with the port resolved ("tcp://127.0.0.1:41234").
  virtual std::string endpoint() const = 0;

  // Serves until Stop() is called or should_stop (if given) returns true; both are checked
  // at least every 100 ms. Call from one thread at a time. On return, node records are
  // saved; a merge that is running is finished when the controller is destroyed.
  virtual void Run(const std::function<bool()>& should_stop = nullptr) = 0;

  // Makes Run return. Thread-safe.
  virtual void Stop() = 0;

  // The counters as of the last loop turn. Thread-safe.
  virtual ControllerStatus status() const = 0;

  // The dashboard's answer to a GET under /api/ (controller/dashboard_api.h), computed by
  // Run's loop between requests; 503 when it is not running or too busy, 504 when it did
  // not answer within a few seconds. Thread-safe (an HTTP thread calls it).
  virtual ops::HttpReply AskView(const ops::HttpRequest& request) = 0;
};

// Prepares the data directory, opens the registry, binds the socket (and the ZAP handler for
// CURVE) and returns a controller ready to Run. Errors: bad options, unreadable keys, a data
// directory that cannot be used or is locked by another controller, an address that is
// invalid or in use.
Result<std::unique_ptr<Controller>> StartController(const ControllerOptions& options);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CONTROLLER_H_
