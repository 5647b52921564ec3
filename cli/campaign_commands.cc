// pollen list | status [CAMPAIGN] | start CAMPAIGN | stop CAMPAIGN: the developer's view of
// a cluster, through its controller (docs/controller.md).
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>

#include "cli/commands.h"
#include "cli/controller_connection.h"
#include "cli/flag_parser.h"
#include "cli/json_output.h"
#include "cli/table_format.h"
#include "cli/target_setup.h"
#include "node/interrupt.h"

namespace pollen::cli {
namespace {

// A node's state in the status table: capitals for the one that needs a look.
const char* StateName(controller::NodeState state) {
  switch (state) {
    case controller::NodeState::kAlive:
      return "alive";
    case controller::NodeState::kLeft:
      return "left";
    case controller::NodeState::kLost:
      return "LOST";
  }
  return "?";
}

// Parses the shared flags and the positional arguments; on --help prints `help`. Returns
// -1 to go on, else the exit code.
int ParseClientFlags(const char* help, int argc, char** argv, FlagParser* parser,
                     ControllerConnectionFlags* flags, std::vector<std::string>* positional) {
  AddControllerFlags(parser, flags);
  bool want_help = false;
  Status parsed = parser->Parse(argc, argv, positional, &want_help);
  if (want_help) {
    std::printf("%s\nFlags:\n%s%s", help, parser->Usage().c_str(), kControllerFlagsHelp);
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  return -1;
}

// Connects and sends one request expecting a T; prints the error and returns nullopt.
template <typename T>
std::optional<T> Ask(controller::ControllerClient& client, const controller::Request& request,
                     const ControllerConnectionFlags& flags) {
  Result<T> reply = client.Call<T>(request, static_cast<int>(flags.timeout) * 1000);
  if (!reply.ok()) {
    std::fprintf(stderr, "ERROR: %s\n", reply.status().message().c_str());
    return std::nullopt;
  }
  return std::move(reply.value());
}

const char kListHelp[] =
    "Usage: pollen list [flags]\n\n"
    "The campaigns the controller knows: target, current build, state, nodes alive and lost,\n"
    "when it was created.\n";

const char kStatusHelp[] =
    "Usage: pollen status [CAMPAIGN] [--once] [--every=SECONDS] [flags]\n\n"
    "A cluster-wide table: each campaign (nodes, exec/s, edges, features, corpus, crashes,\n"
    "memory) and each of its nodes (state, last heartbeat, its own figures). On a terminal it\n"
    "refreshes every --every seconds until Ctrl-C; --once, or output to a pipe, prints it once.\n";

const char kStartHelp[] =
    "Usage: pollen start CAMPAIGN [flags]\n\n"
    "Lets the campaign's nodes fuzz again after `pollen stop`.\n";

const char kStopHelp[] =
    "Usage: pollen stop CAMPAIGN [flags]\n\n"
    "Tells the campaign's nodes to stop: each gets it with its next heartbeat (within seconds),\n"
    "saves its corpus and exits 0. A node started while the campaign is stopped exits too.\n";

void PrintStatus(const controller::StatusReply& status) {
  // EDGES and FEATURES: the most any node reached; CORPUS: the merged corpus (its entries
  // and the features they cover); CRASHES: distinct signatures; RSS: all nodes together.
  std::printf("%-24s %-16s %5s %5s %10s %8s %9s %8s %9s %7s %7s\n", "CAMPAIGN", "BUILD", "NODES",
              "LOST", "EXEC/S", "EDGES", "FEATURES", "CORPUS", "CORPUS-FT", "CRASHES", "RSS");
  for (const controller::CampaignStatus& c : status.campaigns) {
    std::printf("%-24s %-16s %5u %5u %10s %8s %9s %8s %9s %7s %7s%s\n", c.name.c_str(),
                c.build_id.substr(0, 16).c_str(), c.nodes_alive, c.nodes_lost,
                Short(c.execs_per_second).c_str(), Short(c.edges).c_str(),
                Short(c.features).c_str(), Short(c.corpus_entries).c_str(),
                Short(c.corpus_features).c_str(), Short(c.crashes).c_str(),
                Mib(c.rss_bytes).c_str(), c.stopped ? "  STOPPED" : "");
  }
  if (status.nodes.empty()) return;
  std::printf("\n%-32s %-24s %-5s %6s %10s %8s %9s %8s %7s %7s\n", "NODE", "CAMPAIGN", "STATE",
              "SEEN", "EXEC/S", "EDGES", "FEATURES", "CORPUS", "CRASHES", "RSS");
  for (const controller::NodeStatus& n : status.nodes) {
    std::printf("%-32s %-24s %-5s %6s %10s %8s %9s %8s %7s %7s\n", n.node_id.c_str(),
                n.campaign.c_str(), StateName(n.state), Ago(n.last_heartbeat_age_ms).c_str(),
                Short(n.stats.execs_per_second).c_str(), Short(n.stats.edges).c_str(),
                Short(n.stats.features).c_str(), Short(n.stats.corpus_entries).c_str(),
                Short(n.stats.crashes).c_str(), Mib(n.stats.rss_bytes).c_str());
  }
  if (status.truncated) std::printf("(more nodes than one answer holds: name a campaign)\n");
}

}  // namespace

int ListCommand(int argc, char** argv) {
  FlagParser parser("list");
  ControllerConnectionFlags flags;
  bool json = false;
  parser.Add("json", &json, "print JSON (docs/usage.md) instead of the table");
  std::vector<std::string> positional;
  if (int done = ParseClientFlags(kListHelp, argc, argv, &parser, &flags, &positional); done >= 0) {
    return done;
  }
  if (!positional.empty()) return UsageError("pollen list takes no arguments");
  auto client = ConnectToController(flags);
  if (!client.ok()) return UsageError(client.status().message());
  auto reply = Ask<controller::CampaignsReply>(**client, controller::ListCampaignsRequest{}, flags);
  if (!reply) return kExitUsage;
  if (json) {
    PrintJson(CampaignsJson(*reply));
    return kExitOk;
  }
  std::printf("%-24s %-24s %-16s %-8s %5s %5s  %s\n", "CAMPAIGN", "TARGET", "BUILD", "STATE",
              "NODES", "LOST", "CREATED");
  for (const controller::CampaignSummary& c : reply->campaigns) {
    std::printf("%-24s %-24s %-16s %-8s %5u %5u  %s\n", c.name.c_str(), c.target.c_str(),
                c.build_id.substr(0, 16).c_str(), c.stopped ? "stopped" : "running", c.nodes_alive,
                c.nodes_lost, Date(c.created_unix_ms).c_str());
  }
  if (reply->campaigns.empty()) std::printf("(no campaign yet: nodes create them as they join)\n");
  return kExitOk;
}

int StatusCommand(int argc, char** argv) {
  FlagParser parser("status");
  ControllerConnectionFlags flags;
  bool once = false;
  uint32_t every = 2;
  bool json = false;
  parser.Add("once", &once, "print the table once and exit");
  parser.Add("json", &json, "print the status once as JSON (docs/usage.md) and exit");
  parser.Add("every", &every, "seconds between refreshes on a terminal");
  std::vector<std::string> positional;
  if (int done = ParseClientFlags(kStatusHelp, argc, argv, &parser, &flags, &positional);
      done >= 0) {
    return done;
  }
  if (positional.size() > 1) return UsageError("pollen status takes at most one CAMPAIGN");
  if (every == 0) return UsageError("--every must be at least 1 second");
  auto client = ConnectToController(flags);
  if (!client.ok()) return UsageError(client.status().message());
  controller::StatusRequest request;
  if (!positional.empty()) request.campaign = positional[0];
  const bool refresh = !once && !json && isatty(STDOUT_FILENO);
  node::InstallInterruptHandler();
  while (true) {
    auto reply = Ask<controller::StatusReply>(**client, request, flags);
    if (!reply) return kExitUsage;
    if (json) {
      PrintJson(StatusJson(*reply));
      return kExitOk;
    }
    if (refresh) std::printf("\033[H\033[2J");  // home, clear: the table redrawn in place
    PrintStatus(*reply);
    if (!refresh) return kExitOk;
    std::printf("\n(%s, every %u s; Ctrl-C to quit)\n", flags.controller.c_str(), every);
    std::fflush(stdout);
    for (uint32_t waited = 0; waited < every * 10 && !node::Interrupted(); ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (node::Interrupted()) return kExitOk;
  }
}

namespace {

int StartOrStop(bool stop, int argc, char** argv) {
  const char* name = stop ? "stop" : "start";
  FlagParser parser(name);
  ControllerConnectionFlags flags;
  std::vector<std::string> positional;
  if (int done =
          ParseClientFlags(stop ? kStopHelp : kStartHelp, argc, argv, &parser, &flags, &positional);
      done >= 0) {
    return done;
  }
  if (positional.size() != 1) {
    return UsageError(std::string("pollen ") + name +
                      " needs one CAMPAIGN (pollen list shows them)");
  }
  auto client = ConnectToController(flags);
  if (!client.ok()) return UsageError(client.status().message());
  controller::CampaignRef campaign{positional[0], ""};
  controller::Request request =
      stop ? controller::Request(controller::StopCampaignRequest{campaign})
           : controller::Request(controller::StartCampaignRequest{campaign});
  auto reply = Ask<controller::CampaignStateReply>(**client, request, flags);
  if (!reply) return kExitUsage;
  std::printf("campaign %s: %s\n", reply->name.c_str(), reply->stopped ? "stopped" : "running");
  return kExitOk;
}

}  // namespace

int StartCommand(int argc, char** argv) { return StartOrStop(false, argc, argv); }
int StopCommand(int argc, char** argv) { return StartOrStop(true, argc, argv); }

}  // namespace pollen::cli
