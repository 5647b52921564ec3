// Planted bug: the harness calls exit() when the input starts with "EXIT".
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "planted_bug.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 4 && std::memcmp(data, "EXIT", 4) == 0) POLLEN_PLANTED_BUG(std::exit(3));
  return 0;
}
