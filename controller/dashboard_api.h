// The dashboard's JSON (docs/dashboard.md, "API"), answered on the controller's service
// thread (through controller/view_queue.h) from the request handler's replies, the same
// answers `pollen list|status|crashes` get, and the campaigns' samples:
//   GET /api/campaigns                              every campaign: builds, nodes, figures
//   GET /api/campaigns/NAME                         one campaign and its node table
//   GET /api/campaigns/NAME/samples                 its figures over time
//   GET /api/campaigns/NAME/crashes[?after=SIG]     a page of its crashes, by signature
//   GET /api/campaigns/NAME/crashes/SIG             one crash: its report, the repro command
//   GET /api/campaigns/NAME/crashes/SIG/reproducer  its input, as a download
// A name or signature that is not a safe name is 400, an unknown one 404, anything else
// under /api/ 404. Every answer is JSON but the reproducer.
//
// Thread safety: none; the service thread calls it.
#ifndef POLLEN_CONTROLLER_DASHBOARD_API_H_
#define POLLEN_CONTROLLER_DASHBOARD_API_H_

#include <cstdint>

#include "controller/campaign_samples.h"
#include "controller/request_handler.h"
#include "ops/ops_server.h"

namespace pollen::controller {

class DashboardApi {
 public:
  // Both must outlive it.
  DashboardApi(RequestHandler* handler, const CampaignSamples* samples)
      : handler_(handler), samples_(samples) {}

  ops::HttpReply Answer(const ops::HttpRequest& request, int64_t now_unix_ms, uint64_t now_ms);

 private:
  ops::HttpReply Campaigns(int64_t now_unix_ms, uint64_t now_ms);
  ops::HttpReply Campaign(const std::string& name, int64_t now_unix_ms, uint64_t now_ms);
  ops::HttpReply Samples(const std::string& name);
  ops::HttpReply Crashes(const std::string& name, const std::string& after);
  ops::HttpReply Crash(const std::string& name, const std::string& signature, bool reproducer);

  RequestHandler* handler_;
  const CampaignSamples* samples_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_DASHBOARD_API_H_
