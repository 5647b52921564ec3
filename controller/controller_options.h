// The options of `pollen controller`: one flag list (expanded into ControllerFlags, the
// flag parser and --help by cli/), and ControllerOptions, what StartController takes, made
// from the flags by ControllerOptionsFromFlags (which reads the keys).
#ifndef POLLEN_CONTROLLER_CONTROLLER_OPTIONS_H_
#define POLLEN_CONTROLLER_CONTROLLER_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "controller/client/controller_message.h"
#include "controller/controller_status.h"
#include "controller/stream_server.h"
#include "ops/http_address.h"

namespace pollen::controller {

// X(type, name, default, help)
#define POLLEN_CONTROLLER_FLAGS(X)                                                          \
  X(std::string, listen, "", "ZeroMQ endpoint to listen on, e.g. tcp://*:7200")             \
  X(std::string, data, "", "data directory: registry/ and campaigns/ (created if absent)")  \
  X(std::string, keys, "",                                                                  \
    "directory with controller.key and authorized/*.pub (CURVE; the broker's rules)")       \
  X(bool, insecure_plaintext, false, "no authentication, no encryption (local use only)")   \
  X(uint32_t, lost_after, 15, "seconds without a heartbeat after which a node is lost")     \
  X(uint32_t, forget_after, 86400, "seconds a lost node is kept in the registry")           \
  X(uint32_t, merge_every, 600,                                                             \
    "seconds between merges (set cover + compaction) of a corpus that grew; 0 = on demand") \
  X(uint32_t, status_every, 10, "seconds between status lines; 0 = none")                   \
  X(uint32_t, sample_every, 60, "seconds between the dashboard's samples of each campaign") \
  X(uint32_t, high_water_mark, 10000, "replies queued per peer before more are dropped")    \
  X(uint32_t, max_message_kib, 2048, "largest message accepted, KiB")                       \
  X(uint32_t, io_threads, 1, "ZeroMQ I/O threads (they do the CURVE encryption)")           \
  X(uint32_t, max_streams, 16, "streams (corpus pulls and pushes) served at once")          \
  X(uint32_t, stream_idle_timeout, 60,                                                      \
    "seconds of silence after which a stream's peer is given up (a push keeps its cursor)") \
  X(uint32_t, max_record_mib, 64, "largest record (one input) a stream carries, MiB")       \
  X(std::string, http, "", ops::kHttpFlagHelp)                                              \
  X(std::string, http_token, "",                                                            \
    "file holding the token the dashboard (on --http) asks for; without it the dashboard "  \
    "is served on a loopback address only")

struct ControllerFlags {
#define POLLEN_DECLARE_FLAG(type, name, def, help) type name = def;
  POLLEN_CONTROLLER_FLAGS(POLLEN_DECLARE_FLAG)
#undef POLLEN_DECLARE_FLAG
};

struct ControllerOptions {
  // Where to listen: a ZeroMQ endpoint such as tcp://*:7200 or tcp://127.0.0.1:* (any port).
  std::string listen;
  // The data directory: absent, empty, or one a controller made before.
  std::string data_dir;
  // CURVE: the controller's secret key (Z85) and the directory of the authorised clients'
  // .pub files (nodes and developer hosts). Both empty means plain text, refused unless
  // allow_plaintext.
  std::string secret_key;
  std::string authorized_dir;
  bool allow_plaintext = false;

  ControllerLimits limits;
  int high_water_mark = 10000;
  int io_threads = 1;
  uint64_t lost_after_ms = 15000;
  uint64_t forget_after_ms = 24ull * 3600 * 1000;
  uint64_t merge_every_ms = 600 * 1000;  // 0: merges only on demand
  size_t batch = 256;                    // requests handled per wake-up, between timer checks
  StreamServerOptions streams;           // record sizes are in limits.stream

  // Between the dashboard's samples of each campaign (controller/campaign_samples.h).
  uint64_t sample_every_ms = 60000;
  // Called from Run's thread every status_interval_ms (0: never).
  uint64_t status_interval_ms = 0;
  std::function<void(const ControllerStatus&)> on_status;
};

// Checks the flags and makes the options: reads KEYS/controller.key (warning when others may
// read it) and checks KEYS/authorized/. Errors say which flag is wrong and what to do.
Result<ControllerOptions> ControllerOptionsFromFlags(const ControllerFlags& flags);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CONTROLLER_OPTIONS_H_
