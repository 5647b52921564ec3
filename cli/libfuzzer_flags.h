// libFuzzer's command line (`./fuzzer [-flag=value...] [dir|file...]`) translated into a
// Pollen fuzzing session: what a target binary linked with libpollen_fuzzer.a hands to
// `pollen libfuzzer` (engine/runtime/main.cc), so that the scripts written for libFuzzer
// (OSS-Fuzz, ClusterFuzz, FuzzBench, project CI) run Pollen unchanged.
//
// Flags keep libFuzzer's names and meanings where Pollen has the same notion; the few
// whose meaning differs say so in -help=1 (LibFuzzerHelp) and docs/libfuzzer-mode.md.
// Unknown flags are warnings, as in libFuzzer; a bad value for a known flag is an error.
#ifndef POLLEN_CLI_LIBFUZZER_FLAGS_H_
#define POLLEN_CLI_LIBFUZZER_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "node/fuzz_options.h"

namespace pollen::cli {

struct LibFuzzerRun {
  enum class Mode { kFuzz, kRunInputs, kHelp, kMerge, kMinimizeCrash };
  Mode mode = Mode::kFuzz;

  // For kFuzz: the session's options (target and corpus_dirs set). libFuzzer's defaults
  // where they are a choice of the user's rather than of the engine: one worker, stop at
  // the first failure, no minimization of the artifact.
  node::FuzzOptions options;
  // The first corpus directory, where inputs found by fuzzing are written (libFuzzer's
  // output corpus); empty when no directory was given.
  std::string output_corpus;
  std::string artifact_prefix;      // -artifact_prefix: prepended to crash-<sha1> etc.
  std::string exact_artifact_path;  // -exact_artifact_path: the one artifact's path
  bool print_final_stats = false;
  bool create_missing_dirs = false;  // -create_missing_dirs=1
  int error_exitcode = 77;           // a failure that is not a sanitizer's report or a timeout
  int timeout_exitcode = 70;
  uint64_t runs = 0;        // -runs: kFuzz's limit, kRunInputs' repetitions (0: none, once)
  bool seeds_only = false;  // -runs=0: run the seeds, then stop

  std::vector<std::string> inputs;    // kRunInputs / kMinimizeCrash: the files given
  std::vector<std::string> warnings;  // one line each, printed before anything runs
  // -create_missing_dirs=1: the corpus and artifact directories that do not exist yet,
  // made by MakeMissingDirs before anything runs (libFuzzer's flag of that name).
  std::vector<std::string> dirs_to_make;
};

// Parses `args` (what followed the target's path). `target` is the target binary.
Result<LibFuzzerRun> ParseLibFuzzerArgs(const std::string& target,
                                        const std::vector<std::string>& args);

// Makes run.dirs_to_make (and their parents). The error names the directory.
Status MakeMissingDirs(const LibFuzzerRun& run);

// The text of -help=1: every flag with what Pollen does with it.
std::string LibFuzzerHelp();

}  // namespace pollen::cli

#endif  // POLLEN_CLI_LIBFUZZER_FLAGS_H_
