// A target with process-wide state, for the coverage main's tests
// (tests/coverage_main_test.cc) and the fuzzer's drift check (tests/drift_test.cc): "poison"
// makes every later input of the same process return at once (in the fuzz build, from the
// 100th execution after it on), as sqlite3's PRAGMA soft_heap_limit does; "deep", "crash",
// "hang" and "exit" each reach a function of their own first, then return, abort, spin or
// exit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

static bool poisoned = false;
// POISON_DELAY: the executions after "poison" before it takes effect (the drift test's seeds
// must all join the corpus first, whatever order they run in).
#ifndef POISON_DELAY
#define POISON_DELAY 0
#endif
static long poison_countdown = -1;

static bool Is(const uint8_t* data, size_t size, const char* word) {
  return size == std::strlen(word) && std::memcmp(data, word, size) == 0;
}

// 48 cases, each a block of its own: "deep" has many features to lose.
// clang-format off
extern "C" __attribute__((noinline)) void ReachedDeep() {
  for (int i = 0; i < 64; i++) {
    switch (i % 48) {
#define CASE(n) case n: asm volatile("" ::"r"(n)); break;
      CASE(0)  CASE(1)  CASE(2)  CASE(3)  CASE(4)  CASE(5)  CASE(6)  CASE(7)
      CASE(8)  CASE(9)  CASE(10) CASE(11) CASE(12) CASE(13) CASE(14) CASE(15)
      CASE(16) CASE(17) CASE(18) CASE(19) CASE(20) CASE(21) CASE(22) CASE(23)
      CASE(24) CASE(25) CASE(26) CASE(27) CASE(28) CASE(29) CASE(30) CASE(31)
      CASE(32) CASE(33) CASE(34) CASE(35) CASE(36) CASE(37) CASE(38) CASE(39)
      CASE(40) CASE(41) CASE(42) CASE(43) CASE(44) CASE(45) CASE(46) CASE(47)
#undef CASE
    }
  }
}
// clang-format on
extern "C" __attribute__((noinline)) void ReachedCrash() { asm volatile(""); }
extern "C" __attribute__((noinline)) void ReachedHang() { asm volatile(""); }
extern "C" __attribute__((noinline)) void ReachedExit() { asm volatile(""); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (poison_countdown >= 0 && poison_countdown-- == 0) poisoned = true;
  if (poisoned) return 0;
#if !NO_POISON  // the drift test's control: the same target without its state
  if (Is(data, size, "poison")) poison_countdown = POISON_DELAY;
#endif
  if (Is(data, size, "deep")) ReachedDeep();
#if !NO_FAILURES  // the drift test's fuzz build: nothing to find but coverage
  if (Is(data, size, "crash")) {
    ReachedCrash();
    std::abort();
  }
  if (Is(data, size, "hang")) {
    ReachedHang();
    for (volatile int spin = 0;; spin = spin + 1) {
    }
  }
  if (Is(data, size, "exit")) {
    ReachedExit();
    std::exit(3);
  }
#endif
  return 0;
}
