// The controller's counters as Prometheus metrics (docs/deploy.md, "Metrics"), for the
// /metrics endpoint of `pollen controller --http`.
#ifndef POLLEN_CONTROLLER_CONTROLLER_METRICS_H_
#define POLLEN_CONTROLLER_CONTROLLER_METRICS_H_

#include "controller/controller_status.h"
#include "ops/metric_set.h"

namespace pollen::controller {

// pollen_controller_requests_total, _errors_total{code}, _replies_total, _replies_dropped_total,
// _handshakes_total{result}, _campaigns, _nodes{state}, _merges_total{result},
// _merge_seconds_total, _last_merge_seconds, and the streams' _streams_active,
// _streams_opened_total, _streams_total{outcome}, _streams_expired_total and
// _stream_bytes_total{direction}.
void AddControllerMetrics(const ControllerStatus& status, ops::MetricSet& metrics);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CONTROLLER_METRICS_H_
