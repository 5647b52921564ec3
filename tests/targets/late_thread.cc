// Test target for tests/cmp_hooks_test.cc: the first input that starts with 'T' starts a
// thread that never ends. When that input is a mutant run without comparison hooks, the
// worker cannot write the hooks' calls back while the thread may run them
// (engine/runtime/hook_sites.h): the coordinator must replace the worker, not fail.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <thread>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool started = false;
  if (size > 0 && data[0] == 'T' && !started) {
    started = true;
    std::thread([] {
      for (;;) pause();
    }).detach();
  }
  // Comparisons for the hooks, so that the worker has call sites to patch.
  int n = 0;
  for (size_t i = 1; i < size; i++) n += data[i] == data[i - 1] ? 2 : data[i] < 'm' ? 1 : 0;
  return n > 1000 ? 1 : 0;
}
