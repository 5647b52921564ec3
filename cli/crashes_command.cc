// pollen crashes list CAMPAIGN | pollen crashes pull CAMPAIGN [SIGNATURE...] [--out=DIR]
// | pollen crashes export CAMPAIGN DIR
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/campaign_crashes.h"
#include "cli/commands.h"
#include "cli/controller_connection.h"
#include "cli/flag_parser.h"
#include "cli/json_output.h"
#include "cli/table_format.h"
#include "cli/target_setup.h"

namespace pollen::cli {
namespace {

const char kCrashesHelp[] =
    "Usage: pollen crashes list CAMPAIGN [flags]\n"
    "       pollen crashes pull CAMPAIGN [SIGNATURE...] [--out=DIR] [flags]\n"
    "       pollen crashes export CAMPAIGN DIR [flags]\n"
    "\n"
    "The distinct crashes of a campaign's current build, as the controller triaged them: one\n"
    "per signature (kind + top frames), how often and on how many nodes it was seen, the size\n"
    "of the smallest reproducer and whether it was minimized. `pull` writes reproducers into\n"
    "DIR (default crashes-CAMPAIGN) as `pollen fuzz` does: crash-<sha1> and crash-<sha1>.txt\n"
    "with the report; every crash, or those named (a signature or its first 4+ characters).\n"
    "`pollen repro --campaign CAMPAIGN SIGNATURE` pulls one and runs it.\n"
    "\n"
    "`export` writes every crash's reproducer into DIR named by kind and signature,\n"
    "KIND-SIGNATURE (and KIND-SIGNATURE.txt, its report): a layout to commit as regression\n"
    "tests, the same name for the same crash at every export, run by\n"
    "`pollen repro TARGET DIR` (exit code 1 while any still crashes).\n";

int ExportCrashes(const controller::ControllerClientOptions& options,
                  const controller::CampaignSummary& campaign,
                  const std::vector<controller::CrashSummary>& crashes, const std::string& dir,
                  int timeout_ms) {
  // Pulled as `pollen fuzz` names them into a hidden directory of DIR, then renamed.
  const std::string staging = dir + "/.pollen-export";
  std::error_code ec;
  std::filesystem::create_directories(staging, ec);
  if (ec) return UsageError("cannot create " + staging + ": " + ec.message());
  for (const controller::CrashSummary& c : crashes) {
    Result<std::string> path = PullReproducer(options, campaign, c, staging, timeout_ms);
    if (!path.ok()) return UsageError(path.status().message());
    const std::string to = dir + "/" + controller::CrashFileName(c);
    std::filesystem::rename(*path, to, ec);
    if (!ec) std::filesystem::rename(*path + ".txt", to + ".txt", ec);
    if (ec) return UsageError("cannot write " + to + ": " + ec.message());
    std::printf("%s  (%" PRIu64 " bytes, seen %" PRIu64 " times)\n", to.c_str(), c.input_size,
                c.count);
  }
  std::filesystem::remove_all(staging, ec);
  std::printf("%zu crash(es) of campaign %s in %s; run them with: pollen repro TARGET %s\n",
              crashes.size(), campaign.name.c_str(), dir.c_str(), dir.c_str());
  return kExitOk;
}

}  // namespace

int CrashesCommand(int argc, char** argv) {
  FlagParser parser("crashes");
  ControllerConnectionFlags flags;
  AddControllerFlags(&parser, &flags);
  std::string out;
  parser.Add("out", &out, "pull: the directory for the reproducers (default crashes-CAMPAIGN)");
  bool json = false;
  parser.Add("json", &json, "list: print JSON (docs/usage.md) instead of the table");
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s\nFlags:\n%s%s", kCrashesHelp, parser.Usage().c_str(), kControllerFlagsHelp);
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional.size() < 2 ||
      (positional[0] != "list" && positional[0] != "pull" && positional[0] != "export")) {
    return UsageError(
        "pollen crashes needs list|pull|export and a CAMPAIGN (see pollen crashes --help)");
  }
  const bool pull = positional[0] == "pull";
  const bool do_export = positional[0] == "export";
  if (positional[0] == "list" && positional.size() > 2) {
    return UsageError("pollen crashes list takes one CAMPAIGN");
  }
  if (do_export && positional.size() != 3) {
    return UsageError("pollen crashes export takes a CAMPAIGN and a DIR");
  }
  const std::string& name = positional[1];
  const int timeout_ms = static_cast<int>(flags.timeout) * 1000;

  Result<controller::ControllerClientOptions> options = ControllerClientOptionsFrom(flags);
  if (!options.ok()) return UsageError(options.status().message());
  auto client = controller::ConnectController(*options);
  if (!client.ok()) return UsageError(client.status().message());
  Result<controller::CampaignSummary> campaign =
      controller::FindCampaign(**client, name, timeout_ms);
  if (!campaign.ok()) return UsageError(campaign.status().message());
  Result<std::vector<controller::CrashSummary>> crashes =
      controller::ListCampaignCrashes(**client, {name, ""}, timeout_ms);
  if (!crashes.ok()) return UsageError(crashes.status().message());

  if (do_export) return ExportCrashes(*options, *campaign, *crashes, positional[2], timeout_ms);
  if (!pull && json) {
    PrintJson(CrashesJson(name, *crashes));
    return kExitOk;
  }
  if (!pull) {
    std::printf("%-16s %-24s %7s %5s %8s %-9s %-16s %-16s\n", "SIGNATURE", "KIND", "COUNT", "NODES",
                "SIZE", "MINIMIZED", "FIRST SEEN", "LAST SEEN");
    for (const controller::CrashSummary& c : *crashes) {
      std::printf("%-16s %-24s %7" PRIu64 " %5u %8" PRIu64 " %-9s %-16s %-16s\n",
                  c.signature.c_str(), c.kind.c_str(), c.count, c.nodes, c.input_size,
                  c.minimized ? "yes" : "no", Date(c.first_seen_unix_ms).c_str(),
                  Date(c.last_seen_unix_ms).c_str());
    }
    if (crashes->empty()) std::printf("(no crash in campaign %s)\n", name.c_str());
    return kExitOk;
  }

  std::vector<controller::CrashSummary> wanted;
  if (positional.size() == 2) {
    wanted = *crashes;
  } else {
    for (size_t i = 2; i < positional.size(); ++i) {
      Result<controller::CrashSummary> picked = PickCrash(*crashes, positional[i]);
      if (!picked.ok()) return UsageError(picked.status().message());
      wanted.push_back(std::move(picked.value()));
    }
  }
  if (out.empty()) out = "crashes-" + name;
  for (const controller::CrashSummary& c : wanted) {
    Result<std::string> path = PullReproducer(*options, *campaign, c, out, timeout_ms);
    if (!path.ok()) return UsageError(path.status().message());
    std::printf("%s  %s %s (%" PRIu64 " bytes, seen %" PRIu64 " times)\n", path->c_str(),
                c.signature.c_str(), c.kind.c_str(), c.input_size, c.count);
  }
  if (wanted.empty()) std::printf("(no crash in campaign %s)\n", name.c_str());
  return kExitOk;
}

}  // namespace pollen::cli
