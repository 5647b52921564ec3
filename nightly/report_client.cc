#include "nightly/report_client.h"

#include <algorithm>

#include "controller/client/record_names.h"
#include "controller/client/stream_client.h"

namespace pollen::nightly {
namespace {

class MapSink : public transfer::RecordSink {
 public:
  explicit MapSink(std::map<std::string, std::string>* out) : out_(out) {}
  Status Commit(std::string_view name, std::string_view data) override {
    (*out_)[std::string(name)] = std::string(data);
    return Status::Ok();
  }

 private:
  std::map<std::string, std::string>* out_;
};

}  // namespace

Status PutNightReport(controller::ControllerClient& client, const std::string& campaign,
                      const std::string& night, const std::map<std::string, std::string>& files,
                      int timeout_ms) {
  controller::PutReportRequest request;
  request.campaign = campaign;
  request.night = night;
  for (const auto& [name, data] : files) request.files.push_back({name, data});
  Result<controller::ReportStoredReply> stored =
      client.Call<controller::ReportStoredReply>(request, timeout_ms);
  return stored.ok() ? Status::Ok() : stored.status();
}

Result<std::map<std::string, std::string>> PullNightReports(
    const controller::ControllerClientOptions& client, const std::string& campaign,
    const std::string& night, int timeout_ms) {
  std::map<std::string, std::string> files;
  MapSink sink(&files);
  controller::StreamClientOptions stream;
  stream.connect_timeout_ms = timeout_ms;
  stream.idle_timeout_ms = std::max(timeout_ms, 30000);
  Result<transfer::TransferCounters> pulled = controller::PullStream(
      client, controller::ReportsResource(campaign, night), "", &sink, nullptr, stream);
  if (!pulled.ok()) return pulled.status();
  return files;
}

Result<StoredReport> PullPreviousReport(const controller::ControllerClientOptions& client,
                                        const std::string& campaign, const std::string& night,
                                        int timeout_ms) {
  // The newest night is almost always the one before; when it is tonight (a night run again
  // without its state), every night is read to find the one before.
  for (const std::string which : {"latest", ""}) {
    Result<std::map<std::string, std::string>> files =
        PullNightReports(client, campaign, which, timeout_ms);
    if (!files.ok()) return files.status();
    StoredReport best;
    for (const auto& [name, data] : *files) {
      const std::string n = name.substr(0, name.find('/'));
      if (name == n + "/report.json" && n < night && n > best.night) best = {n, data};
    }
    if (!best.night.empty() || which.empty()) return best;
    if (files->empty()) return best;  // no report at all
  }
  return StoredReport{};
}

}  // namespace pollen::nightly
