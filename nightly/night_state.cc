#include "nightly/night_state.h"

#include <filesystem>

#include "nightly/json_text.h"
#include "node/text_file.h"

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
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SanitizeFinding, sanitizer, signature, kind)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SanitizeStep, done, inputs, findings)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NightState, campaign, night, build_id,
                                                previous_night, started_unix_ms, ledger_before,
                                                previous_coverage, problems, carry, cleanse, fuzz,
                                                merge, coverage, sanitize, notified, reported)

nlohmann::json NightStateToJson(const NightState& state) { return state; }

Status SaveNightState(const std::string& path, const NightState& state) {
  return node::WriteTextFile(path, JsonText(NightStateToJson(state)) + "\n");
}

Result<std::optional<NightState>> LoadNightState(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<NightState>();
  Result<std::string> text = node::ReadTextFile(path);
  if (!text.ok()) return text.status();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
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
