// The nightly's notifications (docs/nightly.md, "Notifications"): a JSON POST to the
// campaign's webhook for each new crash, each crash that came back and each fix of the night,
// once per signature and event: `notified` holds what was sent ("event:signature"), and
// `save` is called after each send, so that a resumed night does not send twice. After one
// event fails, the others are not tried (the webhook is down: they would only wait on it).
#ifndef POLLEN_NIGHTLY_NOTIFICATIONS_H_
#define POLLEN_NIGHTLY_NOTIFICATIONS_H_

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "nightly/campaign_file.h"
#include "nightly/night_report.h"

namespace pollen::nightly {

// Sends the night's events (none without a webhook). Returns "" when all went, else the
// problem to put in the report.
std::string NotifyNight(const NightlyCampaign& campaign, const std::string& night,
                        const std::string& build_id, const NightReportInput& input,
                        std::vector<std::string>* notified, const std::function<Status()>& save);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_NOTIFICATIONS_H_
