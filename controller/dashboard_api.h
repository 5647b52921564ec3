// The dashboard's JSON (docs/dashboard.md, "API"), answered on the controller's service
// thread (through controller/view_queue.h) from the request handler's replies, the same
// answers `pollen list|status|crashes` get, and the campaigns' samples:
//   GET /api/campaigns                              every campaign: builds, nodes, figures
//   GET /api/campaigns/NAME[?nodes_after=ID&nodes_limit=N]
//                                                   one campaign and a page of its node table
//   GET /api/campaigns/NAME/samples                 its figures over time
//   GET /api/campaigns/NAME/crashes[?after=SIG&limit=N]
//                                                   a page of its crashes, by signature
//   GET /api/campaigns/NAME/crashes/SIG             one crash: its report, the repro command
//   (a crash the nightly's newest ledger knows has "nightly": open, or fixed in which build)
//   GET /api/campaigns/NAME/crashes/SIG/reproducer  its input, as a download
//   GET /api/campaigns/NAME/nights                  its nightly reports, a line per night
//   GET /api/campaigns/NAME/nights/NIGHT            one night: its summary and report.md
// A name, signature, night or query value that is not what it must be is 400, an unknown
// one 404, anything else under /api/ 404. Every answer is JSON but the reproducer.
//
// Thread safety: none; the service thread calls it.
#ifndef POLLEN_CONTROLLER_DASHBOARD_API_H_
#define POLLEN_CONTROLLER_DASHBOARD_API_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "controller/campaign_samples.h"
#include "controller/night_summaries.h"
#include "controller/report_store.h"
#include "controller/request_handler.h"
#include "ops/ops_server.h"

namespace pollen::controller {

class DashboardApi {
 public:
  // The node table's rows on a page, when the query does not say (nodes_limit), and at most.
  static constexpr size_t kDefaultNodeRows = 100;
  static constexpr size_t kMaxNodeRows = 1000;
  // The same for a page of crashes (limit).
  static constexpr size_t kDefaultCrashRows = 100;
  static constexpr size_t kMaxCrashRows = 1000;

  // All must outlive it.
  DashboardApi(RequestHandler* handler, const CampaignSamples* samples, const ReportStore* reports)
      : handler_(handler), samples_(samples), reports_(reports), nights_(reports) {}

  ops::HttpReply Answer(const ops::HttpRequest& request, int64_t now_unix_ms, uint64_t now_ms);

 private:
  ops::HttpReply Campaigns(int64_t now_unix_ms, uint64_t now_ms);
  ops::HttpReply Campaign(const std::string& name, const ops::HttpRequest& request,
                          int64_t now_unix_ms, uint64_t now_ms);
  ops::HttpReply Samples(const std::string& name);
  ops::HttpReply Crashes(const std::string& name, const std::string& after, size_t limit);
  ops::HttpReply Crash(const std::string& name, const std::string& signature, bool reproducer);
  ops::HttpReply Nights(const std::string& name);
  // The campaign's newest nightly ledger (NightSummaries::Ledger), null when unreadable;
  // valid until nights_ is asked again.
  const nlohmann::json* NightlyLedger(const std::string& name);
  // The ledger's word on `crash`, if it has one, as crash["nightly"].
  static void AddNightly(const nlohmann::json* ledger, nlohmann::json& crash);
  ops::HttpReply Night(const std::string& name, const std::string& night);

  RequestHandler* handler_;
  const CampaignSamples* samples_;
  const ReportStore* reports_;
  NightSummaries nights_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_DASHBOARD_API_H_
