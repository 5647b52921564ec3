// pollen fuzz TARGET [CORPUS_DIR...]
#include <cstdio>

#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/fuzz_session.h"
#include "cli/target_setup.h"

namespace pollen::cli {
namespace {

const char kFuzzHelp[] =
    "Usage: pollen fuzz TARGET [CORPUS_DIR...] [flags]\n"
    "\n"
    "Fuzzes TARGET, a libFuzzer harness built with `pollen config --cflags --ldflags`\n"
    "(libpollen_fuzzer.a), with one worker process per core. The inputs in each CORPUS_DIR are\n"
    "run first (they are read, never written). The live corpus and the failure artifacts\n"
    "live in the work directory, so a second run resumes where the first stopped.\n"
    "Stops at the first failure (exit code 1) unless --keep-going; Ctrl-C stops cleanly.\n"
    "\n"
    "Flags:\n";

}  // namespace

int FuzzCommand(int argc, char** argv) {
  node::FuzzOptions options;
  FlagParser parser("fuzz");
  AddFuzzFlags(parser, &options);
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s%s", kFuzzHelp, parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional.empty()) return UsageError("pollen fuzz needs a TARGET (see pollen fuzz --help)");
  options.target = positional[0];
  options.corpus_dirs.assign(positional.begin() + 1, positional.end());
  return RunFuzzSession("fuzz", options, nullptr);
}

}  // namespace pollen::cli
