// Class 3, a running total: "SUM" | n (1 byte) | n amounts (2 bytes, little-endian) | the
// total of the amounts (4 bytes, little-endian). The total must match the amounts, and the
// bug needs at least eight amounts adding up to exactly 0x31337, none of them zero.
#include <cstring>

#include "puzzle_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8 || size > 512) return 0;
  if (std::memcmp(data, "SUM", 3) != 0) return 0;
  size_t n = data[3];
  if (size != 4 + 2 * n + 4) return 0;
  uint32_t total = 0;
  for (size_t i = 0; i < n; i++) {
    uint16_t amount = puzzle::Le16(data + 4 + 2 * i);
    if (amount == 0) return 0;
    total += amount;
  }
  if (total != puzzle::Le32(data + 4 + 2 * n)) return 0;
  if (n >= 8 && total == 0x31337) puzzle::Crash();
  return 0;
}
