// The nightly's notifications (docs/nightly.md, "Notifications"): a JSON POST to the
// campaign's webhook for each new crash signature, each crash that came back and each fix,
// once per signature and event however many nodes and nights see it (the crash ledger
// decides what is new; the night's state remembers what was sent, so a resumed night does not
// send twice). The body carries a "text" line too, which chat webhooks (Slack, Mattermost)
// show as it is.
#ifndef POLLEN_NIGHTLY_WEBHOOK_H_
#define POLLEN_NIGHTLY_WEBHOOK_H_

#include <cstdint>
#include <string>

#include "base/status.h"

namespace pollen::nightly {

struct WebhookOptions {
  std::string url;          // http:// or https://host[:port][/path]
  uint32_t timeout_s = 10;  // per attempt: connecting, sending, the answer
  uint32_t attempts = 3;    // with 1 s, 2 s, 4 s... between them
};

// Ok for an http:// or https:// URL with a host. Errors say what is wrong.
Status CheckWebhookUrl(const std::string& url);

// POSTs `json` (Content-Type: application/json); a 2xx answer is success. Retries on a
// connection error, a timeout or a 5xx/429 answer; other answers fail at once. Errors name
// the URL's host and the last failure.
Status PostWebhook(const WebhookOptions& options, const std::string& json);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_WEBHOOK_H_
