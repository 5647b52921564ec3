// pollen report pull CAMPAIGN [--night=DATE|latest|all] [--out=DIR]: the nightly's reports
// that the controller keeps (nightly/report_client.h).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/controller_connection.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"
#include "controller/client/safe_name.h"
#include "nightly/report_client.h"

namespace pollen::cli {
namespace {

namespace fs = std::filesystem;

const char kReportHelp[] =
    "Usage: pollen report pull CAMPAIGN [--night=DATE|latest|all] [--out=DIR] [flags]\n\n"
    "Pulls the nightly's reports of CAMPAIGN from the controller (`pollen nightly` stores\n"
    "each night's report.md, report.json and coverage.json there) into DIR/NIGHT/ (default\n"
    "DIR: reports-CAMPAIGN), and prints the report.md of the night pulled (the newest by\n"
    "default; --night=all pulls every night and prints their names).\n";

}  // namespace

int ReportCommand(int argc, char** argv) {
  std::string night = "latest", out;
  ControllerConnectionFlags flags;
  FlagParser parser("report");
  parser.Add("night", &night, "the night, YYYY-MM-DD, or latest, or all");
  parser.Add("out", &out, "where to write the reports (default reports-CAMPAIGN)");
  AddControllerFlags(&parser, &flags);
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s\nFlags:\n%s%s", kReportHelp, parser.Usage().c_str(), kControllerFlagsHelp);
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional.size() != 2 || positional[0] != "pull") {
    return UsageError("pollen report needs pull and a CAMPAIGN (see pollen report --help)");
  }
  const std::string& campaign = positional[1];
  if (Status ok = controller::CheckSafeName("campaign name", campaign); !ok.ok()) {
    return UsageError(ok.message());
  }
  if (night != "latest" && night != "all") {
    if (Status ok = controller::CheckNightName(night); !ok.ok()) return UsageError(ok.message());
  }
  if (out.empty()) out = "reports-" + campaign;
  Result<controller::ControllerClientOptions> client = ControllerClientOptionsFrom(flags);
  if (!client.ok()) return UsageError(client.status().message());
  Result<std::map<std::string, std::string>> files = nightly::PullNightReports(
      *client, campaign, night == "all" ? "" : night, static_cast<int>(flags.timeout) * 1000);
  if (!files.ok()) return UsageError(files.status().message());
  if (files->empty()) {
    return UsageError("the controller has no report of campaign '" + campaign + "'" +
                      (night == "latest" || night == "all" ? "" : " for night " + night) +
                      " (pollen nightly stores one at the end of each night)");
  }
  std::vector<std::string> nights;
  std::string markdown;
  for (const auto& [name, data] : *files) {
    // The names come from the controller: checked before they become paths.
    const size_t slash = name.find('/');
    const std::string n = name.substr(0, slash),
                      file = slash == std::string::npos ? "" : name.substr(slash + 1);
    if (!controller::CheckNightName(n).ok() || !controller::CheckSafeName("file", file).ok()) {
      std::fprintf(stderr, "warning: skipped a record with an unexpected name\n");
      continue;
    }
    std::error_code ec;
    fs::create_directories(fs::path(out) / n, ec);
    std::ofstream f(fs::path(out) / n / file, std::ios::binary | std::ios::trunc);
    f << data;
    if (!f) return UsageError("cannot write " + (fs::path(out) / n / file).string());
    if (nights.empty() || nights.back() != n) nights.push_back(n);
    if (file == "report.md") markdown = data;
  }
  if (nights.size() == 1) {
    std::printf("%s\n", markdown.c_str());
  } else {
    for (const std::string& n : nights) std::printf("%s\n", n.c_str());
  }
  std::fprintf(stderr, "pulled %zu night(s) of campaign %s into %s\n", nights.size(),
               campaign.c_str(), out.c_str());
  return kExitOk;
}

}  // namespace pollen::cli
