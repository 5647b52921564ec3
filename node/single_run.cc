#include "node/single_run.h"

#include <algorithm>

#include "base/sha1.h"
#include "node/artifacts.h"

namespace pollen::node {

Result<std::string> BuildIdOf(const std::string& target) {
  auto data = ReadWholeFile(target);
  if (!data.ok()) return data.status();
  return base::BuildIdOf(data->data(), data->size());
}

Result<SingleRunLauncher> MakeSingleRunLauncher(const std::string& target, uint32_t timeout_s,
                                                uint32_t rss_limit_mb, uint32_t max_len,
                                                uint32_t malloc_limit_mb) {
  auto coverage = GlobalCoverage::Create();
  if (!coverage.ok()) return coverage.status();
  LaunchOptions launch;
  launch.target = target;
  launch.timeout_s = timeout_s;
  launch.rss_limit_mb = rss_limit_mb;
  launch.malloc_limit_mb = malloc_limit_mb != 0 ? malloc_limit_mb : rss_limit_mb;  // as pollen fuzz
  launch.max_len = std::max<uint32_t>(1, max_len);
  SingleRunLauncher result;
  result.coverage = std::move(coverage).value();
  result.launcher = std::make_unique<WorkerLauncher>(launch, result.coverage.get());
  return result;
}

}  // namespace pollen::node
