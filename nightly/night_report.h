// The morning report of one night (docs/nightly.md, "The report"): what is new since the last
// night (crashes with signature, kind, stack and reproducer; crashes that came back; fixed
// crashes), what is still open, the fuzzing figures, the corpus, the coverage and its change,
// and what went wrong. As JSON for tools (report.json) and Markdown for people (report.md),
// and the exit code of the night.
#ifndef POLLEN_NIGHTLY_NIGHT_REPORT_H_
#define POLLEN_NIGHTLY_NIGHT_REPORT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controller/client/controller_message.h"
#include "nightly/campaign_file.h"
#include "nightly/crash_ledger.h"
#include "nightly/night_state.h"

namespace pollen::nightly {

// The exit codes of `pollen nightly` (2 is a usage error, 130 an interrupted night).
inline constexpr int kNightOk = 0;        // nothing new broke
inline constexpr int kNightNewCrash = 1;  // a new crash, or a fixed one came back
inline constexpr int kNightFailed = 3;    // no new crash, but the night did not do its job

// A crash as the report shows it.
struct CrashFinding {
  controller::CrashSummary crash;
  std::string reproducer;          // its file under the night's crashes/, "" if not saved
  std::string summary;             // the report's first line
  std::vector<std::string> stack;  // its top frames
};

struct NightReportInput {
  const NightlyCampaign* campaign = nullptr;
  const NightState* state = nullptr;
  const CrashLedger* ledger = nullptr;  // after the night
  std::vector<CrashFinding> fresh;
  std::vector<CrashFinding> regressed;
  std::vector<controller::CrashSummary> known;
  std::vector<LedgerEntry> fixed;  // fixed tonight
  uint64_t executions = 0;
  std::vector<std::string> problems;  // besides the state's (e.g. notifications not sent)
};

struct NightReport {
  nlohmann::json json;
  std::string markdown;
  int exit_code = kNightOk;
};

NightReport BuildNightReport(const NightReportInput& input);

// The summary line and the top frames of a sanitizer or Pollen report.
CrashFinding DescribeCrash(const controller::CrashSummary& crash, const std::string& report,
                           size_t max_frames);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_NIGHT_REPORT_H_
