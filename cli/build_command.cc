// pollen build push CAMPAIGN BUILD [--target=NAME]: a build for the nodes that follow the
// campaign's builds (docs/nightly.md, "On Kubernetes"); `pollen nightly` does the same for
// each night's build.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/controller_connection.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"
#include "controller/client/safe_name.h"
#include "controller/client/stream_client.h"
#include "node/worker_launcher.h"

namespace pollen::cli {
namespace {

const char kBuildHelp[] =
    "Usage: pollen build push CAMPAIGN BUILD [--target=NAME] [flags]\n\n"
    "Pushes the executable BUILD (a fuzzing build of the campaign's target) to the controller\n"
    "and assigns it to CAMPAIGN (created when new): every node started with\n"
    "`pollen node --follow-builds --campaign=CAMPAIGN` moves to it within a heartbeat or two,\n"
    "its corpus run again on it. The target's name is BUILD's file name unless --target says\n"
    "otherwise (it must be the campaign's). Prints the build id.\n";

}  // namespace

int BuildCommand(int argc, char** argv) {
  std::string target;
  ControllerConnectionFlags flags;
  FlagParser parser("build");
  parser.Add("target", &target, "the campaign's target name (default: BUILD's file name)");
  AddControllerFlags(&parser, &flags);
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s\nFlags:\n%s%s", kBuildHelp, parser.Usage().c_str(), kControllerFlagsHelp);
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional.size() != 3 || positional[0] != "push") {
    return UsageError("pollen build needs push, a CAMPAIGN and a BUILD (see pollen build --help)");
  }
  const std::string& campaign = positional[1];
  const std::string& build = positional[2];
  if (Status ok = controller::CheckSafeName("campaign name", campaign); !ok.ok()) {
    return UsageError(ok.message());
  }
  if (Status ok = node::CheckTargetFile(build); !ok.ok()) return UsageError(ok.message());
  if (target.empty()) target = BaseName(build);
  if (Status ok = controller::CheckSafeName("target name", target); !ok.ok()) {
    return UsageError(ok.message());
  }
  Result<controller::ControllerClientOptions> client = ControllerClientOptionsFrom(flags);
  if (!client.ok()) return UsageError(client.status().message());
  controller::StreamClientOptions stream;
  stream.connect_timeout_ms = static_cast<int>(flags.timeout) * 1000;
  Result<std::string> id = controller::PushBuildStream(*client, campaign, target, build, stream);
  if (!id.ok()) return UsageError(id.status().message());
  std::printf("%s\n", id->c_str());
  std::fprintf(stderr, "build %s of %s is assigned to campaign %s\n", id->c_str(), target.c_str(),
               campaign.c_str());
  return kExitOk;
}

}  // namespace pollen::cli
