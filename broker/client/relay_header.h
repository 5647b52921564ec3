// The broker's frame in front of each message it relays to a node: 16 bytes, the broker's
// session (random per broker start) and the number of this delivery to this node (1, 2, ...),
// both little-endian u64. A node that sees the number jump knows that the broker dropped
// messages meant for it (its queue was full) and counts them as lost; a new session means a
// restarted broker, and numbering starts again. Fixed-size and outside the Cap'n Proto
// message, so the broker relays the sender's frame as it is, without re-encoding it.
#ifndef POLLEN_BROKER_CLIENT_RELAY_HEADER_H_
#define POLLEN_BROKER_CLIENT_RELAY_HEADER_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace pollen::broker {

inline constexpr size_t kRelayHeaderSize = 16;

struct RelayHeader {
  uint64_t broker_session = 0;
  uint64_t delivery = 0;
};

inline std::array<uint8_t, kRelayHeaderSize> EncodeRelayHeader(const RelayHeader& h) {
  std::array<uint8_t, kRelayHeaderSize> out;
  for (int i = 0; i < 8; i++) {
    out[i] = static_cast<uint8_t>(h.broker_session >> (8 * i));
    out[8 + i] = static_cast<uint8_t>(h.delivery >> (8 * i));
  }
  return out;
}

// False when `size` is not kRelayHeaderSize.
inline bool DecodeRelayHeader(const void* data, size_t size, RelayHeader* h) {
  if (size != kRelayHeaderSize) return false;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  *h = RelayHeader{};
  for (int i = 0; i < 8; i++) {
    h->broker_session |= static_cast<uint64_t>(p[i]) << (8 * i);
    h->delivery |= static_cast<uint64_t>(p[8 + i]) << (8 * i);
  }
  return true;
}

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_CLIENT_RELAY_HEADER_H_
