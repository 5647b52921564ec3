// A pushed build arriving as a stream (`pushBuild`; docs/nightly.md, "On Kubernetes"): one
// record, named by the target, holding the executable. It is stored as soon as it is whole
// (controller/build_store.h, which checks its bytes against the build id), and when the
// stream is complete the build is assigned to the campaign: nodes that follow the campaign's
// builds are told in their next heartbeat reply and pull it. Only then is the stream ended,
// so a pusher that saw the end knows the build is assigned. An incomplete push assigns
// nothing.
//
// Memory: none beyond the record the stream holds. Thread safety: none; the controller's
// service thread owns it.
#ifndef POLLEN_CONTROLLER_BUILD_PUSH_SINK_H_
#define POLLEN_CONTROLLER_BUILD_PUSH_SINK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "controller/build_store.h"
#include "controller/client/controller_message.h"
#include "controller/push_target.h"

namespace pollen::controller {

class BuildPushSink : public PushTarget {
 public:
  // Assigns the stored build; an error becomes the stream's error.
  using AssignFn = std::function<Status(const PushBuildRequest&)>;

  // `keep`: the build assigned before this push (kept in the store beside the new one).
  BuildPushSink(const PushBuildRequest& request, BuildStore* store, std::string keep,
                AssignFn assign);

  // Errors: a record not named by the target, a second record, the store's (the bytes are
  // not the build id's).
  Status Commit(std::string_view name, std::string_view data) override;

  // Complete: assigns the build. Errors: no record came, the assignment's.
  Status Finish(bool complete) override;

  std::string Summary() const override;

 private:
  PushBuildRequest request_;
  BuildStore* store_;
  std::string keep_;
  AssignFn assign_;
  bool stored_ = false;
  bool assigned_ = false;
  uint64_t bytes_ = 0;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_BUILD_PUSH_SINK_H_
