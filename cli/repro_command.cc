// pollen repro TARGET FILE_OR_DIR...
// pollen repro --campaign=NAME [TARGET] SIGNATURE: pulls the reproducer from the controller.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/campaign_crashes.h"
#include "cli/commands.h"
#include "cli/controller_connection.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"
#include "node/artifacts.h"
#include "node/worker_launcher.h"
#include "storage/corpus_formats.h"

namespace pollen::cli {
namespace {

const char kReproHelp[] =
    "Usage: pollen repro TARGET FILE_OR_DIR... [flags]\n"
    "       pollen repro --campaign=NAME [TARGET] SIGNATURE [flags]\n\n"
    "Runs each FILE once in TARGET, as the fuzzer did, and prints what failed with its\n"
    "stack. A DIR stands for its files (not its subdirectories, hidden files or .txt reports):\n"
    "a directory of reproducers kept as regression tests. Exit code 1 when any input fails,\n"
    "0 when none does, so `pollen repro ./fuzzer regressions/` can be a ctest test.\n\n"
    "With --campaign, pulls the reproducer of the crash SIGNATURE (or its first 4+ characters)\n"
    "of that campaign from the controller into --out (crash-<sha1> and its .txt report), then\n"
    "runs it. TARGET defaults to the campaign's target name, looked up in the current\n"
    "directory and then in $PATH.\n";

// The campaign's target binary: ./NAME, else NAME in $PATH.
Result<std::string> LocateTarget(const std::string& name) {
  if (access(name.c_str(), X_OK) == 0) return "./" + name;
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      std::string candidate = dirs.substr(start, end - start) + "/" + name;
      if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
      start = end + 1;
    }
  }
  return Status::Error("the campaign's target '" + name +
                       "' is neither in the current directory nor in $PATH: give it, "
                       "pollen repro --campaign=... TARGET SIGNATURE");
}

// The inputs `paths` name: files as they are, directories as their regular files in name
// order (hidden files and .txt reports left out). Errors: a path that is neither.
Result<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      files.push_back(path);  // read (or refused) as a file
      continue;
    }
    Result<std::vector<storage::DirEntry>> entries = storage::ListDirectory(path);
    if (!entries.ok()) return entries.status();
    for (const storage::DirEntry& e : *entries) {
      const bool report = e.name.size() > 4 && e.name.compare(e.name.size() - 4, 4, ".txt") == 0;
      if (e.is_regular && !report) files.push_back((std::filesystem::path(path) / e.name).string());
    }
  }
  return files;
}

// Runs every file once; prints each outcome. Returns the exit code; `signatures` gets the
// signature of each failure.
int RunFiles(const std::string& target, const std::vector<std::string>& files, uint32_t timeout,
             uint32_t rss_limit_mb, uint32_t malloc_limit_mb,
             std::vector<std::string>* signatures) {
  Status ok = node::CheckTargetFile(target);
  if (!ok.ok()) return UsageError(ok.message());
  std::vector<std::vector<uint8_t>> inputs;
  for (const std::string& file : files) {
    auto data = node::ReadWholeFile(file);
    if (!data.ok()) return UsageError(data.status().message());
    inputs.push_back(std::move(data).value());
  }
  uint32_t max_len = 1;
  for (const auto& in : inputs)
    max_len = std::max<uint32_t>(max_len, static_cast<uint32_t>(in.size()));
  auto made = node::MakeSingleRunLauncher(target, timeout, rss_limit_mb, max_len, malloc_limit_mb);
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
    const std::string& file = files[i];
    if (!outcome->failed) {
      std::printf("%s: no failure (%zu bytes, %zu features, %lu us)\n", file.c_str(),
                  inputs[i].size(), outcome->features.size(),
                  static_cast<unsigned long>(outcome->exec_time_us));
      continue;
    }
    failures++;
    worker.reset();
    const node::Failure& f = outcome->failure;
    signatures->push_back(f.signature);
    std::printf("%s: FAILURE %s [signature %s]\n  %s\n%s\n", file.c_str(), f.kind.c_str(),
                f.signature.c_str(), f.summary.c_str(), f.report.c_str());
  }
  if (inputs.size() > 1) {
    std::printf("%d of %zu inputs failed\n", failures, inputs.size());
  }
  return failures ? kExitFailureFound : kExitOk;
}

}  // namespace

