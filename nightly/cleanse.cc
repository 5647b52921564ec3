#include "nightly/cleanse.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <variant>

#include "nightly/sanitizer_builds.h"
#include "node/single_run.h"
#include "node/worker_executor.h"

namespace pollen::nightly {

Result<std::vector<CleanseOutcome>> CleanseCrashes(controller::ControllerClient& client,
                                                   const std::vector<LedgerEntry>& open,
                                                   const CleanseOptions& options) {
  std::vector<CleanseOutcome> outcomes;
  // The reproducers first: the launcher's max_len must hold the largest.
  std::vector<std::vector<uint8_t>> inputs(open.size());
  uint32_t max_len = 1;
  for (size_t i = 0; i < open.size(); i++) {
    CleanseOutcome o;
    o.signature = open[i].signature;
    Result<controller::CrashDetailReply> detail = client.Call<controller::CrashDetailReply>(
        controller::GetCrashRequest{{options.campaign, open[i].build}, open[i].signature},
        options.request_timeout_ms);
    if (!detail.ok()) {
      o.detail = "its reproducer could not be had: " + detail.status().message();
    } else {
      inputs[i] = std::move(detail->input);
      max_len = std::max<uint32_t>(max_len, static_cast<uint32_t>(inputs[i].size()));
    }
    outcomes.push_back(std::move(o));
  }
  if (open.empty()) return outcomes;

  Result<node::SingleRunLauncher> made = node::MakeSingleRunLauncher(
      options.build_path, options.timeout_s, options.rss_limit_mb, max_len);
  if (!made.ok()) return made.status();
  node::WorkerExecutor executor(made->launcher.get());
  for (size_t i = 0; i < open.size(); i++) {
    CleanseOutcome& o = outcomes[i];
    if (!o.detail.empty()) continue;  // unchecked
    Result<storage::ExecutionResult> run = executor.Execute(inputs[i].data(), inputs[i].size());
    if (!run.ok()) {
      return Status::Error("the build " + options.build_path +
                           " cannot run: " + run.status().message());
    }
    if (run->failed) {
      o.kind = CleanseOutcome::Kind::kReproduces;
      o.now_signature = run->failure_signature;
      o.detail = executor.last_failure().summary;
    } else {
      o.kind = CleanseOutcome::Kind::kFixed;
    }
    spdlog::info("cleanse: crash {} {}", o.signature,
                 run->failed ? "still reproduces (" + run->failure_kind + ")" : "is fixed");
  }
  return outcomes;
}

std::vector<std::pair<LedgerEntry, CleanseOutcome>> CleanseOnTheirBuilds(
    controller::ControllerClient& client, const std::vector<LedgerEntry>& open,
    const CleanseOptions& options, std::vector<std::string>* problems) {
  std::map<std::string, std::vector<LedgerEntry>> by_build;
  for (const LedgerEntry& e : open) by_build[SanitizerOf(e.signature)].push_back(e);
  std::vector<std::pair<LedgerEntry, CleanseOutcome>> out;
  for (const auto& [sanitizer, entries] : by_build) {
    CleanseOptions on = options;
    if (!sanitizer.empty()) {
      auto it = std::find_if(options.sanitizer_builds.begin(), options.sanitizer_builds.end(),
                             [&, &name = sanitizer](const auto& b) { return b.first == name; });
      if (it == options.sanitizer_builds.end()) {  // left unchecked, still open
        for (const LedgerEntry& e : entries) {
          CleanseOutcome o;
          o.signature = e.signature;
          o.detail = "the campaign file has no sanitizer build '" + sanitizer + "' any more";
          out.emplace_back(e, o);
        }
        continue;
      }
      on.build_path = it->second;
    }
    Result<std::vector<CleanseOutcome>> outcomes = CleanseCrashes(client, entries, on);
    if (!outcomes.ok()) {
      problems->push_back("cleanse: " + outcomes.status().message());
      continue;
    }
    for (size_t i = 0; i < outcomes->size(); i++) out.emplace_back(entries[i], (*outcomes)[i]);
  }
  return out;
}

}  // namespace pollen::nightly
