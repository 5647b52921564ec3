// Planted bug: a crash behind a 4-byte little-endian magic value at offset 4. Random
// mutation has a 1 in 2^32 chance per try; comparison feedback solves it directly.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "planted_bug.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  uint32_t magic;
  std::memcpy(&magic, data + 4, sizeof(magic));
  if (magic == 0x4e4c4f50u) {  // "POLN"
    POLLEN_PLANTED_BUG(__builtin_trap());
  }
  return 0;
}
