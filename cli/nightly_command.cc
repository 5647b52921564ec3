// pollen nightly --campaign=FILE: one night of a nightly campaign (nightly/night_runner.h).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/controller_connection.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"
#include "nightly/campaign_file.h"
#include "nightly/night_report.h"
#include "nightly/night_runner.h"
#include "node/interrupt.h"
#include "storage/corpus_formats.h"

namespace pollen::cli {
namespace {

const char kNightlyHelp[] =
    "Usage: pollen nightly --campaign=FILE --controller=ADDR [flags]\n\n"
    "Runs one night of the campaign FILE declares (docs/nightly.md; a directory: each of its\n"
    "*.yaml files in turn, exiting with the worst code): carries the merged\n"
    "corpus of the previous build to tonight's, runs every open crash on tonight's build\n"
    "(fixed, or still reproducing), fuzzes for the budget with local `pollen node`s, merges\n"
    "the corpus, measures coverage with the coverage build, and writes the morning report\n"
    "(report.md, report.json; printed too) in STATE/CAMPAIGN/NIGHT/.\n\n"
    "Killed, it resumes where it stopped when run again with the same --night; run again\n"
    "after the report, it prints the report. Exit code: 0 nothing new broke; 1 a new crash\n"
    "(or a fixed one came back); 3 the night did not do its job (nodes died, a build could\n"
    "not run, timeouts or OOMs, the merge or coverage failed: the report says what), or the\n"
    "controller could not be reached; 2 bad flags or campaign file; 130 interrupted.\n";

// The campaign files --campaign names: a file, or a directory's *.yaml files in name order
// (a ConfigMap of campaigns, mounted).
Result<std::vector<std::string>> CampaignFiles(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return std::vector<std::string>{path};
  Result<std::vector<storage::DirEntry>> entries = storage::ListDirectory(path);
  if (!entries.ok()) return entries.status();
  std::vector<std::string> files;
  for (const storage::DirEntry& e : *entries) {
    if (e.is_regular && e.name.size() > 5 && e.name.compare(e.name.size() - 5, 5, ".yaml") == 0) {
      files.push_back((std::filesystem::path(path) / e.name).string());
    }
  }
  if (files.empty()) return Status::Error(path + " has no campaign file (*.yaml)");
  return files;
}

// The worst of two nights' exit codes: interrupted, then failed, then a new crash, then ok.
int Worst(int a, int b) {
  auto rank = [](int code) {
    return code == 130 ? 4 : code == nightly::kNightFailed ? 3 : code == kExitUsage ? 2 : code;
  };
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace

int NightlyCommand(int argc, char** argv) {
  std::string campaign_path, night, state = ".pollen/nightly", build, coverage_build, broker, image;
  uint32_t merge_timeout = 3600;
  ControllerConnectionFlags controller_flags;
  FlagParser parser("nightly");
  parser.Add("campaign", &campaign_path,
             "the campaign file (YAML; docs/nightly.md), or a directory of them (*.yaml)");
  parser.Add("night", &night, "the night, YYYY-MM-DD (default: today, UTC)");
  parser.Add("state", &state, "directory of the nights' state and reports");
  parser.Add("build", &build, "the fuzzing build, instead of the file's builds.fuzz");
  parser.Add("coverage_build", &coverage_build, "the coverage build, instead of builds.coverage");
  parser.Add("image", &image,
             "tonight's image, instead of builds.image (the file's paths are in it)");
  parser.Add("broker", &broker, "a broker for the nodes to share finds through (optional)");
  parser.Add("merge_timeout", &merge_timeout, "seconds the controller's merge may take");
  AddControllerFlags(&parser, &controller_flags);
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s\nFlags:\n%s%s", kNightlyHelp, parser.Usage().c_str(), kControllerFlagsHelp);
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (!positional.empty()) return UsageError("pollen nightly takes no arguments, only flags");
  if (campaign_path.empty()) return UsageError("pollen nightly needs --campaign=FILE");
  Result<std::vector<std::string>> files = CampaignFiles(campaign_path);
  if (!files.ok()) return UsageError(files.status().message());
  if (files->size() > 1 && (!build.empty() || !coverage_build.empty() || !image.empty())) {
    return UsageError(
        "--build, --coverage-build and --image name one campaign's builds: give one file");
  }
  // Every file is checked before the first night starts.
  std::vector<nightly::NightlyCampaign> campaigns;
  for (const std::string& file : *files) {
    Result<nightly::NightlyCampaign> campaign = nightly::LoadCampaignFile(file);
    if (!campaign.ok()) return UsageError(campaign.status().message());
    campaign->target = nightly::TargetName(*campaign);  // the file's, whatever --build names
    if (!build.empty()) campaign->fuzz_build = build;
    if (!coverage_build.empty()) campaign->coverage_build = coverage_build;
    if (!image.empty()) {
      if (campaign->image.empty()) {
        return UsageError(file +
                          ": --image needs builds.image in the campaign file (its "
                          "builds' paths are then paths inside the image)");
      }
      campaign->image = image;
    }
    if (campaign->image.empty() && access(campaign->fuzz_build.c_str(), X_OK) != 0) {
      return UsageError(file + ": the fuzzing build " + campaign->fuzz_build +
                        " is not an executable file");
    }
    campaigns.push_back(std::move(campaign).value());
  }
  Result<controller::ControllerClientOptions> client =
      ControllerClientOptionsFrom(controller_flags);
  if (!client.ok()) return UsageError(client.status().message());

  nightly::NightOptions options;
  options.client = std::move(client).value();
  options.node_flags = {"--controller=" + controller_flags.controller};
  if (controller_flags.insecure_plaintext) options.node_flags.push_back("--insecure-plaintext");
  if (!controller_flags.key.empty()) options.node_flags.push_back("--key=" + controller_flags.key);
  if (!controller_flags.controller_key.empty()) {
    options.node_flags.push_back("--controller-key=" + controller_flags.controller_key);
  }
  if (!broker.empty()) options.node_flags.push_back("--broker=" + broker);
  options.state_dir = state;
  options.night = night.empty() ? nightly::TodayUtc() : night;
  Status night_ok = nightly::CheckNightName(options.night);
  if (!night_ok.ok()) return UsageError(night_ok.message());
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return UsageError("cannot find the pollen binary (/proc/self/exe)");
  options.pollen_bin.assign(self, static_cast<size_t>(n));
  options.request_timeout_ms = static_cast<int>(controller_flags.timeout) * 1000;
  options.merge_timeout_ms = static_cast<int>(merge_timeout) * 1000;
  node::InstallInterruptHandler();
  options.should_stop = [] { return node::Interrupted(); };

  int worst = kExitOk;
  for (nightly::NightlyCampaign& campaign : campaigns) {
    if (node::Interrupted()) return Worst(worst, 130);
    options.campaign = std::move(campaign);
    Result<nightly::NightResult> result = nightly::RunNight(options);
    if (!result.ok()) {
      std::fprintf(stderr,
                   "ERROR: campaign %s: %s\nthe night is saved: run the same command "
                   "again to resume\n",
                   options.campaign.campaign.c_str(), result.status().message().c_str());
      worst = Worst(worst, nightly::kNightFailed);
      continue;
    }
    if (result->interrupted) {
      std::fprintf(stderr,
                   "interrupted: the night is saved in %s; run the same command again "
                   "to resume\n",
                   result->night_dir.c_str());
      return Worst(worst, 130);
    }
    std::printf("%s\nreport: %s/report.md and report.json\n", result->markdown.c_str(),
                result->night_dir.c_str());
    std::error_code ec;
    const std::string html = result->night_dir + "/coverage/html/index.html";
    if (std::filesystem::exists(html, ec)) std::printf("coverage: %s\n", html.c_str());
    std::fflush(stdout);
    worst = Worst(worst, result->exit_code);
  }
  return worst;
}

}  // namespace pollen::cli
