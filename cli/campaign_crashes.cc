#include "cli/campaign_crashes.h"

#include "node/artifacts.h"
#include "node/failure.h"

namespace pollen::cli {

Result<controller::CampaignSummary> FindCampaign(controller::ControllerClient& client,
                                                 const std::string& name, int timeout_ms) {
  Result<controller::CampaignsReply> campaigns =
      client.Call<controller::CampaignsReply>(controller::ListCampaignsRequest{}, timeout_ms);
  if (!campaigns.ok()) return campaigns.status();
  std::string known;
  for (const controller::CampaignSummary& c : campaigns->campaigns) {
    if (c.name == name) return c;
    known += (known.empty() ? "" : ", ") + c.name;
  }
  return Status::Error("controller at " + client.endpoint() + " has no campaign '" + name +
                       "' (it has: " + (known.empty() ? "none yet" : known) + ")");
}

Result<std::vector<controller::CrashSummary>> ListCampaignCrashes(
    controller::ControllerClient& client, const std::string& campaign, int timeout_ms) {
  std::vector<controller::CrashSummary> all;
  controller::ListCrashesRequest request{{campaign, ""}, ""};
  while (true) {
    Result<controller::CrashListReply> page =
        client.Call<controller::CrashListReply>(request, timeout_ms);
    if (!page.ok()) return page.status();
    for (controller::CrashSummary& crash : page->crashes) all.push_back(std::move(crash));
    if (!page->truncated || page->crashes.empty()) return all;
    // Pages come in signature order: the next one starts after the last signature seen.
    if (all.back().signature <= request.after) {
      return Status::Error("controller at " + client.endpoint() +
                           " sent a crash page out of order: stopped listing");
    }
    request.after = all.back().signature;
  }
}

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

Result<std::string> PullReproducer(controller::ControllerClient& client,
                                   const controller::CampaignSummary& campaign,
                                   const std::string& signature, const std::string& dir,
                                   int timeout_ms) {
  Result<controller::CrashDetailReply> detail = client.Call<controller::CrashDetailReply>(
      controller::GetCrashRequest{{campaign.name, ""}, signature}, timeout_ms);
  if (!detail.ok()) return detail.status();
  node::Failure failure;
  failure.kind = detail->summary.kind;
  failure.signature = detail->summary.signature;
  failure.summary = "from campaign " + campaign.name + " (controller " + client.endpoint() +
                    "), seen " + std::to_string(detail->summary.count) + " times";
  failure.report = detail->report;
  return node::SaveArtifact(dir, detail->input, failure, campaign.target);
}

}  // namespace pollen::cli
