// An allocation of 1.5 GiB when the input starts with "BIG": below the rss limit's reach
// when it is freed at once, so only the malloc limit (engine/runtime/malloc_limit.h) sees it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 3 && data[0] == 'B' && data[1] == 'I' && data[2] == 'G') {
    volatile char* p = static_cast<char*>(std::malloc(size_t{3} << 29));
    if (p != nullptr) p[0] = 1;
    std::free(const_cast<char*>(p));
  }
  return 0;
}
