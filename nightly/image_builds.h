// A night's builds taken out of a container image (campaign `builds.image`; docs/nightly.md,
// "The campaign file"): each night's image holds the night's builds, at the paths the campaign
// file gives (builds.fuzz, builds.coverage, builds.sanitizers.*: paths inside the image).
// They are copied out with podman (`podman create` pulls the image when it is not local,
// `podman cp` copies each file out of the container, which is never started, `podman rm`
// removes it) into DIR/<role>/<file name>, and the campaign's paths are rewritten to them.
// podman reads its configuration from the environment as always (CONTAINERS_CONF,
// CONTAINERS_STORAGE_CONF, REGISTRY_AUTH_FILE).
//
// Thread safety: none.
#ifndef POLLEN_NIGHTLY_IMAGE_BUILDS_H_
#define POLLEN_NIGHTLY_IMAGE_BUILDS_H_

#include <string>

#include "base/status.h"
#include "nightly/campaign_file.h"

namespace pollen::nightly {

// Copies the builds of `campaign->image` into `dir` (emptied first) and points the
// campaign at them. `podman` is the program to run ("podman": looked up in $PATH). Errors:
// podman missing (saying how to get it), the image cannot be had, a path not in the image
// (naming it), with podman's own words.
Status ExtractImageBuilds(NightlyCampaign* campaign, const std::string& dir,
                          const std::string& podman = "podman");

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_IMAGE_BUILDS_H_
