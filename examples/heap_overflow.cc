// Planted bug: a heap-buffer-overflow read, visible with AddressSanitizer (this example is
// built with SANITIZE address): the length byte is trusted.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "planted_bug.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || data[0] != 'L') return 0;
  size_t claimed = data[1];
  uint8_t* copy = new uint8_t[size];
  std::memcpy(copy, data, size);
  volatile uint8_t sum = 0;
  // The planted bug: reads past the end when claimed + 2 > size.
  POLLEN_PLANTED_BUG(for (size_t i = 0; i < claimed + 2; i++) sum = sum + copy[i]);
  delete[] copy;
  return 0;
}
