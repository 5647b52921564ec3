// One night of a nightly campaign (docs/nightly.md): `pollen nightly` is this, with flags.
//
// In order, each step saved in STATE/<campaign>/<night>/night.json when done, so that a
// night that was killed resumes where it stopped (running it again ends with the same
// report):
//   1. carry: the night's build id; when the build is new to the controller (or its merged
//      corpus is empty), the merged corpus of the build before it is pulled into carried/,
//      for the nodes to run once on the new build (what they keep joins the new build's
//      merged corpus with the features measured on it). Pushed inputs reach the nodes as
//      always. Nothing learnt on earlier nights is lost.
//   2. cleanse: every open crash (the previous night's ledger, and the crashes the
//      controller keeps for earlier builds) run on the new build: reproduces or fixed.
//   3. fuzz: `nodes` local `pollen node`s for the rest of the budget (--keep-going); or,
//      with `nodes: cluster`, the build pushed to the controller for the nodes that follow
//      the campaign's builds, and the budget waited out.
//   4. merge: the controller's merge of the night's corpus.
//   5. coverage: the merged corpus through the coverage build, with llvm-cov.
//   5b. sanitize: the merged corpus through each sanitizer build; what fails is reported as
//      a crash "NAME-SIG" of the night's build (and cleansed on that sanitizer's build).
//   6. report: report.json and report.md (night_report.h), and crashes/ with the new
//      crashes' reproducers.
// A step that fails for reasons outside Pollen's control (a build that cannot run, a merge
// the controller refused) is a problem of the night, written in the report (exit code 3); a
// controller that cannot be reached stops the night with an error (run it again).
#ifndef POLLEN_NIGHTLY_NIGHT_RUNNER_H_
#define POLLEN_NIGHTLY_NIGHT_RUNNER_H_

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_client.h"
#include "nightly/campaign_file.h"

namespace pollen::nightly {

struct NightOptions {
  NightlyCampaign campaign;
  controller::ControllerClientOptions client;
  std::vector<std::string> node_flags;  // how the nodes reach the controller (--controller=...)
  std::string state_dir;                // nights go in STATE/<campaign>/<night>/
  std::string night;                    // YYYY-MM-DD
  std::string pollen_bin;               // the `pollen` the nodes run
  int request_timeout_ms = 10000;
  int merge_timeout_ms = 3600 * 1000;
  // Checked about every second while the nodes fuzz: true stops the night (saved; run it
  // again to resume).
  std::function<bool()> should_stop;
};

struct NightResult {
  int exit_code = 0;  // night_report.h's kNight*
  std::string night_dir;
  std::string markdown;      // the report
  bool interrupted = false;  // should_stop: nothing reported yet
};

// Runs (or resumes, or only reprints) the night. Errors: the state directory, the
// controller unreachable or refusing, a state file that is not one.
Result<NightResult> RunNight(const NightOptions& options);

// Today's date in UTC, YYYY-MM-DD.
std::string TodayUtc();

// Ok for a YYYY-MM-DD date.
Status CheckNightName(const std::string& night);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_NIGHT_RUNNER_H_
