// pollen repro TARGET FILE...
#include <cstdio>

#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"
#include "node/artifacts.h"
#include "node/worker_launcher.h"

namespace pollen::cli {

int ReproCommand(int argc, char** argv) {
  uint32_t timeout = 10, rss_limit_mb = 2048;
  FlagParser parser("repro");
  parser.Add("timeout", &timeout, "seconds the input may run before it counts as a hang");
  parser.Add("rss_limit_mb", &rss_limit_mb, "memory the target may use, in MiB; 0 = no limit");
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf(
        "Usage: pollen repro TARGET FILE... [flags]\n\n"
        "Runs each FILE once in TARGET, as the fuzzer did, and prints what failed with its\n"
        "stack. Exit code 1 when any input fails, 0 when none does.\n\nFlags:\n%s",
        parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional.size() < 2) return UsageError("pollen repro needs a TARGET and a FILE (see pollen repro --help)");
  if (timeout == 0) return UsageError("--timeout must be at least 1 second");
  std::string target = positional[0];
  Status ok = node::CheckTargetFile(target);
  if (!ok.ok()) return UsageError(ok.message());

  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 1; i < positional.size(); i++) {
    auto data = node::ReadWholeFile(positional[i]);
    if (!data.ok()) return UsageError(data.status().message());
    inputs.push_back(std::move(data).value());
  }
  uint32_t max_len = 1;
  for (const auto& in : inputs) max_len = std::max<uint32_t>(max_len, static_cast<uint32_t>(in.size()));
  auto made = MakeSingleRunLauncher(target, timeout, rss_limit_mb, max_len);
  if (!made.ok()) return UsageError(made.status().message());
  node::WorkerLauncher& launcher = *made->launcher;
  const node::LaunchOptions& launch = launcher.options();

  int failures = 0;
  std::unique_ptr<node::WorkerProcess> worker;
  for (size_t i = 0; i < inputs.size(); i++) {
    if (!worker) {
      auto launched = launcher.Launch();
      if (!launched.ok()) return UsageError(launched.status().message());
      worker = std::move(launched).value();
    }
    auto outcome = node::RunInput(*worker, launch, inputs[i].data(), inputs[i].size());
    if (!outcome.ok()) return UsageError(outcome.status().message());
    const std::string& file = positional[i + 1];
    if (!outcome->failed) {
      std::printf("%s: no failure (%zu bytes, %zu features, %lu us)\n", file.c_str(), inputs[i].size(),
                  outcome->features.size(), static_cast<unsigned long>(outcome->exec_time_us));
      continue;
    }
    failures++;
    worker.reset();
    const node::Failure& f = outcome->failure;
    std::printf("%s: FAILURE %s [signature %s]\n  %s\n%s\n", file.c_str(), f.kind.c_str(),
                f.signature.c_str(), f.summary.c_str(), f.report.c_str());
  }
  return failures ? kExitFailureFound : kExitOk;
}

}  // namespace pollen::cli
