// Planted bug: an endless loop when the input starts with "LOOP".
#include <cstddef>
#include <cstdint>

#include "planted_bug.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 4 && data[0] == 'L' && data[1] == 'O' && data[2] == 'O' && data[3] == 'P') {
    volatile uint64_t spin = 0;
    POLLEN_PLANTED_BUG(while (true) spin = spin + 1);
  }
  return 0;
}
