// The controller's replies as JSON, for tools: `--json` of the developer's commands (cli/)
// and the dashboard's API (controller/dashboard_api.h). Field names are the protocol's
// (docs/controller.md), in snake_case; times are Unix milliseconds. Pure functions.
#ifndef POLLEN_CONTROLLER_CLIENT_REPLY_JSON_H_
#define POLLEN_CONTROLLER_CLIENT_REPLY_JSON_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controller/client/controller_message.h"

namespace pollen::controller {

nlohmann::json CampaignsJson(const CampaignsReply& reply);
nlohmann::json StatusJson(const StatusReply& reply);
nlohmann::json CrashesJson(const std::string& campaign, const std::vector<CrashSummary>& crashes);
// One crash with its report (not its input: a download of its own).
nlohmann::json CrashJson(const std::string& campaign, const CrashDetailReply& crash);
// "alive", "lost", "left".
const char* NodeStateName(NodeState state);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CLIENT_REPLY_JSON_H_
