// The receiving end of a push stream in the controller (controller/stream_server.h): the
// records of the stream, then the end. Two kinds: a `pollen corpus push` into the
// campaign's pushed corpus (controller/push_sink.h), and a node's crash whose reproducer
// does not fit in a message (controller/crash_push_sink.h).
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_PUSH_TARGET_H_
#define POLLEN_CONTROLLER_PUSH_TARGET_H_

#include <string>

#include "base/status.h"
#include "transfer/stream_receiver.h"

namespace pollen::controller {

class PushTarget : public transfer::RecordSink {
 public:
  // The push ended: `complete` when every record arrived. The client is told that the push
  // is complete only after an ok Finish(true); an error ends the stream with it instead.
  virtual Status Finish(bool complete) = 0;

  // What the push brought, for the log ("12 new, 3 already pushed").
  virtual std::string Summary() const = 0;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_PUSH_TARGET_H_
