// The standard process metrics every Prometheus client exports (process_cpu_seconds_total,
// process_resident_memory_bytes, ...), read from /proc/self, so that dashboards and alerts
// written for any other service work on Pollen's too.
#ifndef POLLEN_OPS_PROCESS_METRICS_H_
#define POLLEN_OPS_PROCESS_METRICS_H_

#include "ops/metric_set.h"

namespace pollen::ops {

// Adds process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_start_time_seconds, process_open_fds and
// process_max_fds for this process. A file of /proc that cannot be read leaves its metrics
// out. Costs a few small reads (~50 µs); thread-safe.
void AddProcessMetrics(MetricSet& metrics);

}  // namespace pollen::ops

#endif  // POLLEN_OPS_PROCESS_METRICS_H_
