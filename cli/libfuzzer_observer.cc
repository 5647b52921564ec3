#include "cli/libfuzzer_observer.h"

#include <unistd.h>

#include <cstdio>

#include "base/clock.h"
#include "base/sha1.h"
#include "cli/commands.h"
#include "node/artifacts.h"
#include "node/text_file.h"
#include "storage/corpus_formats.h"

namespace pollen::cli {
namespace {

// libFuzzer's exit codes after an out-of-memory and after SIGINT or SIGTERM (it has no
// flags for them; measured with clang 14's libFuzzer).
constexpr int kOomExitCode = 71;
constexpr int kInterruptedExitCode = 72;
// libFuzzer prints an artifact in base64 when it is at most this long.
constexpr size_t kMaxBase64Input = 256;

std::string Base64(const std::vector<uint8_t>& data) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < data.size(); i += 3) {
    uint32_t v = uint32_t{data[i]} << 16;
    if (i + 1 < data.size()) v |= uint32_t{data[i + 1]} << 8;
    if (i + 2 < data.size()) v |= data[i + 2];
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < data.size() ? kDigits[(v >> 6) & 63] : '=';
    out += i + 2 < data.size() ? kDigits[v & 63] : '=';
  }
  return out;
}

}  // namespace

LibFuzzerObserver::LibFuzzerObserver(const LibFuzzerRun& run, base::DigestSet known,
                                     LibFuzzerOutcome* outcome, std::optional<base::DigestSet> only)
    : run_(run), known_(std::move(known)), only_(std::move(only)), outcome_(outcome) {}

void LibFuzzerObserver::OnStart(node::CorpusFeed&) {
  outcome_->started = true;
  outcome_->start_ms = base::MonotonicMs();
}

void LibFuzzerObserver::OnEntryAdded(const node::CorpusEntry& entry) {
  size_t before = seen_features_.size();
  seen_features_.insert(entry.features.begin(), entry.features.end());
  if (known_.count(entry.hash) != 0) return;
  if (only_ && only_->count(entry.hash) == 0) return;
  outcome_->new_units++;
  outcome_->new_features += seen_features_.size() - before;
  if (run_.output_corpus.empty()) return;
  Status st = storage::WriteCorpusFile(run_.output_corpus, storage::CorpusFormat::kLibFuzzer,
                                       entry.data.data(), entry.data.size(), 0);
  if (st.ok()) {
    outcome_->units_written++;
  } else if (!write_failed_) {
    // Once: the corpus in the work directory still has it, and the run goes on.
    write_failed_ = true;
    std::fprintf(stderr, "WARNING: cannot write to the output corpus: %s\n", st.message().c_str());
  }
}

void LibFuzzerObserver::OnNewFailure(const node::Failure& failure,
                                     const std::vector<uint8_t>& input) {
  if (outcome_->first_failure_kind.empty()) {
    outcome_->first_failure_kind = failure.kind;
    outcome_->first_failure_from_sanitizer = failure.report.find("Sanitizer:") != std::string::npos;
  }
  if (run_.mode == LibFuzzerRun::Mode::kMerge) return;  // a merge skips such inputs, as libFuzzer's
  std::string path = run_.exact_artifact_path;
  if (path.empty()) {
    path = run_.artifact_prefix + node::ArtifactPrefix(failure.kind) + "-" +
           base::Sha1Hex(input.data(), input.size());
  }
  Status st = node::WriteTextFile(path, std::string(input.begin(), input.end()));
  if (!st.ok()) {
    std::fprintf(stderr, "ERROR: cannot write the artifact: %s\n", st.message().c_str());
    return;
  }
  std::fprintf(stderr, "artifact_prefix='%s'; Test unit written to %s\n",
               run_.artifact_prefix.c_str(), path.c_str());
  if (input.size() <= kMaxBase64Input) std::fprintf(stderr, "Base64: %s\n", Base64(input).c_str());
}

void LibFuzzerObserver::OnStop(node::CorpusFeed& feed) {
  outcome_->stop_ms = base::MonotonicMs();
  outcome_->executions = feed.executions();
}

int LibFuzzerExitCode(const LibFuzzerRun& run, const LibFuzzerOutcome& outcome, int session_code) {
  if (session_code == 130) return kInterruptedExitCode;
  if (session_code != kExitFailureFound) return session_code;
  if (run.options.keep_going)
    return kExitOk;  // -ignore_crashes=1: the failures are in the artifacts
  if (outcome.first_failure_kind == "timeout") return run.timeout_exitcode;
  if (outcome.first_failure_kind == "oom") return kOomExitCode;
  // A sanitizer's report exits with the sanitizer's code, 1; libFuzzer's own leak check
  // with -error_exitcode.
  if (outcome.first_failure_from_sanitizer && outcome.first_failure_kind != "leak") return 1;
  return run.error_exitcode;
}

std::string LibFuzzerFinalLines(const LibFuzzerRun& run, const LibFuzzerOutcome& outcome) {
  uint64_t ms = outcome.stop_ms > outcome.start_ms ? outcome.stop_ms - outcome.start_ms : 0;
  std::string out = "Done " + std::to_string(outcome.executions) + " runs in " +
                    std::to_string(ms / 1000) + " second(s)\n";
  if (run.print_final_stats) {
    uint64_t per_second = ms > 0 ? outcome.executions * 1000 / ms : outcome.executions;
    out += "stat::number_of_executed_units: " + std::to_string(outcome.executions) + "\n";
    out += "stat::average_exec_per_sec:     " + std::to_string(per_second) + "\n";
    out += "stat::new_units_added:          " + std::to_string(outcome.new_units) + "\n";
  }
  return out;
}

}  // namespace pollen::cli
