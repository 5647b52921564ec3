// `--json` of the developer's commands (list, status, crashes list, corpus stats): the
// controller's answers as JSON for tools, one document on stdout. Field names are the
// protocol's (docs/controller.md), in snake_case; times are Unix milliseconds.
#ifndef POLLEN_CLI_JSON_OUTPUT_H_
#define POLLEN_CLI_JSON_OUTPUT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controller/client/controller_message.h"
#include "storage/corpus_store.h"

namespace pollen::cli {

nlohmann::json CampaignsJson(const controller::CampaignsReply& reply);
nlohmann::json StatusJson(const controller::StatusReply& reply);
nlohmann::json CrashesJson(const std::string& campaign,
                           const std::vector<controller::CrashSummary>& crashes);

struct StoreFacts {
  std::string path, target, build_id;
  uint64_t files_bytes = 0;
  storage::CorpusStore::Stats stats;
};
nlohmann::json StoreStatsJson(const StoreFacts& facts);

// Prints `json` indented, with a newline.
void PrintJson(const nlohmann::json& json);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_JSON_OUTPUT_H_
