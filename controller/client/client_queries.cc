#include "controller/client/client_queries.h"

#include <cctype>
#include <utility>

namespace pollen::controller {

Result<CampaignSummary> FindCampaign(ControllerClient& client, const std::string& name,
                                     int timeout_ms) {
  Result<CampaignsReply> campaigns =
      client.Call<CampaignsReply>(ListCampaignsRequest{}, timeout_ms);
  if (!campaigns.ok()) return campaigns.status();
  std::string known;
  for (const CampaignSummary& c : campaigns->campaigns) {
    if (c.name == name) return c;
    known += (known.empty() ? "" : ", ") + c.name;
  }
  return Status::Error("controller at " + client.endpoint() + " has no campaign '" + name + "' (" +
                       kHowCampaignsBegin + "; it has: " + (known.empty() ? "none yet" : known) +
                       ")");
}

Result<std::vector<CrashSummary>> ListCampaignCrashes(ControllerClient& client,
                                                      const CampaignRef& campaign, int timeout_ms) {
  std::vector<CrashSummary> all;
  ListCrashesRequest request{campaign, ""};
  while (true) {
    Result<CrashListReply> page = client.Call<CrashListReply>(request, timeout_ms);
    if (!page.ok()) return page.status();
    for (CrashSummary& crash : page->crashes) all.push_back(std::move(crash));
    if (!page->truncated || page->crashes.empty()) return all;
    // Pages come in signature order: the next one starts after the last signature seen.
    if (all.back().signature <= request.after) {
      return Status::Error("controller at " + client.endpoint() +
                           " sent a crash page out of order: stopped listing");
    }
    request.after = all.back().signature;
  }
}

std::string CrashFileName(const CrashSummary& crash) {
  std::string name = (crash.kind.empty() ? "crash" : crash.kind) + "-" + crash.signature;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return name;
}

}  // namespace pollen::controller
