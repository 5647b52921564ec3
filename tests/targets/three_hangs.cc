// Test target: an input that starts with 'H' hangs in one of three functions (its second
// byte modulo 3 chooses), so that each has a stack of its own; any other input returns.
// tests/hang_cutoff_test.cc runs it with a short --timeout.
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace {

volatile int g_where = 0;

// Each waits in a loop of its own (a shared one could be reached by a tail call, which
// would leave it the only frame that tells them apart).
[[noreturn]] __attribute__((noinline)) void HangInHeader() {
  g_where = 1;
  for (;;) pause();  // the coordinator's SIGUSR1 (or SIGKILL) ends it
}

[[noreturn]] __attribute__((noinline)) void HangInChunk() {
  g_where = 2;
  for (;;) pause();
}

[[noreturn]] __attribute__((noinline)) void HangInTrailer() {
  g_where = 3;
  for (;;) pause();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || data[0] != 'H') return 0;
  switch (data[1] % 3) {
    case 0:
      HangInHeader();
    case 1:
      HangInChunk();
    default:
      HangInTrailer();
  }
}
