// Test target for tests/rejected_inputs_test.cc: libFuzzer's contract that a harness
// returning -1 keeps its input out of the corpus, whatever the input covered. Inputs that
// start with 'R' run code of their own (a few branches on the next bytes) and return -1;
// those that start with 'K' run code of their own and return 0, so the test can tell that
// the run did keep inputs with new coverage.
#include <cstddef>
#include <cstdint>

namespace {

volatile int sink = 0;

int Branches(const uint8_t* rest, size_t n) {
  int x = 0;
  if (n > 0 && rest[0] < 'a') x += 1;
  if (n > 0 && rest[0] >= 'n') x += 2;
  if (n > 1 && rest[1] == rest[0]) x += 4;
  if (n > 2 && rest[2] == '!') x += 8;
  return x;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] == 'R') {
    sink = Branches(data + 1, size - 1);
    return -1;
  }
  if (data[0] == 'K') sink = Branches(data + 1, size - 1) + 16;
  return 0;
}
