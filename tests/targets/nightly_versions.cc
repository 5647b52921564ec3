// Three builds of one small parser for the nightly tests (tests/nightly_test.cc), as a
// project's nightly builds would differ: NIGHT=1 has bug A (a null write behind "A!");
// NIGHT=2 fixes A and changes nothing else; NIGHT=3 adds bug B (an abort behind "B!").
// The rest (a few commands) is the same in all three, so the corpus of one build carries
// over to the next. "list" overflows a signed int in every build: only a build with UBSan
// (nightly_v2_ubsan, a campaign's sanitizer build) sees it.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifndef NIGHT
#error "build with -DNIGHT=1, 2 or 3"
#endif

static int Command(const uint8_t* data, size_t size) {
  if (size >= 3 && std::memcmp(data, "get", 3) == 0) return 1;
  if (size >= 3 && std::memcmp(data, "put", 3) == 0) return size > 8 ? 2 : 3;
  if (size >= 4 && std::memcmp(data, "list", 4) == 0) {
    volatile int entries = INT_MAX;
    return entries + static_cast<int>(size);  // signed overflow: undefined behaviour
  }
  return 0;
}

__attribute__((noinline)) static void BugA(const uint8_t* data, size_t size) {
#if NIGHT == 1
  if (size >= 2 && data[0] == 'A' && data[1] == '!') {
    volatile int* p = nullptr;
    *p = 1;
  }
#endif
}

__attribute__((noinline)) static void BugB(const uint8_t* data, size_t size) {
#if NIGHT == 3
  if (size >= 2 && data[0] == 'B' && data[1] == '!') std::abort();
#endif
}

volatile int nightly_command;  // keeps Command's result, so it is not optimised away

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nightly_command = Command(data, size);
  BugA(data, size);
  BugB(data, size);
  return 0;
}
