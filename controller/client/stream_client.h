// Streams with the controller, for the developer-host commands (`pollen corpus pull|push`)
// and for nodes (the merged corpus at join, pushed inputs as heartbeats announce them):
// docs/controller.md, "Streams".
//
// Each call runs one whole stream, blocking, on a DEALER connection of its own to the
// controller's ROUTER (CURVE with the keys of ControllerClientOptions, as ControllerClient),
// in bounded memory: at most `window` chunks in flight and one record buffered, whatever the
// stream's length. Every wait is bounded: the connection and the controller's first answer
// by connect_timeout_ms, each later message by idle_timeout_ms. Errors are worded to be
// shown as they are, as ControllerClient's ("controller at ADDR did not answer within 10 s
// (no connection was made: ...)", "... refused this key: ...", "the controller stopped the
// stream: no campaign 'x'").
//
// Resuming: names ascend in a stream, so what is left is one name. A pull that failed keeps
// what its sink committed: pull again with resume_after = the sink's last committed name
// (transfer/directory_records.h keeps it in a cursor file). A push resumes by itself: the
// controller keeps the cursor of each push id until that push completes.
//
// Thread safety: the functions may run on any thread, several at once (each has its own
// connection); a sink or source is used by the calling thread only.
#ifndef POLLEN_CONTROLLER_CLIENT_STREAM_CLIENT_H_
#define POLLEN_CONTROLLER_CLIENT_STREAM_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "controller/client/controller_client.h"
#include "controller/client/controller_message.h"
#include "transfer/stream_message.h"
#include "transfer/stream_receiver.h"
#include "transfer/stream_sender.h"

namespace pollen::controller {

struct StreamClientOptions {
  int connect_timeout_ms = 10000;              // the connection and the controller's first answer
  int idle_timeout_ms = 30000;                 // the longest silence of the controller afterwards
  uint32_t window = transfer::kDefaultWindow;  // a pull's credit, in chunks
  size_t chunk_bytes = transfer::kDefaultChunkBytes;  // the chunks of a push
  // Checked at least every 100 ms while waiting: true ends the stream with the error
  // "interrupted" (the controller is told). What was committed stays.
  std::function<bool()> should_stop;
};

// Called after each chunk with the counts so far: committed by the sink for a pull, put in
// chunks for a push.
using StreamProgress = std::function<void(const transfer::TransferCounters& so_far)>;

// Pulls `resource` (controller/client/record_names.h: "corpus/<campaign>[/<build>]" or
// "pushed/<campaign>"), the records whose names follow `resume_after` ("" for all), into
// `sink` (not owned), in ascending name order. Returns what was committed. Names and sizes
// are checked against client.limits.stream before anything is buffered. Errors: the
// connection's, the controller's (unknown campaign or resource, too many streams), the
// stream's (a malformed or truncated stream, a name or record refused), the sink's; records
// committed before an error stay committed.
Result<transfer::TransferCounters> PullStream(const ControllerClientOptions& client,
                                              const std::string& resource,
                                              const std::string& resume_after,
                                              transfer::RecordSink* sink,
                                              const StreamProgress& progress = nullptr,
                                              const StreamClientOptions& options = {});

// Gives the records to push: those whose names follow `resume_after` (the controller's
// cursor for this push id; "" for all), in ascending order.
using PushSourceOpener =
    std::function<Result<std::unique_ptr<transfer::RecordSource>>(const std::string& resume_after)>;

struct PushResult {
  transfer::TransferCounters counters;  // records sent this time (acknowledged by the controller)
  std::string resumed_after;            // the cursor the push started after ("" from the start)
};

// Pushes records into the pushed inputs of `campaign` (the build id is ignored), where the
// campaign's nodes pick them up (docs/controller.md, "Pushed inputs"). `push_id` (a safe
// name, e.g. PushIdFor(...)) names the push: the controller resumes a push of that id that
// did not complete after the last record it committed. Returns when the controller has
// committed every record. Errors: as PullStream's, and the source's.
Result<PushResult> PushStream(const ControllerClientOptions& client, const CampaignRef& campaign,
                              const std::string& push_id, const PushSourceOpener& open_source,
                              const StreamProgress& progress = nullptr,
                              const StreamClientOptions& options = {});

// Reports `crash` of node crash.node_id in `campaign` with its reproducer and report in a
// stream (records "input" and "report", controller/client/crash_source.h) (pushCrash: for a
// reproducer that does not fit in a message). Returns once the controller has counted it. Errors:
// as PushStream's; the controller's answer to the crash (e.g. an unknown node) ends the stream with
// it.
Status PushCrashStream(const ControllerClientOptions& client, const std::string& campaign,
                       CrashRequest crash, const StreamClientOptions& options = {});

// Pushes the executable `path` as a build of `campaign` for target `target` and has the
// controller assign it (pushBuild): the nodes following the campaign's builds move to it.
// Returns its build id (node::BuildIdOf) once the controller has stored and assigned it.
// Errors: the file cannot be read or is larger than a stream record; as PushStream's (a
// campaign of another target: kConflict's message).
Result<std::string> PushBuildStream(const ControllerClientOptions& client,
                                    const std::string& campaign, const std::string& target,
                                    const std::string& path,
                                    const StreamClientOptions& options = {});

// PushBuildStream's general form: opens `request` (its stream id is set here) and sends the
// source's records (a good push has one, named by the target). For tests of what the
// controller refuses.
Result<PushResult> PushBuildRecords(const ControllerClientOptions& client, PushBuildRequest request,
                                    const PushSourceOpener& open_source,
                                    const StreamClientOptions& options = {});

// A push id for what `origin` names (e.g. "host:/absolute/dir"): "push-" and 32 hex digits
// of its SHA-1, the same every time.
std::string PushIdFor(const std::string& origin);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CLIENT_STREAM_CLIENT_H_
