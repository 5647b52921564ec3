// The nightly's sanitizer builds (campaign `builds.sanitizers`; docs/nightly.md, "What one
// night does", step 6): the merged corpus run once through each. What fails there is
// reported to the controller as a crash of the night's build whose signature is
// "NAME-SIGNATURE" (the night registers as a node for it), so that the controller keeps
// the reproducer and the report, the ledger and the webhook treat it as any crash; the next
// cleanse runs it on that sanitizer's build (SanitizerOf).
//
// Thread safety: none.
#ifndef POLLEN_NIGHTLY_SANITIZER_BUILDS_H_
#define POLLEN_NIGHTLY_SANITIZER_BUILDS_H_

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_client.h"
#include "nightly/night_state.h"

namespace pollen::nightly {

struct SanitizeOptions {
  controller::ControllerClientOptions client;  // for the crash streams
  std::string campaign;
  std::string target;
  std::string build_id;  // the night's fuzzing build, whose crashes these become
  std::string node_id;   // the night's, as it registers to report them
  std::vector<std::pair<std::string, std::string>> builds;  // (name, path)
  uint32_t timeout_s = 10;
  uint32_t rss_limit_mb = 2048;
  int request_timeout_ms = 10000;
};

// Runs every file of `corpus_dir` on each build and reports what fails, once per
// signature. A build that cannot run is a line in *problems, not an error. Errors: the
// corpus cannot be read, the controller's (the step is run again).
Result<SanitizeStep> RunSanitizerBuilds(controller::ControllerClient& client,
                                        const SanitizeOptions& options,
                                        const std::string& corpus_dir,
                                        std::vector<std::string>* problems);

// The sanitizer build an open crash belongs to: its signature's "NAME-" prefix, or "" for
// the fuzzing build's crashes (whose signatures are hex digits).
std::string SanitizerOf(const std::string& signature);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_SANITIZER_BUILDS_H_
