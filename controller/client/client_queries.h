// Questions to the controller that take more than one request, for the developer-host
// commands and the nightly: a campaign by name, and every page of a crash list.
#ifndef POLLEN_CONTROLLER_CLIENT_CLIENT_QUERIES_H_
#define POLLEN_CONTROLLER_CLIENT_CLIENT_QUERIES_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_client.h"

namespace pollen::controller {

// The campaign named `name`; an error naming the known ones when there is none.
Result<CampaignSummary> FindCampaign(ControllerClient& client, const std::string& name,
                                     int timeout_ms);

// Every crash of `campaign` (its build, or the current one when the build id is empty),
// asking page after page.
Result<std::vector<CrashSummary>> ListCampaignCrashes(ControllerClient& client,
                                                      const CampaignRef& campaign, int timeout_ms);

// KIND-SIGNATURE, every byte of either but letters, digits, '-' and '_' made '_' (a
// signature is whatever a node sent: it must not name a path): a file name that is the same
// at every export of the same crash.
std::string CrashFileName(const CrashSummary& crash);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CLIENT_CLIENT_QUERIES_H_
