// The nightly's fuzzing step on one machine: N `pollen node` processes of the night's build,
// each registered with the controller, for the rest of the budget. The nodes send what they
// find to the controller as any node does (the merged corpus of the night's build, its
// crashes); this only starts them, watches them and stops them.
//
// Thread safety: none.
#ifndef POLLEN_NIGHTLY_NODE_FLEET_H_
#define POLLEN_NIGHTLY_NODE_FLEET_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "nightly/child_process.h"

namespace pollen::nightly {

struct FleetOptions {
  std::string pollen_bin;              // the `pollen` binary
  std::vector<std::string> node_args;  // TARGET, corpus directories and flags common to all
  std::string node_id_prefix;          // node K is PREFIX<K>
  std::string dir;                     // node K works in DIR/K and logs to DIR/K.log
  uint32_t nodes = 1;
  uint64_t seconds = 0;  // each node's --time
  // Called about every second with the seconds since the start; true stops the nodes (as
  // SIGTERM does: they save what they have and leave), e.g. on the nightly's own SIGTERM.
  std::function<bool(uint64_t elapsed_s)> tick;
};

struct NodeEnd {
  uint32_t index = 0;
  ChildExit exit;
  std::string log;
  bool ok() const { return !exit.timed_out && (exit.exit_code == 0 || exit.exit_code == 1); }
};

struct FleetRun {
  std::vector<NodeEnd> ends;
  uint64_t elapsed_s = 0;
  bool stopped = false;  // tick asked for the stop
};

// Starts the nodes; `started` gets their pids as soon as they run (to save them). Waits for
// them all: the budget, plus a grace of 60 s after which they are sent SIGTERM, then SIGKILL.
// Errors: a node cannot be started (those started are stopped first).
Result<FleetRun> RunFleet(const FleetOptions& options,
                          const std::function<void(const std::vector<int>&)>& started);

// Stops the processes of an earlier run that are still alive (a nightly that was killed
// leaves its nodes running): SIGTERM to each group whose command line holds
// `node_id_prefix`, then SIGKILL after 30 s.
void StopLeftoverNodes(const std::vector<int>& pids, const std::string& node_id_prefix);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_NODE_FLEET_H_
