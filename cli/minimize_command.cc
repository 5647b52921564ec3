// pollen minimize TARGET FILE

#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"
#include "node/artifacts.h"
#include "node/crash_minimizer.h"
#include "node/interrupt.h"
#include "node/worker_launcher.h"

namespace pollen::cli {

int MinimizeCommand(int argc, char** argv) {
  uint32_t timeout = 10, rss_limit_mb = 2048, malloc_limit_mb = 0, minimize_time = 60;
  std::string output;
  FlagParser parser("minimize");
  parser.Add("timeout", &timeout, "seconds one run may take before it counts as a hang");
  parser.Add("rss_limit_mb", &rss_limit_mb, "memory the target may use, in MiB; 0 = no limit");
  parser.Add("malloc_limit_mb", &malloc_limit_mb,
             "one allocation larger than this is an oom (targets built with a sanitizer); 0 = the "
             "rss limit");
  parser.Add("minimize_time", &minimize_time, "seconds to spend minimizing");
  parser.Add("output", &output, "where to write the result; default FILE.min");
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf(
        "Usage: pollen minimize TARGET FILE [flags]\n\n"
        "Shrinks a failing input while it still fails the same way, and writes the result\n"
        "to FILE.min (or --output). Exit code 0 when an input was written.\n\nFlags:\n%s",
        parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional.size() != 2)
    return UsageError("pollen minimize needs a TARGET and one FILE (see pollen minimize --help)");
  if (timeout == 0) return UsageError("--timeout must be at least 1 second");
  std::string target = positional[0];
  Status ok = node::CheckTargetFile(target);
  if (!ok.ok()) return UsageError(ok.message());
  auto data = node::ReadWholeFile(positional[1]);
  if (!data.ok()) return UsageError(data.status().message());
  if (output.empty()) output = positional[1] + ".min";

  auto made = node::MakeSingleRunLauncher(target, timeout, rss_limit_mb,
                                          static_cast<uint32_t>(data->size()), malloc_limit_mb);
  if (!made.ok()) return UsageError(made.status().message());
  node::WorkerLauncher& launcher = *made->launcher;
  const node::LaunchOptions& launch = launcher.options();
  auto worker = launcher.Launch();
  if (!worker.ok()) return UsageError(worker.status().message());
  auto outcome = node::RunInput(*worker.value(), launch, data->data(), data->size());
  if (!outcome.ok()) return UsageError(outcome.status().message());
  if (!outcome->failed) {
    return UsageError(
        positional[1] +
        " does not fail: there is nothing to minimize (pollen minimize keeps a failure)");
  }
  worker.value().reset();
  std::fprintf(stderr, "%s fails: %s; minimizing for at most %u s...\n", positional[1].c_str(),
               outcome->failure.summary.c_str(), minimize_time);
  node::InstallInterruptHandler();
  node::CrashMinimizeResult r =
      node::MinimizeFailure(launcher, data.value(), outcome->failure, minimize_time);
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(r.input.data()),
            static_cast<std::streamsize>(r.input.size()));
  if (!out) return UsageError("cannot write " + output);
  std::fprintf(stderr, "%s: %zu bytes (from %zu, %lu attempts%s); still fails: %s\n",
               output.c_str(), r.input.size(), data->size(), static_cast<unsigned long>(r.attempts),
               r.interrupted ? ", interrupted" : "", r.failure.summary.c_str());
  return kExitOk;
}

}  // namespace pollen::cli
