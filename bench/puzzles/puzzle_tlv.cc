// Class 2, nested length fields: "TLV1" | total length (2 bytes, big-endian) | records.
// A record is type (1 byte) | length (2 bytes, big-endian) | value. Type 1 is a container
// whose value is itself a list of records, parsed by the same function; types 2 and 3 are
// leaves. Every length must be exact: a record may not run past its container, and a
// container must be used up. The bug is a leaf of type 0x66 holding "BOOM" four containers
// deep. The levels run the same code, so only hit counts tell them apart, and growing an
// inner record means fixing every enclosing length and the total.
#include <cstring>

#include "puzzle_util.h"

namespace {

bool ParseRecords(const uint8_t* p, size_t n, int depth) {
  if (depth > 8) return false;
  while (n > 0) {
    if (n < 3) return false;
    uint8_t type = p[0];
    size_t len = puzzle::Be16(p + 1);
    if (len > n - 3) return false;
    const uint8_t* value = p + 3;
    switch (type) {
      case 1:
        if (len == 0 || !ParseRecords(value, len, depth + 1)) return false;
        break;
      case 2:
        if (len != 4) return false;
        break;
      case 3:
        break;
      case 0x66:
        if (depth >= 4 && len == 4 && std::memcmp(value, "BOOM", 4) == 0) puzzle::Crash();
        break;
      default:
        return false;
    }
    p += 3 + len;
    n -= 3 + len;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 6 || size > 1024) return 0;
  if (std::memcmp(data, "TLV1", 4) != 0) return 0;
  if (puzzle::Be16(data + 4) != size - 6) return 0;
  ParseRecords(data + 6, size - 6, 0);
  return 0;
}
