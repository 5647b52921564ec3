// Planted bug: a null-pointer write when the input starts with "HI!". Found in seconds by
// any coverage-guided fuzzer: each byte opens a new branch.
#include <cstddef>
#include <cstdint>

#include "planted_bug.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 3 && data[0] == 'H') {
    if (data[1] == 'I') {
      if (data[2] == '!') {
        volatile int* p = nullptr;
        POLLEN_PLANTED_BUG(*p = 42);
      }
    }
  }
  return 0;
}
