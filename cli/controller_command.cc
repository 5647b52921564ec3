// pollen controller --listen=ADDR --data=DIR (--keys=DIR | --insecure-plaintext)
#include <cstdio>

#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"
#include "controller/controller.h"
#include "controller/controller_options.h"
#include "node/interrupt.h"

namespace pollen::cli {
namespace {

const char kControllerHelp[] =
    "Usage: pollen controller --listen=ADDR --data=DIR (--keys=DIR | --insecure-plaintext)\n"
    "\n"
    "The cluster's memory and front door (docs/controller.md): the registry of campaigns and\n"
    "nodes, each campaign's merged corpus and its deduplicated crashes, all kept in DIR and\n"
    "found again after a restart. Nodes join it with `pollen node --controller=ADDR`;\n"
    "developers talk to it with `pollen list`, `status`, `start`, `stop`, `crashes`,\n"
    "`repro --campaign` and `corpus pull|push`.\n"
    "\n"
    "With --keys=DIR every connection is authenticated and encrypted (CURVE, as the broker):\n"
    "DIR/controller.key is its secret key (`pollen keygen DIR/controller`), DIR/authorized/\n"
    "holds the .pub file of every node and developer allowed in (read again as they\n"
    "connect). --insecure-plaintext lets anybody in, unencrypted: for local use only.\n"
    "Prints a status line every --status-every seconds; Ctrl-C or SIGTERM stops it (exit 0).\n"
    "\n"
    "Flags:\n";

}  // namespace

int ControllerCommand(int argc, char** argv) {
  controller::ControllerFlags flags;
  FlagParser parser("controller");
#define POLLEN_ADD_FLAG(type, name, def, help) parser.Add(#name, &flags.name, help);
  POLLEN_CONTROLLER_FLAGS(POLLEN_ADD_FLAG)
#undef POLLEN_ADD_FLAG
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s%s", kControllerHelp, parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (!positional.empty()) {
    return UsageError("pollen controller takes no arguments, got '" + positional[0] +
                      "' (see pollen controller --help)");
  }
  Result<controller::ControllerOptions> options = controller::ControllerOptionsFromFlags(flags);
  if (!options.ok()) return UsageError(options.status().message());
  node::InstallInterruptHandler();
  return controller::RunController(std::move(options.value()), [] { return node::Interrupted(); });
}

}  // namespace pollen::cli
