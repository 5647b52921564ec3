// The broker's counters and its status line.
#ifndef POLLEN_BROKER_BROKER_STATS_H_
#define POLLEN_BROKER_BROKER_STATS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "broker/client/drop_reason.h"

namespace pollen::broker {

// Totals since the broker started.
struct BrokerCounters {
  uint64_t messages_in = 0;  // frames received from nodes, valid or not
  uint64_t bytes_in = 0;
  uint64_t messages_out = 0;  // deliveries made to nodes (one message to 9 nodes: 9)
  uint64_t bytes_out = 0;
  DropCounts drops;  // messages not relayed, and deliveries not made (slow_peer)
  uint64_t handshakes_accepted = 0;
  uint64_t handshakes_refused = 0;  // clients whose key is not authorised
};

// A snapshot with the rates over the interval since the previous one.
struct BrokerStatus {
  BrokerCounters totals;
  size_t nodes = 0;  // connected peers that have said something within the peer timeout
  size_t campaigns = 0;
  double in_messages_per_s = 0;
  double in_mb_per_s = 0;  // 10^6 bytes
  double out_messages_per_s = 0;
  double out_mb_per_s = 0;
};

// Fills the rates of `status` from its totals and those of a snapshot `seconds` earlier.
void ComputeRates(const BrokerCounters& before, double seconds, BrokerStatus* status);

// "nodes 3 campaigns 1 | in 1200 msg/s 1.23 MB/s | out 3600 msg/s 3.69 MB/s |
//  drops 2 (malformed 1, duplicate 1) | refused 0": drops and refusals are totals.
std::string FormatStatusLine(const BrokerStatus& status);

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_BROKER_STATS_H_
