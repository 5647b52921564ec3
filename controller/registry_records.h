// What the controller keeps in its registry (controller/registry_db.h), as plain values, and
// their encoding: Cap'n Proto records of schema/controller.capnp ("Records"), so that a
// later controller reads an older registry (fields are only appended) and a damaged value
// is an error naming the key, never a crash.
#ifndef POLLEN_CONTROLLER_REGISTRY_RECORDS_H_
#define POLLEN_CONTROLLER_REGISTRY_RECORDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_message.h"

namespace pollen::controller {

struct CampaignRecord {
  std::string name;
  std::string target;
  std::string current_build;
  std::vector<BuildInfo> builds;  // oldest first
  std::string options;            // of the last registration
  bool stopped = false;
  int64_t created_unix_ms = 0;
  std::string assigned_build;  // the last build pushed (controller/build_store.h), "" if none
};

struct NodeRecord {
  std::string node_id;
  std::string campaign;
  std::string build_id;
  std::string host;
  uint32_t workers = 0;
  int64_t registered_unix_ms = 0;
  int64_t last_seen_unix_ms = 0;
  NodeStats stats;
  bool left = false;  // its last heartbeat said it was ending
};

// What a campaign's crash table (storage/) does not hold about one crash.
struct CrashState {
  bool minimized = false;
  std::vector<std::string> reporters;  // node ids, at most kMaxReporters
};
inline constexpr size_t kMaxReporters = 64;

std::string EncodeCampaignRecord(const CampaignRecord& record);
std::string EncodeNodeRecord(const NodeRecord& record);
std::string EncodeCrashState(const CrashState& state);

// Errors: bytes that are not such a record.
Result<CampaignRecord> DecodeCampaignRecord(std::string_view bytes);
Result<NodeRecord> DecodeNodeRecord(std::string_view bytes);
Result<CrashState> DecodeCrashState(std::string_view bytes);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_REGISTRY_RECORDS_H_
