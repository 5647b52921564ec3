// pollen keygen PREFIX
#include <cstdio>

#include "cli/commands.h"
#include "cli/flag_parser.h"
#include "cli/target_setup.h"
#include "net/curve_keys.h"

namespace pollen::cli {
namespace {

const char kKeygenHelp[] =
    "Usage: pollen keygen PREFIX [--force]\n"
    "\n"
    "Makes a CURVE key pair for the cluster (docs/cluster.md): PREFIX.key, the secret key,\n"
    "readable by its owner only, and PREFIX.pub, the public key. A broker's keys directory\n"
    "holds broker.key and an authorized/ directory with the .pub file of each node allowed\n"
    "in; a node needs its own .key and the broker's .pub.\n"
    "\n"
    "Flags:\n";

}  // namespace

int KeygenCommand(int argc, char** argv) {
  bool force = false;
  FlagParser parser("keygen");
  parser.Add("force", &force, "replace existing key files");
  std::vector<std::string> positional;
  bool help = false;
  Status parsed = parser.Parse(argc, argv, &positional, &help);
  if (help) {
    std::printf("%s%s", kKeygenHelp, parser.Usage().c_str());
    return kExitOk;
  }
  if (!parsed.ok()) return UsageError(parsed.message());
  if (positional.size() != 1) {
    return UsageError("pollen keygen needs one PREFIX (see pollen keygen --help)");
  }
  auto keys = net::GenerateKeyPair();
  if (!keys.ok()) return UsageError(keys.status().message());
  const std::string& prefix = positional[0];
  Status written = net::WriteKeyPair(prefix, keys.value(), force);
  if (!written.ok()) return UsageError(written.message());
  std::printf("wrote %s.key (secret: keep it private) and %s.pub (public key %s)\n", prefix.c_str(),
              prefix.c_str(), keys->public_key.c_str());
  return kExitOk;
}

}  // namespace pollen::cli
