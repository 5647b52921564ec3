// `--json` of the developer's commands (list, status, crashes list, corpus stats): the
// controller's answers as JSON for tools, one document on stdout. Field names are the
// protocol's (docs/controller.md), in snake_case; times are Unix milliseconds.
#ifndef POLLEN_CLI_JSON_OUTPUT_H_
#define POLLEN_CLI_JSON_OUTPUT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controller/client/controller_message.h"
#include "controller/client/reply_json.h"
#include "storage/corpus_store.h"

namespace pollen::cli {

// The replies' JSON is the client library's (controller/client/reply_json.h), which the
// dashboard serves too.
using controller::CampaignsJson;
using controller::CrashesJson;
using controller::StatusJson;

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
