#include "broker/broker_stats.h"

#include <cstdio>

namespace pollen::broker {

void ComputeRates(const BrokerCounters& before, double seconds, BrokerStatus* status) {
  if (seconds <= 0) return;
  const BrokerCounters& now = status->totals;
  status->in_messages_per_s = static_cast<double>(now.messages_in - before.messages_in) / seconds;
  status->in_mb_per_s = static_cast<double>(now.bytes_in - before.bytes_in) / seconds / 1e6;
  status->out_messages_per_s =
      static_cast<double>(now.messages_out - before.messages_out) / seconds;
  status->out_mb_per_s = static_cast<double>(now.bytes_out - before.bytes_out) / seconds / 1e6;
}

std::string FormatStatusLine(const BrokerStatus& s) {
  char buf[256];
  std::snprintf(
      buf, sizeof(buf),
      "nodes %zu campaigns %zu | in %.0f msg/s %.2f MB/s | out %.0f msg/s %.2f MB/s | drops %lu",
      s.nodes, s.campaigns, s.in_messages_per_s, s.in_mb_per_s, s.out_messages_per_s,
      s.out_mb_per_s, static_cast<unsigned long>(s.totals.drops.Total()));
  std::string line = buf;
  std::string reasons;
  for (size_t i = 0; i < kNumDropReasons; i++) {
    uint64_t n = s.totals.drops.by_reason[i];
    if (n == 0) continue;
    if (!reasons.empty()) reasons += ", ";
    reasons += std::string(DropReasonName(static_cast<DropReason>(i))) + " " + std::to_string(n);
  }
  if (!reasons.empty()) line += " (" + reasons + ")";
  line += " | refused " + std::to_string(s.totals.handshakes_refused);
  return line;
}

}  // namespace pollen::broker
