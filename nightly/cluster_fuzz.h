// The nightly's fuzzing step with `nodes: cluster` (docs/nightly.md, "What one night does",
// step 3): the night's build pushed to the controller, which assigns it to the nodes that
// follow the campaign's builds; the carried corpus and the seeds pushed as the campaign's
// pushed inputs; the budget waited out; then the build's nodes counted from the
// controller's status (those it lost died).
//
// Thread safety: none.
#ifndef POLLEN_NIGHTLY_CLUSTER_FUZZ_H_
#define POLLEN_NIGHTLY_CLUSTER_FUZZ_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_client.h"
#include "nightly/night_state.h"

namespace pollen::nightly {

struct ClusterFuzzOptions {
  controller::ControllerClientOptions client;
  std::string campaign;
  std::string night;
  std::string build_id;                 // of `fuzz_build`
  std::string target;                   // the campaign's target name
  std::string fuzz_build;               // the executable pushed
  std::vector<std::string> input_dirs;  // pushed as the campaign's inputs (absent: skipped)
  uint64_t budget_s = 0;
  int request_timeout_ms = 10000;
  std::function<bool()> should_stop;  // true stops the wait (saved; false is returned)
  std::function<Status()> save;       // saves the night's state (every 5 s, and at a stop)
};

// Pushes (unless fuzz->elapsed_s shows a resumed wait) and waits for what is left of the
// budget, keeping fuzz->elapsed_s. False: should_stop ended the wait. Errors: the
// controller's, the build's file: the night is run again.
Result<bool> FuzzOnCluster(const ClusterFuzzOptions& options, FuzzStep* fuzz);

// Counts the nodes of build `build_id` in fuzz->nodes_started, those the controller lost in
// nodes_died (with a line each in node_failures). Errors: the controller's.
Status CountClusterNodes(controller::ControllerClient& client, const ClusterFuzzOptions& options,
                         FuzzStep* fuzz);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_CLUSTER_FUZZ_H_
