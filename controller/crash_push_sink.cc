#include "controller/crash_push_sink.h"

#include <utility>

namespace pollen::controller {

CrashPushSink::CrashPushSink(const PushCrashRequest& request, size_t max_report_bytes,
                             ReportFn report)
    : max_report_bytes_(max_report_bytes), report_(std::move(report)) {
  crash_.node_id = request.node_id;
  crash_.signature = request.signature;
  crash_.kind = request.kind;
  crash_.minimized = request.minimized;
}

Status CrashPushSink::Commit(std::string_view name, std::string_view data) {
  if (name == "input" && !has_input_) {
    crash_.input.assign(data.begin(), data.end());
    input_bytes_ = data.size();
    has_input_ = true;
    return Status::Ok();
  }
  if (name == "report" && has_input_ && !has_report_) {
    crash_.report.assign(data.substr(0, max_report_bytes_));
    has_report_ = true;
    return Status::Ok();
  }
  return Status::Error(
      "a crash push carries the record 'input', then optionally 'report'; "
      "record '" +
      std::string(name.substr(0, 64)) + "' came " + (has_input_ ? "after them" : "first"));
}

Status CrashPushSink::Finish(bool complete) {
  if (!complete || reported_) return Status::Ok();
  if (!has_input_) return Status::Error("the crash push ended without its 'input' record");
  // The reproducer and report move out; the names stay for Summary().
  Reply reply =
      report_(CrashRequest{crash_.node_id, crash_.signature, crash_.kind, std::move(crash_.input),
                           std::move(crash_.report), crash_.minimized});
  if (const auto* error = std::get_if<ErrorReply>(&reply)) return Status::Error(error->message);
  reported_ = true;
  return Status::Ok();
}

std::string CrashPushSink::Summary() const {
  return "crash " + crash_.signature + " [" + crash_.kind + "], " + std::to_string(input_bytes_) +
         " bytes of reproducer" + (reported_ ? ", counted" : ", not counted");
}

}  // namespace pollen::controller
