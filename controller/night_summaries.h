// The nightly's reports as the dashboard shows them (docs/dashboard.md, "Nights"): one line
// per night, read from the night's report.json in the controller's ReportStore, and kept
// until the store changes, so that a page polling every few seconds does not parse a year of
// reports each time. A report.json is the nightly's, but it arrived over the network: any
// text is summarized without a throw (what cannot be read is left out, and said).
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_NIGHT_SUMMARIES_H_
#define POLLEN_CONTROLLER_NIGHT_SUMMARIES_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "controller/report_store.h"

namespace pollen::controller {

// The line of one night: night, build_id, verdict, exit_code, the counts of problems and of
// new, regressed (came back), fixed and open crashes, executions, nodes, elapsed_s, and
// coverage {lines, branches, functions, regions: {covered, count, percent}} for those the
// report has. "error" says why a report.json could not be read; what could be is kept.
nlohmann::json SummarizeNight(const std::string& night, std::string_view report_json);
// The same of a report already parsed (a discarded value when it was not JSON).
nlohmann::json SummarizeParsedNight(const std::string& night, const nlohmann::json& report);

class NightSummaries {
 public:
  // The campaigns whose summaries are kept at once; more, and the oldest are dropped.
  static constexpr size_t kMaxCampaigns = 64;

  // `store` must outlive it.
  explicit NightSummaries(const ReportStore* store) : store_(store) {}

  // Every night of the campaign the store keeps, oldest first (a JSON array of
  // SummarizeNight's lines; empty for a campaign without nights). Errors: storage.
  Result<nlohmann::json> Of(const std::string& campaign);

  // What the nightly last said of each crash: the crash ledger of the newest night whose
  // report has one, as an object by signature of {state: "open" (not found fixed) or
  // "fixed", night (that report's), first_night, fixed_build, fixed_night (each left out
  // when the ledger has none)}; empty when no night has a ledger. Not a copy: valid until
  // the next call of Of() or Ledger(). Errors: storage.
  Result<const nlohmann::json*> Ledger(const std::string& campaign);

  // The ledger of one parsed report.json, as Ledger() gives it; null when it has none.
  static nlohmann::json LedgerOf(const std::string& night, const nlohmann::json& report);

 private:
  struct Kept {
    uint64_t generation = 0;
    uint64_t used = 0;
    nlohmann::json nights;
    nlohmann::json ledger;
  };
  // The campaign's entry, read again if the store changed since; valid until the next
  // call (which may evict it). Errors: storage.
  Result<Kept*> Fresh(const std::string& campaign);
  const ReportStore* store_;
  std::map<std::string, Kept> kept_;
  uint64_t uses_ = 0;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_NIGHT_SUMMARIES_H_
