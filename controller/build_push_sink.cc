#include "controller/build_push_sink.h"

#include <utility>

namespace pollen::controller {

BuildPushSink::BuildPushSink(const PushBuildRequest& request, BuildStore* store, std::string keep,
                             AssignFn assign)
    : request_(request), store_(store), keep_(std::move(keep)), assign_(std::move(assign)) {}

Status BuildPushSink::Commit(std::string_view name, std::string_view data) {
  if (stored_ || name != request_.target) {
    return Status::Error("a build push carries one record, named by the target '" +
                         request_.target + "'; record '" + std::string(name.substr(0, 64)) +
                         "' came " + (stored_ ? "after it" : "instead"));
  }
  Status put = store_->Put(request_.campaign, request_.target, request_.build_id, data, keep_);
  if (!put.ok()) return put;
  bytes_ = data.size();
  stored_ = true;
  return Status::Ok();
}

Status BuildPushSink::Finish(bool complete) {
  if (!complete || assigned_) return Status::Ok();
  if (!stored_) return Status::Error("the build push ended without its executable");
  if (Status st = assign_(request_); !st.ok()) return st;
  assigned_ = true;
  return Status::Ok();
}

std::string BuildPushSink::Summary() const {
  return "build " + request_.build_id + " of campaign '" + request_.campaign + "' (" +
         std::to_string(bytes_) + " bytes)" + (assigned_ ? ", assigned" : ", not assigned");
}

}  // namespace pollen::controller
