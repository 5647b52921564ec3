// Planted bug: an uncaught C++ exception when the input starts with "THROW".
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 5 && std::memcmp(data, "THROW", 5) == 0) throw std::runtime_error("planted exception");
  return 0;
}
