// The broker's counters as Prometheus metrics (docs/deploy.md, "Metrics"), for the
// /metrics endpoint of `pollen broker --http`.
#ifndef POLLEN_BROKER_BROKER_METRICS_H_
#define POLLEN_BROKER_BROKER_METRICS_H_

#include "broker/broker_stats.h"
#include "ops/metric_set.h"

namespace pollen::broker {

// pollen_broker_{messages,bytes}_{received,relayed}_total, pollen_broker_dropped_total{reason},
// pollen_broker_handshakes_total{result}, pollen_broker_nodes, pollen_broker_campaigns and the
// relay rates of the last status interval (pollen_broker_relay_messages_per_second{direction}).
void AddBrokerMetrics(const BrokerStatus& status, ops::MetricSet& metrics);

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_BROKER_METRICS_H_
