#include "broker/client/drop_reason.h"

namespace pollen::broker {

const char* DropReasonName(DropReason reason) {
  switch (reason) {
    case DropReason::kMalformed:
      return "malformed";
    case DropReason::kOversized:
      return "oversized";
    case DropReason::kWrongVersion:
      return "wrong_version";
    case DropReason::kWrongCampaign:
      return "wrong_campaign";
    case DropReason::kBadOrigin:
      return "bad_origin";
    case DropReason::kDuplicate:
      return "duplicate";
    case DropReason::kSlowPeer:
      return "slow_peer";
    case DropReason::kUnknownNode:
      return "unknown_node";
    case DropReason::kBadHash:
      return "bad_hash";
    case DropReason::kOverCapacity:
      return "over_capacity";
  }
  return "unknown";
}

uint64_t DropCounts::Total() const {
  uint64_t total = 0;
  for (uint64_t n : by_reason) total += n;
  return total;
}

}  // namespace pollen::broker
