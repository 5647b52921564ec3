#include "broker/broker_metrics.h"

namespace pollen::broker {

void AddBrokerMetrics(const BrokerStatus& s, ops::MetricSet& m) {
  const BrokerCounters& t = s.totals;
  m.Counter("pollen_broker_messages_received_total", "Frames received from nodes, valid or not.",
            static_cast<double>(t.messages_in));
  m.Counter("pollen_broker_bytes_received_total", "Bytes received from nodes.",
            static_cast<double>(t.bytes_in));
  m.Counter("pollen_broker_messages_relayed_total",
            "Deliveries made to nodes (one message to 9 nodes counts 9).",
            static_cast<double>(t.messages_out));
  m.Counter("pollen_broker_bytes_relayed_total", "Bytes delivered to nodes.",
            static_cast<double>(t.bytes_out));
  for (size_t r = 0; r < kNumDropReasons; ++r) {
    m.Counter("pollen_broker_dropped_total",
              "Messages not relayed and deliveries not made, by reason.",
              static_cast<double>(t.drops.by_reason[r]),
              {{"reason", DropReasonName(static_cast<DropReason>(r))}});
  }
  m.Counter("pollen_broker_handshakes_total", "CURVE handshakes, by result.",
            static_cast<double>(t.handshakes_accepted), {{"result", "accepted"}});
  m.Counter("pollen_broker_handshakes_total", "CURVE handshakes, by result.",
            static_cast<double>(t.handshakes_refused), {{"result", "refused"}});
  m.Gauge("pollen_broker_nodes", "Nodes connected and heard from within the peer timeout.",
          static_cast<double>(s.nodes));
  m.Gauge("pollen_broker_campaigns", "Campaigns with at least one node.",
          static_cast<double>(s.campaigns));
  m.Gauge("pollen_broker_relay_messages_per_second",
          "Messages per second over the last status interval.", s.in_messages_per_s,
          {{"direction", "in"}});
  m.Gauge("pollen_broker_relay_messages_per_second",
          "Messages per second over the last status interval.", s.out_messages_per_s,
          {{"direction", "out"}});
  m.Gauge("pollen_broker_relay_bytes_per_second", "Bytes per second over the last status interval.",
          s.in_mb_per_s * 1e6, {{"direction", "in"}});
  m.Gauge("pollen_broker_relay_bytes_per_second", "Bytes per second over the last status interval.",
          s.out_mb_per_s * 1e6, {{"direction", "out"}});
}

}  // namespace pollen::broker