int ReproCommand(int argc, char** argv) {
  uint32_t timeout = 10, rss_limit_mb = 2048, malloc_limit_mb = 0;
  std::string campaign_name, out;
  ControllerConnectionFlags controller_flags;
  FlagParser parser("repro");
  parser.Add("timeout", &timeout, "seconds the input may run before it counts as a hang");
  parser.Add("rss_limit_mb", &rss_limit_mb, "memory the target may use, in MiB; 0 = no limit");
  parser.Add("malloc_limit_mb", &malloc_limit_mb,
             "one allocation larger than this is an oom (targets built with a sanitizer); 0 = the "
             "rss limit");
  parser.Add("campaign", &campaign_name, "pull the reproducer of SIGNATURE from this campaign");
  parser.Add("out", &out, "with --campaign: where to save it (default crashes-CAMPAIGN)");
  AddControllerFlags(&parser, &controller_flags, "controller_timeout");
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s\nFlags:\n%s%s", kReproHelp, parser.Usage().c_str(), kControllerFlagsHelp);
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (timeout == 0) return UsageError("--timeout must be at least 1 second");
  std::vector<std::string> signatures;
  if (campaign_name.empty()) {
    if (positional.size() < 2) {
      return UsageError("pollen repro needs a TARGET and a FILE or DIR (see pollen repro --help)");
    }
    Result<std::vector<std::string>> files =
        ExpandInputs({positional.begin() + 1, positional.end()});
    if (!files.ok()) return UsageError(files.status().message());
    if (files->empty()) {
      std::printf("no inputs in %s: nothing to run\n", positional[1].c_str());
      return kExitOk;
    }
    return RunFiles(positional[0], *files, timeout, rss_limit_mb, malloc_limit_mb, &signatures);
  }

  if (positional.empty() || positional.size() > 2) {
    return UsageError(
        "pollen repro --campaign needs a SIGNATURE, and may take the TARGET before it");
  }
  const int timeout_ms = static_cast<int>(controller_flags.timeout) * 1000;
  Result<controller::ControllerClientOptions> options =
      ControllerClientOptionsFrom(controller_flags);
  if (!options.ok()) return UsageError(options.status().message());
  auto client = controller::ConnectController(*options);
  if (!client.ok()) return UsageError(client.status().message());
  Result<controller::CampaignSummary> campaign =
      controller::FindCampaign(**client, campaign_name, timeout_ms);
  if (!campaign.ok()) return UsageError(campaign.status().message());
  Result<std::vector<controller::CrashSummary>> crashes =
      controller::ListCampaignCrashes(**client, {campaign_name, ""}, timeout_ms);
  if (!crashes.ok()) return UsageError(crashes.status().message());
  Result<controller::CrashSummary> crash = PickCrash(*crashes, positional.back());
  if (!crash.ok()) return UsageError(crash.status().message());
  Result<std::string> target =
      positional.size() == 2 ? Result<std::string>(positional[0]) : LocateTarget(campaign->target);
  if (!target.ok()) return UsageError(target.status().message());
  Result<std::string> path = PullReproducer(
      *options, *campaign, *crash, out.empty() ? "crashes-" + campaign_name : out, timeout_ms);
  if (!path.ok()) return UsageError(path.status().message());
  std::printf("pulled %s (%s, seen %lu times in campaign %s)\n", path->c_str(), crash->kind.c_str(),
              static_cast<unsigned long>(crash->count), campaign_name.c_str());
  Result<std::string> build_id = node::BuildIdOf(*target);
  if (build_id.ok() && *build_id != campaign->build_id) {
    std::printf(
        "note: %s is not the campaign's current build (%s, here %s): it may behave "
        "differently\n",
        target->c_str(), campaign->build_id.c_str(), build_id->c_str());
  }
  int code = RunFiles(*target, {*path}, timeout, rss_limit_mb, malloc_limit_mb, &signatures);
  if (code == kExitFailureFound) {
    std::printf(signatures.back() == crash->signature
                    ? "reproduced: same signature as the campaign's crash (%s)\n"
                    : "failed with another signature than the campaign's crash (%s)\n",
                crash->signature.c_str());
  } else if (code == kExitOk) {
    std::printf("did not reproduce here (the campaign's crash: %s %s)\n", crash->signature.c_str(),
                crash->kind.c_str());
  }
  return code;
}

}  // namespace pollen::cli
