// Test target that crashes only on the exact input "PREFB", while longer inputs starting
// with "PREFB" are new coverage. From the seed "PREFXXXXXXXX" one mutation (X -> B, which
// the cmp hooks suggest) finds "PREFBXXXXXXX"; minimizing it cuts the tail, "PREFBX" keeps
// the coverage, and the next cut, "PREFB", kills the worker in the middle of minimization.
// Inputs shorter than 5 bytes all take the first return, so that no 4-byte "PREF" joins the
// corpus as new coverage (a one-byte insertion would then crash while fuzzing, before any
// minimization).
#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5 || std::memcmp(data, "PREF", 4) != 0) return 0;
  if (data[4] == 'B') {
    if (size == 5) {
      volatile int* p = nullptr;
      *p = 2;
    }
    return 1;
  }
  return 0;
}
