#include "engine/runtime/malloc_limit.h"

#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdio>

#include "engine/runtime/crash_handler.h"
#include "engine/runtime/sancov_state.h"

extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*,
                                                                             size_t),
                                                         void (*free_hook)(const volatile void*))
    __attribute__((weak));

namespace pollen::runtime {
namespace {

size_t g_limit_bytes = 0;
int g_exit_code = 1;
std::atomic<bool> g_reported{false};

void MallocHook(const volatile void*, size_t size) {
  if (size < g_limit_bytes || !GetSancovState().in_target)
    return;                               // libFuzzer's rule: the limit itself fails
  if (g_reported.exchange(true)) return;  // the report itself may allocate
  char line[160];
  int n = std::snprintf(line, sizeof(line), "==%d== ERROR: pollen: out-of-memory (malloc(%zu))\n",
                        getpid(), size);
  if (n > 0) {
    ssize_t ignored = write(
        2, line, static_cast<size_t>(n) < sizeof(line) ? static_cast<size_t>(n) : sizeof(line) - 1);
    (void)ignored;
  }
  PrintStack();
  _exit(g_exit_code);
}

void FreeHook(const volatile void*) {}

}  // namespace

bool InstallMallocLimit(uint64_t limit_mb, int exit_code) {
  if (limit_mb == 0) return false;
  g_exit_code = exit_code;
  if (__sanitizer_install_malloc_and_free_hooks == nullptr) return false;
  g_limit_bytes = static_cast<size_t>(limit_mb) << 20;
  __sanitizer_install_malloc_and_free_hooks(MallocHook, FreeHook);
  return true;
}

}  // namespace pollen::runtime
