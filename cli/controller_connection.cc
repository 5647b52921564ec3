#include "cli/controller_connection.h"

#include <cstdlib>

namespace pollen::cli {

const char kControllerFlagsHelp[] =
    "\n"
    "--controller, --key and --controller-key default to $POLLEN_CONTROLLER, $POLLEN_KEY and\n"
    "$POLLEN_CONTROLLER_KEY. Without --key, --insecure-plaintext must be given (a controller\n"
    "started with --insecure-plaintext).\n";

void AddControllerFlags(FlagParser* parser, ControllerConnectionFlags* flags,
                        const std::string& timeout_flag) {
#define POLLEN_ADD_FLAG(type, name, env, help)                   \
  if (const char* value = std::getenv(env)) flags->name = value; \
  parser->Add(#name, &flags->name, help);
  POLLEN_CONTROLLER_CLIENT_FLAGS(POLLEN_ADD_FLAG)
#undef POLLEN_ADD_FLAG
  parser->Add("insecure_plaintext", &flags->insecure_plaintext,
              "no authentication, no encryption (a controller run with --insecure-plaintext)");
  flags->timeout_flag = timeout_flag;
  parser->Add(timeout_flag, &flags->timeout, "seconds to wait for each answer of the controller");
}

Result<controller::ControllerClientOptions> ControllerClientOptionsFrom(
    const ControllerConnectionFlags& flags) {
  if (flags.controller.empty()) {
    return Status::Error(
        "no controller given: --controller=tcp://HOST:PORT (or set $POLLEN_CONTROLLER)");
  }
  if (flags.timeout == 0) {
    return Status::Error("--" + FlagDashedName(flags.timeout_flag) + " must be at least 1 second");
  }
  const bool curve = !flags.key.empty() || !flags.controller_key.empty();
  if (curve == flags.insecure_plaintext) {
    return Status::Error(curve
                             ? "--key/--controller-key and --insecure-plaintext exclude each other"
                             : "the controller needs --key=PREFIX and --controller-key=FILE "
                               "(CURVE), or --insecure-plaintext for a plain-text controller");
  }
  if (!curve) {
    controller::ControllerClientOptions options;
    options.controller = flags.controller;
    return options;
  }
  if (flags.key.empty() || flags.controller_key.empty()) {
    return Status::Error(
        "CURVE needs both --key=PREFIX (this host's keys) and "
        "--controller-key=FILE (the controller's .pub)");
  }
  return controller::ClientOptionsFromKeyFiles(flags.controller, flags.key, flags.controller_key);
}

Result<std::unique_ptr<controller::ControllerClient>> ConnectToController(
    const ControllerConnectionFlags& flags) {
  Result<controller::ControllerClientOptions> options = ControllerClientOptionsFrom(flags);
  if (!options.ok()) return options.status();
  return controller::ConnectController(*options);
}

}  // namespace pollen::cli
