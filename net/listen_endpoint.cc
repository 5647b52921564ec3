#include "net/listen_endpoint.h"

namespace pollen::net {

Status CheckTcpPort(const std::string& endpoint) {
  if (endpoint.rfind("tcp://", 0) != 0) return Status::Ok();
  size_t colon = endpoint.rfind(':');
  std::string port = colon == std::string::npos || colon < 6 ? "" : endpoint.substr(colon + 1);
  if (port == "*") return Status::Ok();
  bool digits = !port.empty() && port.size() <= 5 &&
                port.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoul(port) == 0 || std::stoul(port) > 65535) {
    return Status::Error("cannot listen on " + endpoint + ": the port must be * or 1 to 65535");
  }
  return Status::Ok();
}

}  // namespace pollen::net
