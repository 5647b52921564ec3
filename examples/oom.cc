// Planted bug: unbounded memory growth when the input starts with "MEM".
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "planted_bug.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 3 && data[0] == 'M' && data[1] == 'E' && data[2] == 'M') {
    static std::vector<void*> hoard;
    POLLEN_PLANTED_BUG(while (true) {
      void* block = std::malloc(64 << 20);
      if (block == nullptr) break;
      std::memset(block, 1, 64 << 20);  // touched, so it counts in the RSS
      hoard.push_back(block);
    });
  }
  return 0;
}
