#include "nightly/cleanse.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <variant>

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

}  // namespace pollen::nightly
