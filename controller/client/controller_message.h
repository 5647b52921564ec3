// The controller's protocol as plain C++ values (schema/controller.capnp on the wire).
//
// A client builds a Request and gets a Reply; the controller decodes the Request, fully
// validated and copied out of the wire buffer (controller/client/controller_codec.h), and answers
// with a Reply. Field meanings are documented in the schema; sizes in ControllerLimits.
#ifndef POLLEN_CONTROLLER_CLIENT_CONTROLLER_MESSAGE_H_
#define POLLEN_CONTROLLER_CLIENT_CONTROLLER_MESSAGE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "base/digest.h"
#include "transfer/record_codec.h"
#include "transfer/stream_message.h"

namespace pollen::controller {

// Bounds on what a message may hold. The controller and its clients use the same values.
struct ControllerLimits {
  size_t max_message_bytes = 2 << 20;  // a 1 MiB input and its features, as the broker's
  size_t max_name_bytes = 256;         // node id, host, target, crash kind
  size_t max_signature_bytes = 4096;
  size_t max_report_bytes = 64 << 10;
  size_t max_options_bytes = 16 << 10;
  size_t max_entries = 4096;      // inputs per NewInputs
  size_t max_features = 1 << 20;  // per feature list
  // Streams (docs/controller.md, "Streams"): record names and sizes, the largest chunk
  // accepted (it must fit in a message, with room for the envelope).
  transfer::StreamLimits stream = {transfer::kMaxRecordNameBytes, 64 << 20, 1 << 20};
};

// ---- Requests ---------------------------------------------------------------------------

// A campaign as a developer names it; an empty build id means the current build.
struct CampaignRef {
  std::string name;
  std::string build_id;
};

struct RegisterRequest {
  std::string node_id;
  std::string campaign;
  std::string target;
  std::string build_id;
  std::string options;
  std::string host;
  uint32_t workers = 0;
};

struct NodeStats {
  uint64_t execs_per_second = 0;  // of the nodes alive; so is rss_bytes
  uint64_t executions = 0;        // the last reports of every node known (alive, lost, left)
  uint64_t edges = 0;             // the most of any node known; so is features
  uint64_t features = 0;
  uint64_t corpus_entries = 0;
  uint64_t crashes = 0;
  uint64_t rss_bytes = 0;
  bool operator==(const NodeStats&) const = default;
};

struct HeartbeatRequest {
  std::string node_id;
  NodeStats stats;
  bool leaving = false;  // the node's last heartbeat: it ends cleanly
};

struct InputEntry {
  base::Digest hash{};  // SHA-1 of bytes (checked on decoding)
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> features;  // ascending, no duplicates
};

struct NewInputsRequest {
  std::string node_id;
  std::vector<InputEntry> entries;
};

struct CrashRequest {
  std::string node_id;
  std::string signature;
  std::string kind;
  std::vector<uint8_t> input;
  std::string report;
  bool minimized = false;
};

struct ListCampaignsRequest {};

struct StatusRequest {
  std::string campaign;  // empty: every campaign
};

struct ListCrashesRequest {
  CampaignRef campaign;
  std::string after;  // paging: signatures greater than this one
};

struct GetCrashRequest {
  CampaignRef campaign;
  std::string signature;
};

struct StartCampaignRequest {
  CampaignRef campaign;  // the build id is ignored: a campaign starts and stops as a whole
};

struct StopCampaignRequest {
  CampaignRef campaign;
};

struct CorpusInfoRequest {
  CampaignRef campaign;
};

struct MergeCorpusRequest {
  CampaignRef campaign;
};

// "I want to push records into the campaign": the controller answers with the open of a
// stream (it receives, so it opens) carrying the cursor of `push_id`, or an error.
struct PushCorpusRequest {
  CampaignRef campaign;  // the build id is ignored
  std::string
      push_id;  // a safe name (controller/client/safe_name.h): what a resumed push gives again
  uint64_t stream_id = 0;
};

// "I want to report a crash whose reproducer does not fit in a message": the controller
// answers with the open of a stream, whose records are "input" and (optionally) "report";
// the crash is counted when the stream ends (controller/crash_push_sink.h).
struct PushCrashRequest {
  std::string node_id;
  std::string campaign;
  std::string signature;
  std::string kind;
  bool minimized = false;
  uint64_t stream_id = 0;
};

// "I want to push a build of `campaign` and assign it": the controller answers with the open
// of a stream whose one record, named `target`, is the executable; when it is complete and
// its bytes match `build_id`, the build is stored and assigned (controller/build_store.h).
struct PushBuildRequest {
  std::string campaign;  // created by the push when new
  std::string target;    // the campaign's target
  std::string build_id;  // 16 hex digits of the SHA-1 of the executable (node::BuildIdOf)
  uint64_t stream_id = 0;
};

// One message of a stream (transfer/stream_message.h), either way.
struct StreamRequest {
  transfer::StreamMessage message;
};

// A night's report files (`pollen nightly`), kept by the controller.
inline constexpr size_t kMaxReportFiles = 16;
inline constexpr size_t kMaxReportFileName = 64;
struct ReportFile {
  std::string name;  // [A-Za-z0-9._-], 1-64 bytes
  std::string data;
};

struct PutReportRequest {
  std::string campaign;
  std::string night;  // YYYY-MM-DD
  std::vector<ReportFile> files;
};

using Request = std::variant<RegisterRequest, HeartbeatRequest, NewInputsRequest, CrashRequest,
                             ListCampaignsRequest, StatusRequest, ListCrashesRequest,
                             GetCrashRequest, StartCampaignRequest, StopCampaignRequest,
                             CorpusInfoRequest, MergeCorpusRequest, PushCorpusRequest,
                             StreamRequest, PushCrashRequest, PutReportRequest, PushBuildRequest>;

// ---- Replies ----------------------------------------------------------------------------

// ErrorCode of schema/controller.capnp, in the same order.
enum class ErrorCode : uint8_t {
  kMalformed,
  kWrongVersion,
  kInvalidName,
  kUnknownCampaign,
  kUnknownNode,
  kConflict,
  kTooLarge,
  kNotFound,
  kStorage,
  kUnimplemented,
  kNotARequest,
};
inline constexpr size_t kNumErrorCodes = 11;

// How a campaign comes to be, said by every kUnknownCampaign error (the controller's and the
// client's own lookups).
inline constexpr char kHowCampaignsBegin[] =
    "a campaign is created by the first node that joins it or by pollen build push";

// "malformed", "wrong_version", ... for logs and status lines.
const char* ErrorCodeName(ErrorCode code);

struct ErrorReply {
  ErrorCode code = ErrorCode::kMalformed;
  std::string message;
};

struct RegisterReply {
  bool stopped = false;
  uint64_t corpus_entries = 0;
};

struct HeartbeatReply {
  bool stop = false;
  std::vector<std::string> minimize;  // signatures to minimize and report again
  uint64_t pushed_seq = 0;            // inputs pushed to the campaign so far
  std::string assigned_build;         // the campaign's assigned build, "" if none
};

struct InputsReply {
  uint32_t added = 0;
  uint32_t duplicates = 0;
  uint32_t not_needed = 0;
};

struct CrashReply {
  uint64_t count = 0;
  bool new_signature = false;
  bool minimized = false;
};

struct BuildInfo {
  std::string build_id;
  int64_t first_seen_unix_ms = 0;
  int64_t last_seen_unix_ms = 0;
};

struct CampaignSummary {
  std::string name;
  std::string target;
  std::string build_id;  // current
  std::vector<BuildInfo> builds;
  std::string options;
  bool stopped = false;
  int64_t created_unix_ms = 0;
  uint32_t nodes_alive = 0;
  uint32_t nodes_lost = 0;
  std::string assigned_build;  // the build nodes following the campaign fuzz, "" if none
};

struct CampaignsReply {
  std::vector<CampaignSummary> campaigns;
};

// kLeft: the node's last heartbeat said it was ending (a run with --time, an interrupt): not
// lost, whatever its age.
enum class NodeState : uint8_t { kAlive, kLost, kLeft };

struct NodeStatus {
  std::string node_id;
  std::string campaign;
  std::string build_id;
  std::string host;
  uint32_t workers = 0;
  NodeState state = NodeState::kLost;
  uint64_t last_heartbeat_age_ms = 0;
  NodeStats stats;
};

struct CampaignStatus {
  std::string name;
  std::string build_id;
  bool stopped = false;
  uint32_t nodes_alive = 0;
  uint32_t nodes_lost = 0;
  uint64_t execs_per_second = 0;  // of the nodes alive; so is rss_bytes
  uint64_t executions = 0;        // the last reports of every node known (alive, lost, left)
  uint64_t edges = 0;             // the most of any node known; so is features
  uint64_t features = 0;
  uint64_t corpus_entries = 0;
  uint64_t corpus_features = 0;
  uint64_t crashes = 0;
  uint64_t rss_bytes = 0;
};

struct StatusReply {
  std::vector<CampaignStatus> campaigns;
  std::vector<NodeStatus> nodes;
  bool truncated = false;
};

struct CrashSummary {
  std::string signature;
  std::string kind;
  uint64_t count = 0;
  uint64_t input_size = 0;
  bool minimized = false;
  int64_t first_seen_unix_ms = 0;
  int64_t last_seen_unix_ms = 0;
  uint32_t nodes = 0;
};

struct CrashListReply {
  std::vector<CrashSummary> crashes;
  bool truncated = false;
};

struct CrashDetailReply {
  CrashSummary summary;
  std::vector<uint8_t> input;
  std::string report;
};

struct CampaignStateReply {
  std::string name;
  bool stopped = false;
};

struct CorpusInfoReply {
  std::string name;
  std::string build_id;
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t features = 0;
  int64_t last_merge_unix_ms = 0;
  uint64_t pushed_entries = 0;  // pushed to the campaign (any build)
  uint64_t pull_entries = 0;    // records a whole pull of the corpus sends
};

struct ReportStoredReply {
  std::string night;
  uint32_t files = 0;
};

struct MergeReply {
  uint64_t entries_before = 0;
  uint64_t entries_after = 0;
  uint64_t features = 0;
  uint64_t duration_ms = 0;
};

// A stream message from the controller (in a Reply so that clients decode it as any other).
struct StreamReply {
  transfer::StreamMessage message;
};

using Reply =
    std::variant<ErrorReply, RegisterReply, HeartbeatReply, InputsReply, CrashReply, CampaignsReply,
                 StatusReply, CrashListReply, CrashDetailReply, CampaignStateReply, CorpusInfoReply,
                 MergeReply, StreamReply, ReportStoredReply>;

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CLIENT_CONTROLLER_MESSAGE_H_
