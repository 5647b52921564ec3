// Why a cluster message was dropped. The broker and the client count drops per reason and
// report them in their status; nothing that is dropped ever takes a process down.
#ifndef POLLEN_BROKER_CLIENT_DROP_REASON_H_
#define POLLEN_BROKER_CLIENT_DROP_REASON_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace pollen::broker {

enum class DropReason : uint8_t {
  kMalformed,      // not a ClusterMessage, or a field out of its bounds
  kOversized,      // larger than the message limit
  kWrongVersion,   // another protocolVersion
  kWrongCampaign,  // not the campaign this peer joined (broker) or this node is in (client)
  kBadOrigin,      // a peer that changed its node id, or a message from this node itself
  kDuplicate,      // an input or crash already relayed (by content hash or signature)
  kSlowPeer,       // the receiver's (or, at a client, the broker's) queue was full
  kUnknownNode,    // addressed to a node that is not connected
  kBadHash,        // an input whose bytes do not have the announced SHA-1 (client)
  kOverCapacity,   // the broker's peer or campaign table is full
};
inline constexpr size_t kNumDropReasons = 10;

// A short lowercase name for status lines and logs ("malformed", "slow_peer", ...).
const char* DropReasonName(DropReason reason);

// Counters indexed by DropReason.
struct DropCounts {
  std::array<uint64_t, kNumDropReasons> by_reason{};

  void Add(DropReason r, uint64_t n = 1) { by_reason[static_cast<size_t>(r)] += n; }
  uint64_t operator[](DropReason r) const { return by_reason[static_cast<size_t>(r)]; }
  uint64_t Total() const;
};

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_CLIENT_DROP_REASON_H_
