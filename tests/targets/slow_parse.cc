// Test target that takes 2 ms per input and whose coverage depends on the first byte's
// low bits: a merge of a few hundred inputs through it lasts long enough to be killed.
#include <unistd.h>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  usleep(2000);
  if (size == 0) return 0;
  switch (data[0] & 7) {
    case 0:
      return 1;
    case 1:
      return 2;
    case 2:
      return 3;
    case 3:
      return size > 10 ? 4 : 5;
    case 4:
      return 6;
    default:
      return 0;
  }
}
