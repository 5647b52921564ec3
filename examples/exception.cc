// Planted bug: an uncaught C++ exception when the input starts with "THROW".
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "planted_bug.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 5 && std::memcmp(data, "THROW", 5) == 0) {
    POLLEN_PLANTED_BUG(throw std::runtime_error("planted exception"));
  }
  return 0;
}
