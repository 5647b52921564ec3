// The nightly's reports, kept by the controller (docs/nightly.md, "Reports in the
// controller"): each night's files (report.json, report.md, coverage.json...) in the registry
// under "r/<campaign>/<night>/<file>", so that a nightly job with no disk of its own finds
// the previous night's report, and `pollen report pull` reads any night from anywhere.
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_REPORT_STORE_H_
#define POLLEN_CONTROLLER_REPORT_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_message.h"
#include "controller/registry_db.h"
#include "transfer/stream_sender.h"

namespace pollen::controller {

class ReportStore {
 public:
  explicit ReportStore(RegistryDb* db) : db_(db) {}

  // The nights kept per campaign: a new one beyond drops the oldest (over a year of nights).
  static constexpr size_t kMaxNights = 400;

  // Replaces the files of the request's night with its files, in one atomic write that also
  // drops the oldest nights beyond kMaxNights. The request was checked by the codec (names,
  // night, counts).
  Status Put(const PutReportRequest& request);

  // The records of the campaign's reports, named "<night>/<file>", in name order, after
  // `resume_after`: every night (`night` empty), one night, or the newest ("latest").
  // Errors: storage.
  Result<std::unique_ptr<transfer::RecordSource>> Open(const std::string& campaign,
                                                       const std::string& night,
                                                       const std::string& resume_after);

  // One file of every night kept for the campaign, oldest night first: (night, contents);
  // a night without that file is not listed. It reads through all of the campaign's
  // reports (their other files too): callers keep what it gives (NightSummaries) until
  // generation() changes. Errors: storage.
  Result<std::vector<std::pair<std::string, std::string>>> FileOfEachNight(
      const std::string& campaign, const std::string& file) const;
  // One night's files, (name, contents) in name order; none if the night is not kept.
  // Errors: storage.
  Result<std::vector<std::pair<std::string, std::string>>> NightFiles(
      const std::string& campaign, const std::string& night) const;

  // Counts the campaign's Puts: what was read of its reports at one count is still what
  // is kept while the count stays (0 before the first Put since the start).
  uint64_t generation(const std::string& campaign) const {
    auto it = generations_.find(campaign);
    return it == generations_.end() ? 0 : it->second;
  }

 private:
  RegistryDb* db_;
  std::map<std::string, uint64_t, std::less<>> generations_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_REPORT_STORE_H_
