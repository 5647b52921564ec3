// Class 3, arithmetic relations: four 32-bit little-endian numbers x, y, z, w that must
// satisfy, in turn,
//   x > 1000000 && x < 1000100       (a range, checked first as parsers check fields)
//   3x + 5y - z == 0xC0FFEE11        (a linear combination equal to a constant)
//   (w ^ 0xA5A5A5A5) == y + z        (a field derived from others, stored transformed)
// The compared values of the last two appear nowhere in the input: input-to-state must
// transform them.
#include "puzzle_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size != 16) return 0;
  uint32_t x = puzzle::Le32(data), y = puzzle::Le32(data + 4);
  uint32_t z = puzzle::Le32(data + 8), w = puzzle::Le32(data + 12);
  if (x <= 1000000 || x >= 1000100) return 0;
  if (3 * x + 5 * y - z != 0xC0FFEE11u) return 0;
  if ((w ^ 0xA5A5A5A5u) != y + z) return 0;
  puzzle::Crash();
  return 0;
}
