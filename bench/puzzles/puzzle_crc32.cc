// Class 1, checksums: [CRC-32 of the rest, 4 bytes little-endian][payload]. Behind the
// checksum, the payload is checked one byte at a time against "CHECKSUM!", each byte its
// own branch; the bug is behind the last. Every change to the payload changes the CRC, so
// each of the nine steps needs the payload change and the matching CRC in one input.
#include "puzzle_util.h"

namespace {

uint32_t Crc32(const uint8_t* p, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4 + 9 || size > 256) return 0;
  uint32_t stored = puzzle::Le32(data);
  if (Crc32(data + 4, size - 4) != stored) return 0;
  const uint8_t* p = data + 4;
  if (p[0] != 'C') return 0;
  if (p[1] != 'H') return 0;
  if (p[2] != 'E') return 0;
  if (p[3] != 'C') return 0;
  if (p[4] != 'K') return 0;
  if (p[5] != 'S') return 0;
  if (p[6] != 'U') return 0;
  if (p[7] != 'M') return 0;
  if (p[8] != '!') return 0;
  puzzle::Crash();
  return 0;
}
