// The executables pushed as a campaign's builds (`pushBuild`; docs/nightly.md, "On
// Kubernetes"), for the nodes that follow the campaign's builds to pull:
//   DATA/campaigns/<campaign>/_builds/<build-id>/<target>
// (beside the campaign's stores and _pushed/: no build id begins with '_').
// A build is written whole under a temporary name, fsynced and renamed into place before it
// is assigned, so a pull never sees part of one. A campaign keeps the build just stored and
// the one assigned before it (nodes may still be pulling that one); older ones are removed.
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_BUILD_STORE_H_
#define POLLEN_CONTROLLER_BUILD_STORE_H_

#include <string>
#include <string_view>

#include "base/status.h"

namespace pollen::controller {

class BuildStore {
 public:
  // `campaigns_dir`: DATA/campaigns.
  explicit BuildStore(std::string campaigns_dir) : root_(std::move(campaigns_dir)) {}

  // Stores `bytes` as build `build_id` of `campaign`, executable `target`, and removes the
  // campaign's builds other than this one and `keep` ("" for none). Names were checked by
  // the codec. Errors: the bytes' SHA-1 does not begin with build_id (saying what it is),
  // storage (naming the path).
  Status Put(const std::string& campaign, const std::string& target, const std::string& build_id,
             std::string_view bytes, const std::string& keep);

  // The bytes of a stored build. Errors: not stored (saying so), unreadable.
  Result<std::string> Read(const std::string& campaign, const std::string& build_id,
                           const std::string& target) const;

  // DATA/campaigns/<campaign>/_builds/<build-id>/<target>.
  std::string PathOf(const std::string& campaign, const std::string& build_id,
                     const std::string& target) const;

 private:
  std::string root_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_BUILD_STORE_H_
