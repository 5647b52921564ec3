#include "nightly/sanitizer_builds.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "controller/client/stream_client.h"
#include "nightly/campaign_file.h"
#include "node/single_run.h"
#include "node/text_file.h"
#include "node/worker_executor.h"

namespace pollen::nightly {

std::string SanitizerOf(const std::string& signature) {
  const size_t dash = signature.find('-');
  if (dash == std::string::npos) return "";
  const std::string name = signature.substr(0, dash);
  return IsSanitizerName(name) ? name : "";
}

Result<SanitizeStep> RunSanitizerBuilds(controller::ControllerClient& client,
                                        const SanitizeOptions& o, const std::string& corpus_dir,
                                        std::vector<std::string>* problems) {
  namespace fs = std::filesystem;
  std::vector<std::vector<uint8_t>> inputs;
  uint32_t max_len = 1;
  std::error_code ec;
  for (fs::directory_iterator it(corpus_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string()[0] == '.') continue;
    Result<std::string> bytes = node::ReadTextFile(it->path().string());
    if (!bytes.ok()) return bytes.status();
    inputs.emplace_back(bytes->begin(), bytes->end());
    max_len = std::max<uint32_t>(max_len, static_cast<uint32_t>(bytes->size()));
  }
  controller::RegisterRequest me;
  me.node_id = o.node_id;
  me.campaign = o.campaign;
  me.target = o.target;
  me.build_id = o.build_id;
  me.options = "pollen nightly: sanitizer builds";
  Result<controller::RegisterReply> registered =
      client.Call<controller::RegisterReply>(me, o.request_timeout_ms);
  if (!registered.ok()) return registered.status();
  SanitizeStep step;
  step.inputs = inputs.size();
  for (const auto& [name, path] : o.builds) {
    Result<node::SingleRunLauncher> made =
        node::MakeSingleRunLauncher(path, o.timeout_s, o.rss_limit_mb, max_len);
    if (!made.ok()) {
      problems->push_back("the sanitizer build " + name + " (" + path +
                          ") cannot run: " + made.status().message());
      continue;
    }
    node::WorkerExecutor executor(made->launcher.get());
    std::set<std::string> seen;
    for (const std::vector<uint8_t>& input : inputs) {
      Result<storage::ExecutionResult> run = executor.Execute(input.data(), input.size());
      if (!run.ok()) {
        problems->push_back("the sanitizer build " + name + " (" + path +
                            ") cannot run: " + run.status().message());
        break;
      }
      if (!run->failed) continue;
      const std::string signature = name + "-" + run->failure_signature;
      if (!seen.insert(signature).second) continue;
      const node::Failure& failure = executor.last_failure();
      controller::CrashRequest crash{me.node_id, signature,      failure.kind,
                                     input,      failure.report, false};
      Status pushed = controller::PushCrashStream(o.client, o.campaign, std::move(crash));
      if (!pushed.ok()) return pushed;
      step.findings.push_back({name, signature, failure.kind});
      spdlog::info("sanitize: {} fails on build {}: {} [{}]", signature, name, failure.summary,
                   failure.kind);
    }
    spdlog::info("sanitize: {} corpus inputs run on build {}: {} crash(es)", inputs.size(), name,
                 seen.size());
  }
  controller::HeartbeatRequest leave;
  leave.node_id = me.node_id;
  leave.leaving = true;
  (void)client.Call<controller::HeartbeatReply>(leave, o.request_timeout_ms);
  return step;
}

}  // namespace pollen::nightly
