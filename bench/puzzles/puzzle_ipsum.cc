// Class 1, checksums: an IPv4 header with its 16-bit ones' complement checksum, then a UDP
// header and payload. The bug needs protocol 17 (UDP), destination port 5353 and a payload
// that starts with "pollen", and every header change needs the checksum fixed.
#include <cstring>

#include "puzzle_util.h"

namespace {

uint16_t OnesComplementSum(const uint8_t* p, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < n; i += 2) sum += puzzle::Be16(p + i);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 28 || size > 256) return 0;
  uint8_t header[20];
  std::memcpy(header, data, 20);
  if ((header[0] >> 4) != 4 || (header[0] & 15) != 5) return 0;
  uint16_t stored = puzzle::Be16(header + 10);
  header[10] = header[11] = 0;
  if (OnesComplementSum(header, 20) != stored) return 0;
  if (puzzle::Be16(header + 2) != size) return 0;  // total length
  if (header[9] != 17) return 0;                   // UDP
  const uint8_t* udp = data + 20;
  if (puzzle::Be16(udp + 2) != 5353) return 0;
  if (puzzle::Be16(udp + 4) != size - 20) return 0;  // UDP length
  if (size - 28 >= 6 && std::memcmp(udp + 8, "pollen", 6) == 0) puzzle::Crash();
  return 0;
}
