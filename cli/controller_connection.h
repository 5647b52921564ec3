// What every developer-host command that talks to the controller shares: its flags
// (--controller, --key, --controller-key, --insecure-plaintext, --timeout, with defaults
// from the environment so that a developer sets them once), and the connection.
#ifndef POLLEN_CLI_CONTROLLER_CONNECTION_H_
#define POLLEN_CLI_CONTROLLER_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "cli/flag_parser.h"
#include "controller/client/controller_client.h"

namespace pollen::cli {

// X(type, name, environment variable for the default, help)
#define POLLEN_CONTROLLER_CLIENT_FLAGS(X)                            \
  X(std::string, controller, "POLLEN_CONTROLLER",                    \
    "the controller's endpoint, e.g. tcp://controller-host:7200")    \
  X(std::string, key, "POLLEN_KEY",                                  \
    "this host's key pair PREFIX: reads PREFIX.key (pollen keygen)") \
  X(std::string, controller_key, "POLLEN_CONTROLLER_KEY",            \
    "the controller's public key file (controller.pub)")

struct ControllerConnectionFlags {
#define POLLEN_DECLARE_FLAG(type, name, env, help) type name;
  POLLEN_CONTROLLER_CLIENT_FLAGS(POLLEN_DECLARE_FLAG)
#undef POLLEN_DECLARE_FLAG
  bool insecure_plaintext = false;
  uint32_t timeout = 10;                 // seconds per request
  std::string timeout_flag = "timeout";  // its name on this command's line
};

// Adds the flags to `parser`, each defaulting to its environment variable when set. The
// request timeout is --timeout, or --`timeout_flag` on a command whose --timeout means
// something else (repro's is the input's: --controller-timeout there).
void AddControllerFlags(FlagParser* parser, ControllerConnectionFlags* flags,
                        const std::string& timeout_flag = "timeout");

// The text --help prints after the flags, on the environment variables.
extern const char kControllerFlagsHelp[];

// Checks the flags and reads the key files: the options a ControllerClient or a stream
// (controller/client/stream_client.h) takes. Errors say which flag or file is wrong.
Result<controller::ControllerClientOptions> ControllerClientOptionsFrom(
    const ControllerConnectionFlags& flags);

// ControllerClientOptionsFrom, then connects.
Result<std::unique_ptr<controller::ControllerClient>> ConnectToController(
    const ControllerConnectionFlags& flags);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_CONTROLLER_CONNECTION_H_
