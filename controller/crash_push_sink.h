// A node's crash whose reproducer does not fit in a message, arriving as a stream
// (docs/controller.md, "Crash artifacts"): the records "input" (the reproducer) and then,
// optionally, "report" (cut to the report limit). When the stream is complete the crash is
// reported as a `crash` message would be (RequestHandler::OnCrash: the node must be
// registered; triage counts it), and only then is the stream ended, so a node that saw the
// end knows the crash was counted. An incomplete stream counts nothing: the node sends the
// crash again.
//
// Memory: the reproducer and report, at most the stream's record limit each.
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_CRASH_PUSH_SINK_H_
#define POLLEN_CONTROLLER_CRASH_PUSH_SINK_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "controller/client/controller_message.h"
#include "controller/push_target.h"

namespace pollen::controller {

class CrashPushSink : public PushTarget {
 public:
  // Reports the crash; an ErrorReply becomes the stream's error.
  using ReportFn = std::function<Reply(CrashRequest)>;

  CrashPushSink(const PushCrashRequest& request, size_t max_report_bytes, ReportFn report);

  // Errors: a record other than "input" first, then "report" (each once).
  Status Commit(std::string_view name, std::string_view data) override;

  // Complete: reports the crash. Errors: no "input" record, the report's error reply.
  Status Finish(bool complete) override;

  std::string Summary() const override;

 private:
  CrashRequest crash_;
  size_t max_report_bytes_;
  ReportFn report_;
  bool has_input_ = false;
  bool has_report_ = false;
  bool reported_ = false;
  size_t input_bytes_ = 0;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CRASH_PUSH_SINK_H_
