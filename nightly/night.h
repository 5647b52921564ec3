// The steps of one night (nightly/night_runner.h): the state saved after each, and the
// report. Private to nightly/night_runner.cc (the order of the steps, the report) and
// nightly/night_steps.cc (the steps).
#ifndef POLLEN_NIGHTLY_NIGHT_H_
#define POLLEN_NIGHTLY_NIGHT_H_

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "controller/client/controller_client.h"
#include "nightly/night_runner.h"
#include "nightly/night_state.h"

namespace pollen::nightly {

// The JSON in a file; an error when it cannot be read or is not JSON.
Result<nlohmann::json> ReadJson(const std::filesystem::path& path);

class Night {
 public:
  Night(const NightOptions& options, controller::ControllerClient& client,
        std::filesystem::path dir)
      : o_(options), client_(client), dir_(std::move(dir)) {}

  Result<NightResult> Run();

 private:
  Status Save() { return SaveNightState((dir_ / "night.json").string(), s_); }
  Status Begin(const std::string& build_id);
  Status Carry();
  Status Cleanse();
  Result<bool> Fuzz();  // false: interrupted
  // Whether node status `n` counts for tonight: a local node of this night, or on the
  // cluster a node of tonight's build.
  bool Tonight(const controller::NodeStatus& n) const {
    return o_.campaign.cluster ? n.build_id == s_.build_id
                               : n.node_id.rfind(NodeIdPrefix(), 0) == 0;
  }
  Status Merge();
  Status Coverage();
  Status Sanitize();
  Result<NightResult> Report();
  // The merged corpus of tonight's build in DIR/corpus, pulled once per run.
  Result<std::filesystem::path> MergedCorpus();
  Result<uint64_t> Executions();
  // The campaign as the controller knows it; nullopt when it does not (no node joined it
  // yet). Errors: the controller's (unreachable: the step is run again on resume).
  Result<std::optional<controller::CampaignSummary>> Campaign();
  Result<bool> EndFuzz();  // the checks after the fuzzing, either way; the step done
  std::string NodeIdPrefix() const { return "nightly-" + s_.campaign + "-" + s_.night + "-"; }

  const NightOptions& o_;
  controller::ControllerClient& client_;
  std::filesystem::path dir_;
  NightState s_;
  bool corpus_pulled_ = false;
};

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_NIGHT_H_
