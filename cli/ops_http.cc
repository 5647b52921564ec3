#include "cli/ops_http.h"

#include <spdlog/spdlog.h>

namespace pollen::cli {

Result<std::unique_ptr<ops::OpsServer>> StartHttp(const std::string& command,
                                                  const std::string& address,
                                                  ops::OpsEndpoints endpoints) {
  if (address.empty()) return std::unique_ptr<ops::OpsServer>();
  auto server = ops::StartOpsServer(address, std::move(endpoints));
  if (!server.ok()) return Status::Error("--http: " + server.status().message());
  spdlog::info("{}: /healthz, /readyz and /metrics on http://{}", command, (*server)->address());
  return server;
}

}  // namespace pollen::cli
