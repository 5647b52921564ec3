#include "controller/controller_status.h"

namespace pollen::controller {

std::string FormatStatus(const ControllerStatus& s) {
  std::string line = "campaigns " + std::to_string(s.campaigns) + " nodes " +
                     std::to_string(s.nodes_alive) + " alive " + std::to_string(s.nodes_lost) +
                     " lost | requests " + std::to_string(s.requests) + " errors " +
                     std::to_string(s.Errors());
  std::string detail;
  for (size_t i = 0; i < kNumErrorCodes; i++) {
    if (s.errors[i] == 0) continue;
    if (!detail.empty()) detail += ", ";
    detail +=
        std::string(ErrorCodeName(static_cast<ErrorCode>(i))) + " " + std::to_string(s.errors[i]);
  }
  if (!detail.empty()) line += " (" + detail + ")";
  line += " | replies dropped " + std::to_string(s.replies_dropped) + " | merges " +
          std::to_string(s.merges);
  if (s.merge_failures > 0) line += " (" + std::to_string(s.merge_failures) + " failed)";
  line += " | streams " + std::to_string(s.streams.active) + " active " +
          std::to_string(s.streams.completed) + " done " + std::to_string(s.streams.failed) +
          " failed";
  line += " | refused " + std::to_string(s.handshakes_refused);
  return line;
}

}  // namespace pollen::controller
