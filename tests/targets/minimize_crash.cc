// Test target that crashes only on the exact input "PREFB", while longer inputs starting
// with "PREFB" are new coverage. From the seed "PREFXXXXXXXX" one mutation (X -> B, which
// the cmp hooks suggest) finds "PREFBXXXXXXX"; minimizing it cuts the tail, "PREFBX" keeps
// the coverage, and the next cut, "PREFB", kills the worker in the middle of minimization.
#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4 || std::memcmp(data, "PREF", 4) != 0) return 0;
  if (size >= 5 && data[4] == 'B') {
    if (size == 5) {
      volatile int* p = nullptr;
      *p = 2;
    }
    return 1;
  }
  return 0;
}
