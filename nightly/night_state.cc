#include "nightly/night_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nightly/json_text.h"

namespace pollen::nightly {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CarryStep, done, from_build, entries)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CleanseRecord, signature, kind, outcome,
                                                now_signature, detail)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CleanseStep, done, records)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FuzzStep, done, elapsed_s, runs, pids,
                                                nodes_started, nodes_died, node_failures,
                                                registered)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MergeStep, done, entries_before, entries_after,
                                                features, duration_ms, error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CoverageStep, done, skipped, error, summary)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NightState, campaign, night, build_id,
                                                previous_night, started_unix_ms, ledger_before,
                                                previous_coverage, problems, carry, cleanse, fuzz,
                                                merge, coverage, notified, reported)

nlohmann::json NightStateToJson(const NightState& state) { return state; }

Status SaveNightState(const std::string& path, const NightState& state) {
  const std::string text = JsonText(NightStateToJson(state)) + "\n";
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Error("cannot write " + tmp + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = std::strerror(errno);
      close(fd);
      return Status::Error("cannot write " + tmp + ": " + why);
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) return Status::Error("cannot write " + tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::Error("cannot rename " + tmp + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Result<std::optional<NightState>> LoadNightState(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<NightState>();
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return Status::Error("cannot read " + path);
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Error(path +
                         " is not a night's state (not JSON): move it away to start the "
                         "night again");
  }
  try {
    return std::optional<NightState>(j.get<NightState>());
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(path + " is not a night's state: " + e.what());
  }
}

}  // namespace pollen::nightly
