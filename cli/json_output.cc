#include "cli/json_output.h"

#include <cstdio>

#include "nightly/json_text.h"

namespace pollen::cli {

nlohmann::json StoreStatsJson(const StoreFacts& f) {
  return {{"store", f.path},
          {"target", f.target},
          {"build_id", f.build_id},
          {"entries", f.stats.entries},
          {"raw_bytes", f.stats.raw_bytes},
          {"files_bytes", f.files_bytes},
          {"sst_bytes", f.stats.disk_bytes},
          {"input_sst_bytes", f.stats.input_disk_bytes},
          {"crashes", f.stats.crashes}};
}

void PrintJson(const nlohmann::json& json) { std::printf("%s\n", nightly::JsonText(json).c_str()); }

}  // namespace pollen::cli
