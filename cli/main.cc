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
    "  corpus SUBCOMMAND STORE ...   inspect a corpus store (stats, ls) and maintain it\n"
    "                                (import, export, merge, compact)\n"
    "  broker --listen=ADDR ...      relay inputs and coverage between cluster nodes\n"
    "  keygen PREFIX                 make a CURVE key pair for the cluster\n"
    "\n"
    "`pollen COMMAND --help` describes each command's flags.\n";

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_pattern("%^%l%$: %v");
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    std::printf("%s", kUsage);
    return argc < 2 ? pollen::cli::kExitUsage : pollen::cli::kExitOk;
  }
  std::string command = argv[1];
  if (command == "fuzz") return pollen::cli::FuzzCommand(argc - 2, argv + 2);
  if (command == "repro") return pollen::cli::ReproCommand(argc - 2, argv + 2);
  if (command == "minimize") return pollen::cli::MinimizeCommand(argc - 2, argv + 2);
  if (command == "corpus") return pollen::cli::CorpusCommand(argc - 2, argv + 2);
  if (command == "broker") return pollen::cli::BrokerCommand(argc - 2, argv + 2);
  if (command == "keygen") return pollen::cli::KeygenCommand(argc - 2, argv + 2);
  if (command == "node") return pollen::cli::NodeCommand(argc - 2, argv + 2);
  std::fprintf(stderr, "ERROR: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return pollen::cli::kExitUsage;
}
