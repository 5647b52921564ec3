// What `pollen libfuzzer` adds to a fuzzing session so that it looks like a libFuzzer run to
// the scripts around it: each input found is written to the output corpus (the first
// directory) as it joins the corpus, the failing input is written where -artifact_prefix
// or -exact_artifact_path say with libFuzzer's "Test unit written to" line, and the exit
// code and the final stat:: lines follow libFuzzer's.
#ifndef POLLEN_CLI_LIBFUZZER_OBSERVER_H_
#define POLLEN_CLI_LIBFUZZER_OBSERVER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/digest.h"
#include "cli/libfuzzer_flags.h"
#include "node/coordinator_observer.h"

namespace pollen::cli {

// What the session left for the closing lines and the exit code; filled by the observer,
// owned by the caller (the session destroys its observer before it returns).
struct LibFuzzerOutcome {
  bool started = false;  // OnStart was called
  uint64_t start_ms = 0;
  uint64_t stop_ms = 0;
  uint64_t executions = 0;
  uint64_t new_units = 0;      // inputs that joined the corpus and are not seeds
  uint64_t units_written = 0;  // of those, written to the output corpus
  uint64_t new_features = 0;   // features of those that no seed has
  std::string first_failure_kind;
  bool first_failure_from_sanitizer = false;
};

class LibFuzzerObserver : public node::CoordinatorObserver {
 public:
  // `known` holds the SHA-1s (hex) of the inputs that are not to be written to the output
  // corpus: the seeds, which libFuzzer does not write back either. A merge sets `only`: the
  // inputs of the directories merged in, the only ones that may be written (not a mutant
  // that ran after them). `run` and `outcome` must outlive the observer.
  LibFuzzerObserver(const LibFuzzerRun& run, base::DigestSet known, LibFuzzerOutcome* outcome,
                    std::optional<base::DigestSet> only = std::nullopt);

  void OnStart(node::CorpusFeed& feed) override;
  void OnTurn(node::CorpusFeed&) override {}
  void OnEntryAdded(const node::CorpusEntry& entry) override;
  void OnNewFailure(const node::Failure& failure, const std::vector<uint8_t>& input) override;
  std::string StatusFields() const override { return ""; }
  void OnStop(node::CorpusFeed& feed) override;

 private:
  const LibFuzzerRun& run_;
  base::DigestSet known_;
  std::optional<base::DigestSet> only_;
  LibFuzzerOutcome* outcome_;
  std::unordered_set<uint32_t> seen_features_;  // of every entry so far
  bool write_failed_ = false;
};

// libFuzzer's exit code for a session that ended with `session_code` (cli/commands.h):
// after a failure, 1 for a sanitizer's report, -timeout_exitcode for a timeout, 71 for an
// out-of-memory, -error_exitcode for anything else (a leak included); 72 after SIGINT or
// SIGTERM; 0 at the limit with -ignore_crashes=1, as libFuzzer's fork mode.
int LibFuzzerExitCode(const LibFuzzerRun& run, const LibFuzzerOutcome& outcome, int session_code);

// libFuzzer's closing lines: "Done N runs in S second(s)" and, with -print_final_stats=1,
// the stat:: lines that ClusterFuzz and FuzzBench read.
std::string LibFuzzerFinalLines(const LibFuzzerRun& run, const LibFuzzerOutcome& outcome);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_LIBFUZZER_OBSERVER_H_
