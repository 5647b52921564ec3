// pollen config [--cflags] [--ldflags] [--archive]: the flags that build a fuzz target with
// Pollen, as `-fsanitize=fuzzer` does for libFuzzer (docs/targets.md):
//   clang++-14 -g -O1 $(pollen config --cflags) -fsanitize=address harness.cc \
//       $(pollen config --ldflags) -o fuzzer
// The archive is found beside this binary: in the install's LIBDIR (POLLEN_LIBDIR_FROM_BINDIR,
// from cli/CMakeLists.txt) where it is installed, ../engine/runtime/ in a build tree;
// POLLEN_FUZZER_ARCHIVE overrides both.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"

#ifndef POLLEN_LIBDIR_FROM_BINDIR
#define POLLEN_LIBDIR_FROM_BINDIR "../lib"
#endif

namespace pollen::cli {
namespace {

namespace fs = std::filesystem;

const char kConfigHelp[] =
    "Usage: pollen config [--cflags] [--ldflags] [--archive]\n"
    "\n"
    "Prints the flags that build a fuzz target with Pollen instead of libFuzzer:\n"
    "  clang++-14 -g -O1 $(pollen config --cflags) -fsanitize=address harness.cc \\\n"
    "      $(pollen config --ldflags) -o fuzzer\n"
    "--cflags: SanitizerCoverage as libFuzzer's -fsanitize=fuzzer sets it, without libFuzzer;\n"
    "--ldflags: libpollen_fuzzer.a (runtime and Cap'n Proto in one archive: the target needs\n"
    "no shared library of Pollen's) and the C++ runtime, for a link by clang as well;\n"
    "--archive: the archive's path alone. With no flag, all three, one per line.\n"
    "The archive is found beside this binary (in the install's lib directory, or in\n"
    "../engine/runtime/ in a build tree) or where POLLEN_FUZZER_ARCHIVE says.\n"
    "\n"
    "Flags:\n";

constexpr char kCflags[] = "-fsanitize=fuzzer-no-link";

// The archive, or an error that says where it was looked for.
Result<std::string> FindArchive() {
  if (const char* env = std::getenv("POLLEN_FUZZER_ARCHIVE"); env != nullptr && *env != '\0') {
    std::error_code ec;
    if (!fs::is_regular_file(env, ec)) {
      return Status::Error(std::string("POLLEN_FUZZER_ARCHIVE=") + env + " is not a file");
    }
    return fs::absolute(env, ec).lexically_normal().string();
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return Status::Error("cannot find this binary (/proc/self/exe): " + ec.message());
  const fs::path dir = self.parent_path();
  std::vector<fs::path> candidates = {dir / POLLEN_LIBDIR_FROM_BINDIR / "libpollen_fuzzer.a",
                                      dir / "../engine/runtime/libpollen_fuzzer.a"};
  for (const fs::path& p : candidates) {
    if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
  }
  return Status::Error("libpollen_fuzzer.a is neither in " +
                       candidates[0].lexically_normal().string() + " nor in " +
                       candidates[1].lexically_normal().string() +
                       ": build it (scripts/build.sh pollen builds it too) or set "
                       "POLLEN_FUZZER_ARCHIVE");
}

}  // namespace

int ConfigCommand(int argc, char** argv) {
  bool cflags = false, ldflags = false, archive = false;
  FlagParser parser("config");
  parser.Add("cflags", &cflags, "the compiler flags");
  parser.Add("ldflags", &ldflags, "the linker flags (the archive and the C++ runtime)");
  parser.Add("archive", &archive, "the archive's path");
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s%s", kConfigHelp, parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (!positional.empty()) return UsageError("pollen config takes flags only (see --help)");
  const bool all = !cflags && !ldflags && !archive;
  std::string path;
  if (ldflags || archive || all) {
    Result<std::string> found = FindArchive();
    if (!found.ok()) return UsageError(found.status().message());
    path = found.value();
  }
  std::vector<std::string> parts;
  if (cflags || all) parts.push_back(kCflags);
  if (ldflags || all) parts.push_back(path + " -lstdc++ -lm -lpthread");
  if (archive || all) parts.push_back(path);
  std::string line;
  for (const std::string& p : parts) line += (line.empty() ? "" : all ? "\n" : " ") + p;
  std::printf("%s\n", line.c_str());
  return kExitOk;
}

}  // namespace pollen::cli
