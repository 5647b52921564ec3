#include "nightly/notifications.h"

#include <algorithm>

#include "nightly/json_text.h"
#include "nightly/webhook.h"

namespace pollen::nightly {
namespace {

// Where and how a night's events go.
struct Event {
  WebhookOptions webhook;
  const std::string& campaign;
  const std::string& night;
  const std::string& build_id;
  std::vector<std::string>* notified;
  const std::function<Status()>& save;
};

// One event, unless `notified` says it was sent (a resumed night); then it is recorded.
Status Send(const Event& e, const std::string& event, const std::string& signature,
            nlohmann::json body) {
  const std::string key = event + ":" + signature;
  if (std::find(e.notified->begin(), e.notified->end(), key) != e.notified->end()) {
    return Status::Ok();  // a resumed night: sent before
  }
  body["event"] = event;
  body["campaign"] = e.campaign;
  body["night"] = e.night;
  body["build_id"] = e.build_id;
  body["signature"] = signature;
  Status posted = PostWebhook(e.webhook, JsonText(body, -1));
  if (!posted.ok()) return posted;
  e.notified->push_back(key);
  return e.save();
}

}  // namespace

std::string NotifyNight(const NightlyCampaign& campaign, const std::string& night,
                        const std::string& build_id, const NightReportInput& input,
                        std::vector<std::string>* notified, const std::function<Status()>& save) {
  if (campaign.webhook.empty()) return "";
  Event ev{{campaign.webhook, campaign.webhook_timeout_s, campaign.webhook_attempts},
           campaign.campaign,
           night,
           build_id,
           notified,
           save};
  std::vector<std::string> failures;
  auto crash_event = [&](const char* event, const char* verb, const CrashFinding& f) {
    nlohmann::json body = {
        {"kind", f.crash.kind},
        {"summary", f.summary},
        {"stack", f.stack},
        {"reproducer", f.reproducer},
        {"text", "Pollen nightly: " + campaign.campaign + ": " + verb + " " + f.crash.kind + " " +
                     f.crash.signature + " in build " + build_id + " (" + f.summary + ")"}};
    if (!failures.empty()) {  // the webhook is down: the rest would only wait on it
      failures.push_back("not sent");
      return;
    }
    Status sent = Send(ev, event, f.crash.signature, std::move(body));
    if (!sent.ok()) failures.push_back(sent.message());
  };
  for (const CrashFinding& f : input.fresh) crash_event("new-crash", "new crash", f);
  for (const CrashFinding& f : input.regressed) crash_event("regressed", "crash came back:", f);
  for (const LedgerEntry& e : input.fixed) {
    nlohmann::json body = {
        {"kind", e.kind},
        {"first_night", e.first_night},
        {"fixed_build", e.fixed_build},
        {"text", "Pollen nightly: " + campaign.campaign + ": fixed " + e.kind + " " + e.signature +
                     " (first seen " +
                     (e.first_night.empty() ? "before the nightly" : e.first_night) +
                     "), no longer reproduces on build " + build_id}};
    if (!failures.empty()) {
      failures.push_back("not sent");
      continue;
    }
    Status sent = Send(ev, "fixed", e.signature, std::move(body));
    if (!sent.ok()) failures.push_back(sent.message());
  }
  if (failures.empty()) return "";
  return "notifications: " + std::to_string(failures.size()) + " could not be sent (" +
         failures.front() + ")";
}

}  // namespace pollen::nightly
