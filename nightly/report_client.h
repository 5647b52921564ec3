// The nightly's reports in the controller (controller/report_store.h): stored after each
// night, read back by the next night when its own state directory lost them (a Kubernetes
// job has no disk of its own), and by `pollen report pull`.
#ifndef POLLEN_NIGHTLY_REPORT_CLIENT_H_
#define POLLEN_NIGHTLY_REPORT_CLIENT_H_

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_client.h"

namespace pollen::nightly {

// Stores the files (name -> contents) as the report of `night`, replacing what was there.
Status PutNightReport(controller::ControllerClient& client, const std::string& campaign,
                      const std::string& night, const std::map<std::string, std::string>& files,
                      int timeout_ms);

// The campaign's report files as "<night>/<file>" -> contents: of one night, of the newest
// ("latest"), or of every night (""). Errors: the stream's.
Result<std::map<std::string, std::string>> PullNightReports(
    const controller::ControllerClientOptions& client, const std::string& campaign,
    const std::string& night, int timeout_ms);

// The newest night before `night` that has a report.json in the controller, and that
// report's text; an empty night when there is none.
struct StoredReport {
  std::string night;
  std::string json;
};
Result<StoredReport> PullPreviousReport(const controller::ControllerClientOptions& client,
                                        const std::string& campaign, const std::string& night,
                                        int timeout_ms);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_REPORT_CLIENT_H_
