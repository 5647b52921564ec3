// Planted bug: a crash behind an 8-byte big-endian magic value at the start of the input.
#include <cstddef>
#include <cstdint>

#include "planted_bug.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | data[i];
  if (v == 0x1122334455667788ULL) {
    POLLEN_PLANTED_BUG(__builtin_trap());
  }
  return 0;
}
