// A node that follows its campaign's builds (`pollen node --follow-builds`; docs/nightly.md,
// "On Kubernetes"): the build it fuzzes is the one the controller has assigned to the
// campaign (`pollen nightly` pushes each night's build, `pollen build push` any build),
// pulled from the controller as build/<campaign> into
//   DIR/<build-id>/<target>
// and checked: its bytes must be the build id the controller announced. Only the build
// fuzzed now is kept in DIR.
//
// Thread safety: none.
#ifndef POLLEN_NODE_BUILD_FOLLOWER_H_
#define POLLEN_NODE_BUILD_FOLLOWER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/status.h"
#include "controller/client/controller_client.h"

namespace pollen::node {

struct FollowedBuild {
  std::string build_id;
  std::string path;  // DIR/<build-id>/<target>, executable
};

struct BuildFollowerOptions {
  controller::ControllerClientOptions client;
  std::string campaign;
  std::string dir;           // where builds are kept
  uint64_t retry_ms = 2000;  // between asks while no build is assigned or the controller is away
  int request_timeout_ms = 10000;
  // Checked at least every 100 ms while waiting: true ends the wait.
  std::function<bool()> should_stop;
};

class BuildFollower {
 public:
  explicit BuildFollower(BuildFollowerOptions options) : o_(std::move(options)) {}

  // The campaign's assigned build, on disk. Waits while there is none yet or the
  // controller cannot be reached or the pull fails (each reason logged once until it
  // changes); nullopt when should_stop ended the wait. Errors: the directory cannot be
  // written.
  Result<std::optional<FollowedBuild>> Next();

  // The build the controller assigns now: "" when none (or the campaign is unknown).
  // Errors: the controller's.
  Result<std::string> AssignedBuild();

 private:
  // Pulls build/<campaign> and keeps it as DIR/<id>/<target> when its bytes are `expected`.
  Result<FollowedBuild> Pull(const std::string& expected);
  void Note(const std::string& why);  // logs `why` unless it was the last thing logged
  bool WaitRetry();                   // false: should_stop

  BuildFollowerOptions o_;
  std::unique_ptr<controller::ControllerClient> client_;  // for AssignedBuild
  std::string last_note_;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_BUILD_FOLLOWER_H_
