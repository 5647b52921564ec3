// The nightly's cleanse (docs/nightly.md, "Crashes across nights"): every open crash of the
// campaign is run on the night's build, with its reproducer from the controller (from the
// crash table of the build that keeps it), and comes out reproducing (with the signature it
// fails with now), fixed, or unchecked (its reproducer could not be had). As ClusterFuzz's
// progression task, but on the controller's crashes.
#ifndef POLLEN_NIGHTLY_CLEANSE_H_
#define POLLEN_NIGHTLY_CLEANSE_H_

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_client.h"
#include "nightly/crash_ledger.h"

namespace pollen::nightly {

struct CleanseOptions {
  std::string campaign;
  std::string build_path;  // the night's fuzzing build
  // The night's sanitizer builds (name, path): a crash whose signature names one
  // (SanitizerOf) runs on it instead.
  std::vector<std::pair<std::string, std::string>> sanitizer_builds;
  uint32_t timeout_s = 10;
  uint32_t rss_limit_mb = 2048;
  int request_timeout_ms = 10000;
};

// The outcome of each entry, in order, all run on options.build_path. Errors: the build
// cannot be run at all (the message says why); a reproducer the controller does not give is
// "unchecked", not an error.
Result<std::vector<CleanseOutcome>> CleanseCrashes(controller::ControllerClient& client,
                                                   const std::vector<LedgerEntry>& open,
                                                   const CleanseOptions& options);

// Each entry on the build it was found with: the fuzzing build, or the sanitizer build its
// signature names (unchecked when the campaign has that sanitizer no more). A build that
// cannot run leaves its entries out and adds a line to *problems. Returns (entry, outcome)
// pairs, grouped by build.
std::vector<std::pair<LedgerEntry, CleanseOutcome>> CleanseOnTheirBuilds(
    controller::ControllerClient& client, const std::vector<LedgerEntry>& open,
    const CleanseOptions& options, std::vector<std::string>* problems);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_CLEANSE_H_
