#include "nightly/webhook.h"

#include <httplib.h>

#include <chrono>
#include <thread>

namespace pollen::nightly {
namespace {

struct Url {
  std::string origin;  // scheme://host[:port]
  std::string path;
};

Result<Url> ParseUrl(const std::string& url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    return Status::Error("webhook '" + url + "' is not a URL (http://... or https://...)");
  }
  const std::string scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return Status::Error("webhook '" + url + "': only http and https are supported");
  }
  const size_t host_start = scheme_end + 3;
  const size_t path_start = url.find('/', host_start);
  Url out;
  out.origin = url.substr(0, path_start);
  out.path = path_start == std::string::npos ? "/" : url.substr(path_start);
  if (out.origin.size() <= host_start) return Status::Error("webhook '" + url + "' has no host");
  // A port, if any, is 1-65535 (httplib would throw on one that does not fit an int).
  const std::string host = out.origin.substr(host_start);
  const size_t colon = host.rfind(':');
  if (colon != std::string::npos && host.find(']', colon) == std::string::npos) {
    const std::string port = host.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) == 0 ||
        std::stoul(port) > 65535) {
      return Status::Error("webhook '" + url + "': '" + port + "' is not a port");
    }
  }
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return Status::Error("webhook URL has a space or a control character");
    }
  }
  return out;
}

}  // namespace

Status CheckWebhookUrl(const std::string& url) {
  Result<Url> parsed = ParseUrl(url);
  return parsed.ok() ? Status::Ok() : parsed.status();
}

Status PostWebhook(const WebhookOptions& options, const std::string& json) {
  Result<Url> url = ParseUrl(options.url);
  if (!url.ok()) return url.status();
  std::string last;
  // httplib reports most failures as values, but its constructor and parsing may throw:
  // this is their one boundary.
  try {
    httplib::Client client(url->origin);
    client.set_connection_timeout(static_cast<time_t>(options.timeout_s), 0);
    client.set_read_timeout(static_cast<time_t>(options.timeout_s), 0);
    client.set_write_timeout(static_cast<time_t>(options.timeout_s), 0);
    for (uint32_t attempt = 0; attempt < std::max<uint32_t>(1, options.attempts); attempt++) {
      if (attempt > 0) std::this_thread::sleep_for(std::chrono::seconds(1u << (attempt - 1)));
      httplib::Request request;
      request.method = "POST";
      request.path = url->path;
      request.body = json;
      request.set_header("Content-Type", "application/json");
      // The answer's body is not needed: at most 64 KiB of it, and within the timeout
      // however slowly it comes (a receiver that returns false ends the request).
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_s);
      size_t received = 0;
      request.content_receiver = [&](const char*, size_t n, uint64_t, uint64_t) {
        received += n;
        return received <= (64u << 10) && std::chrono::steady_clock::now() < deadline;
      };
      httplib::Result res = client.send(request);
      if (!res) {
        last = "no answer (" + httplib::to_string(res.error()) + ")";
        continue;
      }
      if (res->status >= 200 && res->status < 300) return Status::Ok();
      last = "answered HTTP " + std::to_string(res->status);
      if (res->status < 500 && res->status != 429) break;  // our request is wrong: no retry
    }
  } catch (const std::exception& e) {
    last = std::string("failed: ") + e.what();
  }
  return Status::Error("webhook " + url->origin + " " + last);
}

}  // namespace pollen::nightly
