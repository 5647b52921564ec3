// The campaign file of `pollen nightly` (docs/nightly.md, "The campaign file"):
// one YAML document that declares a nightly campaign: its name, its builds, its
// options, its budget.
//
//   campaign: json                # the controller's campaign name
//   target: json_fuzzer           # the target's name (default: builds.fuzz's file name)
//   builds:
//     image: reg/json-fuzz:tag    # (optional) the builds are in this image, at absolute paths
//     fuzz: out/fuzzer            # the Pollen fuzzing build (required)
//     coverage: out/fuzzer-cov    # (optional) -fprofile-instr-generate -fcoverage-mapping
//     sanitizers:                 # (optional) other sanitizers' builds, by name:
//       ubsan: out/fuzzer-ubsan   #   the night's corpus and their open crashes run on them
//   seeds: [seeds]                # (optional) seed directories for the first night
//   dictionary: fuzz.dict         # (optional)
//   options: {max_len: 4096, timeout: 10, rss_limit_mb: 2048}
//   budget: 30m                   # fuzzing time per night: 90s, 30m, 2h or seconds
//   nodes: 2                      # `pollen node` processes the night runs, or `cluster`:
//                                 # the nodes following the campaign's builds
//   workers: 1                    # worker processes per node; 0 = one per core
//
// Relative paths are relative to the file's directory. Every error names the
// file, the line and the field: "nightly.yaml:4: builds.fuzz: ...". Unknown
// fields are errors too (a misspelt `budjet` must not leave the default in
// place silently). Thread-safe pure functions.
#ifndef POLLEN_NIGHTLY_CAMPAIGN_FILE_H_
#define POLLEN_NIGHTLY_CAMPAIGN_FILE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace pollen::nightly {

struct NightlyCampaign {
  std::string campaign;
  std::string target;  // the campaign's target name; "" until TargetName fills it
  // When set, the builds' paths are inside this container image (nightly/image_builds.h),
  // copied out at the start of each night.
  std::string image;
  std::string fuzz_build;      // absolute or relative to the current directory
  std::string coverage_build;  // "" when none
  // Builds with other sanitizers (name, path), in the file's order: the merged corpus runs
  // through each every night, and what fails there is a crash of signature "NAME-SIG".
  std::vector<std::pair<std::string, std::string>> sanitizer_builds;
  std::vector<std::string> seeds;
  std::string dictionary;
  uint32_t max_len = 0;  // 0: the fuzzer's default
  uint32_t timeout_s = 10;
  uint32_t rss_limit_mb = 2048;
  uint64_t budget_s = 0;
  uint32_t nodes = 1;
  // `nodes: cluster`: the night pushes its build to the controller, which assigns it to the
  // nodes that follow the campaign's builds (`pollen node --follow-builds`, e.g. the
  // StatefulSet), and waits the budget; no local nodes.
  bool cluster = false;
  uint32_t workers = 1;
  std::string webhook;  // "" when none
  uint32_t webhook_timeout_s = 10;
  uint32_t webhook_attempts = 3;
};

// Parses `text`, the contents of the file at `path` (used in errors and to
// resolve relative paths). Errors name the line and the field; files are not
// read here.
Result<NightlyCampaign> ParseCampaignFile(const std::string& text, const std::string& path);

// The target's name: `target`, or the fuzzing build's file name. A campaign's target is
// fixed at the controller, while each night's build may be a file of another name.
std::string TargetName(const NightlyCampaign& campaign);

// A sanitizer build's name: 1 to 16 of [a-z0-9].
bool IsSanitizerName(const std::string& name);

// Reads and parses the file.
Result<NightlyCampaign> LoadCampaignFile(const std::string& path);

// "90s", "30m", "2h", "1h30m" or a number of seconds; at least 1 s. Errors say
// what is accepted.
Result<uint64_t> ParseDuration(const std::string& text);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_CAMPAIGN_FILE_H_
