#include "controller/controller_options.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>

#include "net/curve_keys.h"

namespace pollen::controller {

Result<ControllerOptions> ControllerOptionsFromFlags(const ControllerFlags& flags) {
  if (flags.listen.empty()) {
    return Status::Error("pollen controller needs --listen=ADDR, e.g. --listen=tcp://*:7200");
  }
  if (flags.data.empty()) {
    return Status::Error(
        "pollen controller needs --data=DIR, where it keeps its registry and "
        "the campaigns' corpora and crashes");
  }
  if (flags.keys.empty() == !flags.insecure_plaintext) {
    return Status::Error(
        flags.keys.empty()
            ? "pollen controller needs --keys=DIR (CURVE) or, for local use, --insecure-plaintext"
            : "--keys and --insecure-plaintext exclude each other");
  }
  if (flags.lost_after == 0) return Status::Error("--lost-after must be at least 1 second");
  if (flags.forget_after < flags.lost_after) {
    return Status::Error("--forget-after must be at least --lost-after");
  }
  if (flags.high_water_mark == 0) return Status::Error("--high-water-mark must be at least 1");
  if (flags.max_message_kib < 64 || flags.max_message_kib > 64 * 1024) {
    return Status::Error("--max-message-kib must be between 64 and 65536");
  }
  if (flags.io_threads == 0 || flags.io_threads > 64) {
    return Status::Error("--io-threads must be between 1 and 64");
  }
  if (flags.max_streams == 0) return Status::Error("--max-streams must be at least 1");
  if (flags.stream_idle_timeout == 0) {
    return Status::Error("--stream-idle-timeout must be at least 1 second");
  }
  if (flags.max_record_mib == 0 || flags.max_record_mib > 4095) {
    return Status::Error("--max-record-mib must be between 1 and 4095");
  }
  ControllerOptions options;
  options.listen = flags.listen;
  options.data_dir = flags.data;
  options.allow_plaintext = flags.insecure_plaintext;
  options.limits.max_message_bytes = static_cast<size_t>(flags.max_message_kib) * 1024;
  options.limits.stream.max_record_bytes = uint64_t{flags.max_record_mib} << 20;
  // A chunk travels in one message, with room for the envelope.
  options.limits.stream.max_chunk_bytes =
      std::min<size_t>(options.limits.stream.max_chunk_bytes, options.limits.max_message_bytes / 2);
  options.streams.chunk_bytes =
      std::min(options.streams.chunk_bytes, options.limits.stream.max_chunk_bytes);
  options.streams.max_streams = flags.max_streams;
  options.streams.idle_timeout_ms = uint64_t{flags.stream_idle_timeout} * 1000;
  options.high_water_mark = static_cast<int>(flags.high_water_mark);
  options.io_threads = static_cast<int>(flags.io_threads);
  options.lost_after_ms = uint64_t{flags.lost_after} * 1000;
  options.forget_after_ms = uint64_t{flags.forget_after} * 1000;
  options.merge_every_ms = uint64_t{flags.merge_every} * 1000;
  options.status_interval_ms = uint64_t{flags.status_every} * 1000;
  if (flags.sample_every == 0) return Status::Error("--sample-every must be at least 1 second");
  options.sample_every_ms = uint64_t{flags.sample_every} * 1000;
  if (flags.keys.empty()) return options;

  const std::string key_file = flags.keys + "/controller.key";
  auto keys = net::ReadSecretKey(key_file);
  if (!keys.ok()) {
    return Status::Error(keys.status().message() + " (make it with: pollen keygen " + flags.keys +
                         "/controller)");
  }
  net::WarnIfKeyExposed(key_file);
  options.secret_key = keys->secret_key;
  options.authorized_dir = flags.keys + "/authorized";
  auto authorized = net::ReadAuthorizedKeys(options.authorized_dir);
  if (!authorized.ok()) {
    return Status::Error(authorized.status().message() +
                         " (put the .pub file of each node and developer host in it)");
  }
  if (authorized->empty()) {
    spdlog::warn("no keys in {} yet: every client is refused until its .pub file is added",
                 options.authorized_dir);
  }
  return options;
}

}  // namespace pollen::controller
