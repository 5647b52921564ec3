// The address given to --http: "HOST:PORT", ":PORT" (every interface) or "[IPV6]:PORT";
// port 0 picks a free one (tests).
#ifndef POLLEN_OPS_HTTP_ADDRESS_H_
#define POLLEN_OPS_HTTP_ADDRESS_H_

#include <cstdint>
#include <string>

#include "base/status.h"

namespace pollen::ops {

// The help of the --http flag, the same for every command that takes it.
inline constexpr const char* kHttpFlagHelp =
    "serve /healthz, /readyz and /metrics (Prometheus) over HTTP on HOST:PORT or :PORT";

struct HttpAddress {
  std::string host;  // "0.0.0.0" for ":PORT"; without brackets for IPv6
  uint16_t port = 0;
};

// Errors name the flag's value and say what a valid one looks like.
Result<HttpAddress> ParseHttpAddress(const std::string& text);

}  // namespace pollen::ops

#endif  // POLLEN_OPS_HTTP_ADDRESS_H_
