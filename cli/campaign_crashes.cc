#include "cli/campaign_crashes.h"

#include <string_view>
#include <utility>
#include <vector>

#include "controller/client/record_names.h"
#include "controller/client/stream_client.h"
#include "node/artifacts.h"
#include "node/failure.h"

namespace pollen::cli {

Result<controller::CrashSummary> PickCrash(const std::vector<controller::CrashSummary>& crashes,
                                           const std::string& selector) {
  std::vector<const controller::CrashSummary*> matches;
  for (const controller::CrashSummary& crash : crashes) {
    if (crash.signature == selector) return crash;
    if (selector.size() >= 4 && crash.signature.rfind(selector, 0) == 0) matches.push_back(&crash);
  }
  if (matches.size() == 1) return *matches[0];
  if (matches.empty()) {
    return Status::Error("no crash with signature '" + selector + "'" +
                         (selector.size() < 4 ? " (give at least 4 characters)" : "") +
                         ": `pollen crashes list CAMPAIGN` shows them");
  }
  std::string names;
  for (const controller::CrashSummary* m : matches) names += " " + m->signature;
  return Status::Error("'" + selector + "' matches " + std::to_string(matches.size()) +
                       " crashes:" + names + ": give more of the signature");
}

namespace {

// Keeps the records of a crash stream: "input" and "report".
class CrashRecordSink : public transfer::RecordSink {
 public:
  Status Commit(std::string_view name, std::string_view data) override {
    if (name == "input") {
      input.assign(data.begin(), data.end());
      has_input = true;
    } else if (name == "report") {
      report.assign(data);
    }  // else: a record a newer controller added; nothing to keep it for
    return Status::Ok();
  }
  std::vector<uint8_t> input;
  std::string report;
  bool has_input = false;
};

}  // namespace

Result<std::string> PullReproducer(const controller::ControllerClientOptions& client,
                                   const controller::CampaignSummary& campaign,
                                   const controller::CrashSummary& crash, const std::string& dir,
                                   int timeout_ms) {
  CrashRecordSink sink;
  controller::StreamClientOptions stream;
  stream.connect_timeout_ms = timeout_ms;
  stream.idle_timeout_ms = timeout_ms;
  Result<transfer::TransferCounters> pulled =
      controller::PullStream(client, controller::CrashResource(campaign.name, crash.signature), "",
                             &sink, nullptr, stream);
  if (!pulled.ok()) return pulled.status();
  if (!sink.has_input) {
    return Status::Error("controller at " + client.controller + " sent no reproducer for crash " +
                         crash.signature);
  }
  node::Failure failure;
  failure.kind = crash.kind;
  failure.signature = crash.signature;
  failure.summary = "from campaign " + campaign.name + " (controller " + client.controller +
                    "), seen " + std::to_string(crash.count) + " times";
  failure.report = std::move(sink.report);
  return node::SaveArtifact(dir, sink.input, failure, campaign.target);
}

}  // namespace pollen::cli
