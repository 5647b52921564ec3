// --http=ADDR of the long-running commands (`pollen broker`, `controller`, `node`): starts
// the /healthz, /readyz and /metrics endpoints (ops/ops_server.h) and says where.
#ifndef POLLEN_CLI_OPS_HTTP_H_
#define POLLEN_CLI_OPS_HTTP_H_

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "ops/http_address.h"
#include "ops/ops_server.h"

namespace pollen::cli {

// Null when `address` is empty (no --http); an error for a bad or busy address.
Result<std::unique_ptr<ops::OpsServer>> StartHttp(const std::string& command,
                                                  const std::string& address,
                                                  ops::OpsEndpoints endpoints);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_OPS_HTTP_H_
