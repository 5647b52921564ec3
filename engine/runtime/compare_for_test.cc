// Compiled with -fsanitize=fuzzer-no-link (trace-cmp among it) for hook_sites_test.cc: each
// comparison below calls one of the runtime's hooks from a call site HookSites can learn and patch.
#include <cstdint>

extern "C" __attribute__((noinline)) int HookSitesTestEqual(uint32_t a, uint32_t b) {
  return a == b ? 1 : 0;
}

extern "C" __attribute__((noinline)) int HookSitesTestSwitch(uint64_t tag) {
  switch (tag) {
    case 17:
      return 5;
    case 300:
      return 2;
    case 4096:
      return 9;
    default:
      return 0;
  }
}

extern "C" __attribute__((noinline)) uintptr_t HookSitesTestReturnAddress() {
  return reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}

// The return address of a direct call (E8 rel32) of a function that is not a hook.
extern "C" __attribute__((noinline)) uintptr_t HookSitesTestCallOther() {
  uintptr_t ret = HookSitesTestReturnAddress();
  asm volatile("" : "+r"(ret));  // no tail call: the call's own return address
  return ret;
}

// The runtime's main.cc names a harness; the test's main is the test file's.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, unsigned long) { return 0; }
