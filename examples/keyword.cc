// Planted bug: a tiny command parser that crashes on "pollinate <n>" with n == 7331.
// The keyword is compared with memcmp and the argument with strtol and ==: only the
// comparison hooks (memcmp operands, integer cmp operands) lead a fuzzer there.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "planted_bug.h"

static void Pollinate(long n) {
  if (n == 7331) {
    volatile int* p = nullptr;   // volatile: the compiler may not delete the faulting store
    POLLEN_PLANTED_BUG(*p = 1);  // the planted bug
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 10 || size > 64) return 0;
  if (std::memcmp(data, "pollinate ", 10) != 0) return 0;
  std::string arg(reinterpret_cast<const char*>(data + 10), size - 10);
  if (arg.empty() || arg[0] < '0' || arg[0] > '9') return 0;
  Pollinate(std::strtol(arg.c_str(), nullptr, 10));
  return 0;
}
