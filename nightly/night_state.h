// What one night of `pollen nightly` has done so far, saved after each step in
// STATE/<campaign>/<night>/night.json, so that a night that was killed resumes where it
// stopped: a step that is done is not run again, and the fuzzing step runs only what is
// left of its budget (its elapsed time is saved every few seconds).
#ifndef POLLEN_NIGHTLY_NIGHT_STATE_H_
#define POLLEN_NIGHTLY_NIGHT_STATE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace pollen::nightly {

// Step 1: the night's build, and the corpus carried to it from the build before.
struct CarryStep {
  bool done = false;
  std::string from_build;  // "" when there was none (a first night, or the same build again)
  uint64_t entries = 0;    // inputs pulled from its merged corpus
};

// Step 2: the open crashes run on the night's build.
struct CleanseRecord {
  std::string signature;
  std::string kind;
  std::string outcome;  // "reproduces", "fixed", "unchecked"
  std::string now_signature;
  std::string detail;
};

struct CleanseStep {
  bool done = false;
  std::vector<CleanseRecord> records;
};

// Step 3: the nodes.
struct FuzzStep {
  bool done = false;
  uint64_t elapsed_s = 0;  // fuzzing time spent so far (all runs of the step)
  uint32_t runs = 0;       // times the nodes were started (1, or more after a resume)
  std::vector<int> pids;   // the nodes running now (a resumed night stops leftovers)
  uint32_t nodes_started = 0;
  uint32_t nodes_died = 0;                 // ended neither cleanly nor with a crash found
  std::vector<std::string> node_failures;  // "node 2: exit code 2 (see nodes/2.log)"
  bool registered = false;  // the controller knows the night's build (a node registered it)
};

// Step 4.
struct MergeStep {
  bool done = false;
  uint64_t entries_before = 0;
  uint64_t entries_after = 0;
  uint64_t features = 0;
  uint64_t duration_ms = 0;
  std::string error;
};

// Step 5.
struct CoverageStep {
  bool done = false;
  bool skipped = false;  // no coverage build
  std::string error;
  nlohmann::json summary;  // CoverageSummaryToJson, when made
};

// Step 4b: the merged corpus through each sanitizer build (campaign builds.sanitizers).
struct SanitizeFinding {
  std::string sanitizer;
  std::string signature;  // "NAME-SIG", as the controller keeps it
  std::string kind;
};

struct SanitizeStep {
  bool done = false;
  uint64_t inputs = 0;  // corpus inputs run, per build
  std::vector<SanitizeFinding> findings;
};

struct NightState {
  std::string campaign;
  std::string night;           // YYYY-MM-DD
  std::string build_id;        // of the fuzzing build
  std::string previous_night;  // the night whose report this one follows ("" for the first)
  int64_t started_unix_ms = 0;
  nlohmann::json ledger_before;       // the crash ledger as the night found it
  nlohmann::json previous_coverage;   // the previous night's coverage totals, or null
  std::vector<std::string> problems;  // what went wrong that is not a crash
  CarryStep carry;
  CleanseStep cleanse;
  FuzzStep fuzz;
  MergeStep merge;
  CoverageStep coverage;
  SanitizeStep sanitize;
  std::vector<std::string> notified;  // "event:signature" sent to the webhook
  bool reported = false;
};

nlohmann::json NightStateToJson(const NightState& state);

// Writes the state to `path` atomically (a temporary file renamed over it, synced).
Status SaveNightState(const std::string& path, const NightState& state);

// The state saved at `path`; nullopt when there is none. Errors: a file that cannot be read
// or is not a night's state.
Result<std::optional<NightState>> LoadNightState(const std::string& path);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_NIGHT_STATE_H_
