// A campaign's crashes as the controller keeps them, for `pollen crashes` and
// `pollen repro --campaign`: every page of the list, one crash picked by (a prefix of) its
// signature, and its reproducer saved as `pollen fuzz` saves its own (crash-<sha1> and
// crash-<sha1>.txt, node/artifacts.h).
#ifndef POLLEN_CLI_CAMPAIGN_CRASHES_H_
#define POLLEN_CLI_CAMPAIGN_CRASHES_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "controller/client/client_queries.h"
#include "controller/client/controller_client.h"

namespace pollen::cli {

// The crash whose signature is `selector` or starts with it (at least 4 characters).
// Errors: none matches, or several do (they are named).
Result<controller::CrashSummary> PickCrash(const std::vector<controller::CrashSummary>& crashes,
                                           const std::string& selector);

// Pulls the crash's reproducer and report (the stream crash/<campaign>/<signature>: any
// size up to the stream's record limit) and writes them into `dir` (created if needed);
// returns the reproducer's path. Errors: the stream's (e.g. the crash is gone from the
// campaign's current build), the files'.
Result<std::string> PullReproducer(const controller::ControllerClientOptions& client,
                                   const controller::CampaignSummary& campaign,
                                   const controller::CrashSummary& crash, const std::string& dir,
                                   int timeout_ms);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_CAMPAIGN_CRASHES_H_
