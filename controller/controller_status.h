// The controller's counters, for its status line and for tests (Controller::status()).
#ifndef POLLEN_CONTROLLER_CONTROLLER_STATUS_H_
#define POLLEN_CONTROLLER_CONTROLLER_STATUS_H_

#include <array>
#include <cstdint>
#include <string>

#include "controller/client/controller_message.h"

namespace pollen::controller {

// The streams' counters (controller/stream_server.h).
struct StreamCounters {
  uint64_t active = 0;
  uint64_t opened = 0;          // pulls and pushes started
  uint64_t completed = 0;       // acknowledged by the receiver
  uint64_t failed = 0;          // ended by an error on either side, or silence (expired)
  uint64_t expired = 0;         // ... by silence
  uint64_t refused = 0;         // opens refused: too many streams, unknown resource, bad credit
  uint64_t bytes_sent = 0;      // stream bytes in chunks sent (pulls)
  uint64_t bytes_received = 0;  // stream bytes in chunks received (pushes)
};

struct ControllerStatus {
  uint64_t requests = 0;  // frames received (garbage included)
  uint64_t replies = 0;   // replies handed to ZeroMQ
  // Requests answered with an error, by code (controller_message.h's ErrorCode order).
  std::array<uint64_t, kNumErrorCodes> errors{};
  uint64_t replies_dropped = 0;  // the peer was gone or its queue full
  uint64_t handshakes_accepted = 0;
  uint64_t handshakes_refused = 0;  // CURVE clients whose key is not authorised
  uint64_t campaigns = 0;
  uint64_t nodes_alive = 0;
  uint64_t nodes_lost = 0;
  uint64_t merges = 0;  // corpus merges done (periodic and on demand)
  uint64_t merge_failures = 0;
  uint64_t merge_ms_total = 0;  // time the merges done took, together
  uint64_t merge_ms_last = 0;   // that of the last one
  StreamCounters streams;

  uint64_t Errors() const {
    uint64_t n = 0;
    for (uint64_t e : errors) n += e;
    return n;
  }
  uint64_t ErrorsOf(ErrorCode code) const { return errors[static_cast<size_t>(code)]; }
};

// One line: "campaigns 2 nodes 5 alive 1 lost | requests 1234 errors 2 (malformed 2) | ...".
std::string FormatStatus(const ControllerStatus& status);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CONTROLLER_STATUS_H_
