#include "ops/http_address.h"

#include <cctype>

namespace pollen::ops {

Result<HttpAddress> ParseHttpAddress(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Status::Error("bad HTTP address '" + text + "': " + why +
                         " (expected HOST:PORT or :PORT, e.g. :9100 or 127.0.0.1:9100)");
  };
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) return bad("no port");
  HttpAddress address;
  address.host = text.substr(0, colon);
  if (address.host.size() >= 2 && address.host.front() == '[' && address.host.back() == ']') {
    address.host = address.host.substr(1, address.host.size() - 2);
  } else if (address.host.find(':') != std::string::npos) {
    return bad("an IPv6 address needs brackets, as in [::1]:9100");
  }
  if (address.host.empty()) address.host = "0.0.0.0";
  if (address.host.size() > 253) return bad("host name too long");
  for (char c : address.host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' &&
        c != '_') {
      return bad("the host has a character that no host name or address has");
    }
  }
  const std::string port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5) return bad("the port must be a number from 0 to 65535");
  uint32_t value = 0;
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return bad("the port must be a number from 0 to 65535");
    }
    value = value * 10 + static_cast<uint32_t>(c - '0');
  }
  if (value > 65535) return bad("the port must be a number from 0 to 65535");
  address.port = static_cast<uint16_t>(value);
  return address;
}

}  // namespace pollen::ops
