// pollen crashes list CAMPAIGN | pollen crashes pull CAMPAIGN [SIGNATURE...] [--out=DIR]
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <string>

#include "cli/campaign_crashes.h"
#include "cli/commands.h"
#include "cli/controller_connection.h"
#include "cli/flag_parser.h"
#include "cli/table_format.h"
#include "cli/target_setup.h"

namespace pollen::cli {
namespace {

const char kCrashesHelp[] =
    "Usage: pollen crashes list CAMPAIGN [flags]\n"
    "       pollen crashes pull CAMPAIGN [SIGNATURE...] [--out=DIR] [flags]\n"
    "\n"
    "The distinct crashes of a campaign's current build, as the controller triaged them: one\n"
    "per signature (kind + top frames), how often and on how many nodes it was seen, the size\n"
    "of the smallest reproducer and whether it was minimized. `pull` writes reproducers into\n"
    "DIR (default crashes-CAMPAIGN) as `pollen fuzz` does: crash-<sha1> and crash-<sha1>.txt\n"
    "with the report; every crash, or those named (a signature or its first 4+ characters).\n"
    "`pollen repro --campaign CAMPAIGN SIGNATURE` pulls one and runs it.\n";

}  // namespace

int CrashesCommand(int argc, char** argv) {
  FlagParser parser("crashes");
  ControllerConnectionFlags flags;
  AddControllerFlags(&parser, &flags);
  std::string out;
  parser.Add("out", &out, "pull: the directory for the reproducers (default crashes-CAMPAIGN)");
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s\nFlags:\n%s%s", kCrashesHelp, parser.Usage().c_str(), kControllerFlagsHelp);
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional.size() < 2 || (positional[0] != "list" && positional[0] != "pull")) {
    return UsageError("pollen crashes needs list|pull and a CAMPAIGN (see pollen crashes --help)");
  }
  const bool pull = positional[0] == "pull";
  if (!pull && positional.size() > 2) return UsageError("pollen crashes list takes one CAMPAIGN");
  const std::string& name = positional[1];
  const int timeout_ms = static_cast<int>(flags.timeout) * 1000;

  Result<controller::ControllerClientOptions> options = ControllerClientOptionsFrom(flags);
  if (!options.ok()) return UsageError(options.status().message());
  auto client = controller::ConnectController(*options);
  if (!client.ok()) return UsageError(client.status().message());
  Result<controller::CampaignSummary> campaign = FindCampaign(**client, name, timeout_ms);
  if (!campaign.ok()) return UsageError(campaign.status().message());
  Result<std::vector<controller::CrashSummary>> crashes =
      ListCampaignCrashes(**client, name, timeout_ms);
  if (!crashes.ok()) return UsageError(crashes.status().message());

  if (!pull) {
    std::printf("%-16s %-24s %7s %5s %8s %-9s %-16s %-16s\n", "SIGNATURE", "KIND", "COUNT",
                "NODES", "SIZE", "MINIMIZED", "FIRST SEEN", "LAST SEEN");
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
