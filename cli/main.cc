// The `pollen` command: dispatches to a subcommand.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "cli/commands.h"

namespace {

const char kUsage[] =
    "pollen: a coverage-guided fuzzer for libFuzzer harnesses\n"
    "\n"
    "Usage: pollen COMMAND [args] [flags]\n"
    "\n"
    "Commands:\n"
    "  fuzz TARGET [CORPUS_DIR...]   fuzz a target until a failure, a limit or Ctrl-C\n"
    "  node TARGET [CORPUS_DIR...]   fuzz as a node of a cluster: share finds through a broker\n"
    "  repro TARGET FILE...          run inputs once and report failures with their stacks\n"
    "  minimize TARGET FILE          shrink a failing input\n"
    "  libfuzzer TARGET [ARGS]       a libFuzzer command line (-max_total_time=60 dir/ ...),\n"
    "                                run by Pollen: what a target does when asked to fuzz\n"
    "  corpus SUBCOMMAND STORE ...   inspect a corpus store (stats, ls), maintain it (import,\n"
    "                                export, merge, compact), sync it with a campaign (pull, "
    "push)\n"
    "  broker --listen=ADDR ...      relay inputs and coverage between cluster nodes\n"
    "  keygen PREFIX                 make a CURVE key pair for the cluster\n"
    "  controller --listen=ADDR ...  keep the cluster's campaigns, merged corpora and crashes\n"
    "  coverage COV_BUILD INPUT...   line, branch and function coverage of inputs (llvm-cov)\n"
    "  config --cflags --ldflags     the flags that build a fuzz target with Pollen\n"
    "\n"
    "Talking to a controller (--controller=ADDR or $POLLEN_CONTROLLER):\n"
    "  list                          the campaigns\n"
    "  status [CAMPAIGN]             a cluster-wide table of campaigns and nodes, refreshed\n"
    "  start|stop CAMPAIGN           let a campaign's nodes fuzz, or tell them to stop\n"
    "  crashes list|pull|export ...  the campaign's distinct crashes; their reproducers\n"
    "  nightly --campaign=FILE       one night of continuous fuzzing: carry the corpus to the\n"
    "                                new build, re-check open crashes, fuzz, merge, cover, report\n"
    "  report pull CAMPAIGN          the nightly's reports, kept by the controller\n"
    "  build push CAMPAIGN BUILD     assign a build to the nodes that follow the campaign's "
    "builds\n"
    "\n"
    "`pollen COMMAND --help` describes each command's flags; `pollen --version` the version.\n";

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_pattern("%^%l%$: %v");
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    std::printf("%s", kUsage);
    return argc < 2 ? pollen::cli::kExitUsage : pollen::cli::kExitOk;
  }
  std::string command = argv[1];
  if (command == "--version" || command == "version") {
    std::printf("pollen %s\n", POLLEN_VERSION);
    return pollen::cli::kExitOk;
  }
  if (command == "fuzz") return pollen::cli::FuzzCommand(argc - 2, argv + 2);
  if (command == "repro") return pollen::cli::ReproCommand(argc - 2, argv + 2);
  if (command == "minimize") return pollen::cli::MinimizeCommand(argc - 2, argv + 2);
  if (command == "libfuzzer") return pollen::cli::LibFuzzerCommand(argc - 2, argv + 2);
  if (command == "corpus") return pollen::cli::CorpusCommand(argc - 2, argv + 2);
  if (command == "broker") return pollen::cli::BrokerCommand(argc - 2, argv + 2);
  if (command == "keygen") return pollen::cli::KeygenCommand(argc - 2, argv + 2);
  if (command == "config") return pollen::cli::ConfigCommand(argc - 2, argv + 2);
  if (command == "node") return pollen::cli::NodeCommand(argc - 2, argv + 2);
  if (command == "controller") return pollen::cli::ControllerCommand(argc - 2, argv + 2);
  if (command == "list") return pollen::cli::ListCommand(argc - 2, argv + 2);
  if (command == "status") return pollen::cli::StatusCommand(argc - 2, argv + 2);
  if (command == "start") return pollen::cli::StartCommand(argc - 2, argv + 2);
  if (command == "stop") return pollen::cli::StopCommand(argc - 2, argv + 2);
  if (command == "crashes") return pollen::cli::CrashesCommand(argc - 2, argv + 2);
  if (command == "nightly") return pollen::cli::NightlyCommand(argc - 2, argv + 2);
  if (command == "report") return pollen::cli::ReportCommand(argc - 2, argv + 2);
  if (command == "build") return pollen::cli::BuildCommand(argc - 2, argv + 2);
  if (command == "coverage") return pollen::cli::CoverageCommand(argc - 2, argv + 2);
  std::fprintf(stderr, "ERROR: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return pollen::cli::kExitUsage;
}
