// memcmp and the string comparisons, intercepted so that their operands reach the CMP table
// (clang's -fsanitize=fuzzer-no-link keeps these calls out of line with -fno-builtin-*).
//
// Two cases:
// - No sanitizer runtime: our definitions below are the process's memcmp, strcmp, ...; they
//   compute the result themselves (memcmp through libc's, found with dlsym) and record.
// - ASan (or another runtime that intercepts them): its interceptor, __interceptor_NAME, is
//   present. Our definition still wins the link, so it forwards to that interceptor, which
//   keeps ASan's checks and calls the __sanitizer_weak_hook_NAME functions defined here.
// Only comparisons made while the harness runs are recorded. (noexcept: glibc declares
// these functions __THROW, and a definition must match.)
#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "engine/runtime/operand_memory.h"
#include "engine/runtime/sancov_state.h"

namespace {

using pollen::runtime::GetSancovState;
using pollen::runtime::InImage;
using pollen::runtime::Readable;

inline bool Recording() { return GetSancovState().in_target; }

// Operands are read through Readable (operand_memory.h): a comparison may stop before the
// end of a shorter buffer (strncmp(buf, "\xEF\xBB\xBF", 3) reads one byte of a one-byte buf
// when it differs), and the operands are recorded past that point: reading them must not be
// a bug of the target's.

// With the value profile on: how many leading bytes of a and b (of the first n that may be
// read) agree, as the closeness of the comparison at `pc`, so that a keyword matched one
// more byte is progress.
inline void ProfileWords(uintptr_t pc, const void* a, const void* b, size_t n) {
  auto& s = GetSancovState();
  if (s.value_profile == nullptr) return;
  if (n > 63) n = 63;
  n = Readable(b, Readable(a, n));
  const unsigned char* x = static_cast<const unsigned char*>(a);
  const unsigned char* y = static_cast<const unsigned char*>(b);
  size_t same = 0;
  while (same < n && x[same] == y[same]) same++;
  s.value_profile->Note(pc, static_cast<uint32_t>(same));
}

// Orders a compared pair so that a literal of the program comes second; returns whether one
// does (then only the other operand is the input's).
template <typename T>
inline bool LiteralSecond(const T** a, const T** b) {
  bool in_a = InImage(*a), in_b = InImage(*b);
  if (in_a == in_b) return false;
  if (in_a) std::swap(*a, *b);
  return true;
}

// Records the first n bytes of a and b (at most a word's, and only what may be read).
inline void RecordWords(uintptr_t pc, const void* a, const void* b, size_t n) {
  if (!Recording()) return;
  ProfileWords(pc, a, b, n);
  if (n > pollen::engine::CmpTable::kMaxWord) n = pollen::engine::CmpTable::kMaxWord;
  n = Readable(b, Readable(a, n));
  bool literal = LiteralSecond(&a, &b);
  auto& s = GetSancovState();
  s.cmp.AddWord(a, b, n, literal);
  if (s.cmp_log != nullptr) s.cmp_log->AddWords(a, n, b, n, literal);
}

int LoopMemcmp(const void* a, const void* b, size_t n) {
  const unsigned char* x = static_cast<const unsigned char*>(a);
  const unsigned char* y = static_cast<const unsigned char*>(b);
  for (size_t i = 0; i < n; i++) {
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return 0;
}

using MemcmpFn = int (*)(const void*, const void*, size_t);
MemcmpFn real_memcmp = nullptr;
bool resolving = false;

int CallMemcmp(const void* a, const void* b, size_t n) {
  if (real_memcmp == nullptr && !resolving) {
    resolving = true;  // dlsym may itself compare strings: those take the loop
    real_memcmp = reinterpret_cast<MemcmpFn>(dlsym(RTLD_NEXT, "memcmp"));
    resolving = false;
  }
  return real_memcmp ? real_memcmp(a, b, n) : LoopMemcmp(a, b, n);
}

inline unsigned char Lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

// Compares at most n bytes of two C strings; `len` gets the compared length (for recording).
int StrCompare(const char* a, const char* b, size_t n, bool fold, size_t* len) {
  size_t i = 0;
  for (; i < n; i++) {
    unsigned char x = static_cast<unsigned char>(a[i]);
    unsigned char y = static_cast<unsigned char>(b[i]);
    if (fold) {
      x = Lower(x);
      y = Lower(y);
    }
    if (x != y) {
      *len = i + 1;
      return x < y ? -1 : 1;
    }
    if (x == 0) break;
  }
  *len = i;
  return 0;
}

// Length of the strings a comparison ought to record: up to the first NUL of either side
// (the NUL included), at most n, a word, and what may be read.
size_t CmpSpan(const char* a, const char* b, size_t n) {
  if (n > pollen::engine::CmpTable::kMaxWord) n = pollen::engine::CmpTable::kMaxWord;
  n = Readable(b, Readable(a, n));
  size_t i = 0;
  while (i < n && a[i] && b[i]) i++;
  return i < n ? i + 1 : n;
}

// Length of the C string at p, at most n and what may be read.
size_t StringSpan(const char* p, size_t n) {
  if (n > pollen::engine::CmpTable::kMaxWord) n = pollen::engine::CmpTable::kMaxWord;
  n = Readable(p, n);
  size_t i = 0;
  while (i < n && p[i]) i++;
  return i;
}

// The records of the string comparisons: each string whole, without its NUL, so that a
// token of the input is replaced by the whole other string ("hi" by "HELO").
inline void RecordStrings(uintptr_t pc, const char* a, const char* b, size_t n) {
  if (!Recording()) return;
  ProfileWords(pc, a, b, std::min(n, StringSpan(a, 63) + 1));
  bool literal = LiteralSecond(&a, &b);
  size_t na = StringSpan(a, n);
  size_t nb = StringSpan(b, n);
  auto& s = GetSancovState();
  s.cmp.AddWords(a, na, b, nb, literal);
  if (s.cmp_log != nullptr) s.cmp_log->AddWords(a, na, b, nb, literal);
}

}  // namespace

extern "C" {

int __interceptor_memcmp(const void*, const void*, size_t) __attribute__((weak));
int __interceptor_bcmp(const void*, const void*, size_t) __attribute__((weak));
int __interceptor_strcmp(const char*, const char*) __attribute__((weak));
int __interceptor_strncmp(const char*, const char*, size_t) __attribute__((weak));
int __interceptor_strcasecmp(const char*, const char*) __attribute__((weak));
int __interceptor_strncasecmp(const char*, const char*, size_t) __attribute__((weak));
char* __interceptor_strstr(const char*, const char*) __attribute__((weak));
void* __interceptor_memmem(const void*, size_t, const void*, size_t) __attribute__((weak));

// The caller of an intercepted function: the comparison's site for the value profile.
#define kHere reinterpret_cast<uintptr_t>(__builtin_return_address(0))

// Hooks the sanitizer interceptors call after comparing.
__attribute__((visibility("default"))) void __sanitizer_weak_hook_memcmp(void* pc, const void* a,
                                                                         const void* b, size_t n,
                                                                         int result) {
  if (result != 0) RecordWords(reinterpret_cast<uintptr_t>(pc), a, b, n);
}
__attribute__((visibility("default"))) void __sanitizer_weak_hook_strncmp(void* pc, const char* a,
                                                                          const char* b, size_t n,
                                                                          int result) {
  if (result != 0) RecordStrings(reinterpret_cast<uintptr_t>(pc), a, b, n);
}
__attribute__((visibility("default"))) void __sanitizer_weak_hook_strcmp(void* pc, const char* a,
                                                                         const char* b,
                                                                         int result) {
  if (result != 0) RecordStrings(reinterpret_cast<uintptr_t>(pc), a, b, SIZE_MAX);
}
__attribute__((visibility("default"))) void __sanitizer_weak_hook_strncasecmp(
    void* pc, const char* a, const char* b, size_t n, int result) {
  if (result != 0) RecordStrings(reinterpret_cast<uintptr_t>(pc), a, b, n);
}
__attribute__((visibility("default"))) void __sanitizer_weak_hook_strcasecmp(void* pc,
                                                                             const char* a,
                                                                             const char* b,
                                                                             int result) {
  if (result != 0) RecordStrings(reinterpret_cast<uintptr_t>(pc), a, b, SIZE_MAX);
}
__attribute__((visibility("default"))) void __sanitizer_weak_hook_strstr(void* pc,
                                                                         const char* haystack,
                                                                         const char* needle,
                                                                         char* result) {
  if (result == nullptr) {
    const size_t span = CmpSpan(needle, needle, SIZE_MAX);  // the NUL included, if in reach
    RecordWords(reinterpret_cast<uintptr_t>(pc), needle, needle,
                span > 0 && needle[span - 1] == '\0' ? span - 1 : span);
  }
}
__attribute__((visibility("default"))) void __sanitizer_weak_hook_memmem(void* pc, const void*,
                                                                         size_t, const void* needle,
                                                                         size_t n, void* result) {
  if (result == nullptr) RecordWords(reinterpret_cast<uintptr_t>(pc), needle, needle, n);
}

__attribute__((visibility("default"))) int memcmp(const void* a, const void* b, size_t n) noexcept {
  if (__interceptor_memcmp) return __interceptor_memcmp(a, b, n);
  int r = CallMemcmp(a, b, n);
  if (r != 0) RecordWords(kHere, a, b, n);
  return r;
}

__attribute__((visibility("default"))) int bcmp(const void* a, const void* b, size_t n) noexcept {
  if (__interceptor_bcmp) return __interceptor_bcmp(a, b, n);
  int r = CallMemcmp(a, b, n);
  if (r != 0) RecordWords(kHere, a, b, n);
  return r;
}

__attribute__((visibility("default"))) int strcmp(const char* a, const char* b) noexcept {
  if (__interceptor_strcmp) return __interceptor_strcmp(a, b);
  size_t len;
  int r = StrCompare(a, b, SIZE_MAX, false, &len);
  if (r != 0) RecordStrings(kHere, a, b, SIZE_MAX);
  return r;
}

__attribute__((visibility("default"))) int strncmp(const char* a, const char* b,
                                                   size_t n) noexcept {
  if (__interceptor_strncmp) return __interceptor_strncmp(a, b, n);
  size_t len;
  int r = StrCompare(a, b, n, false, &len);
  if (r != 0) RecordStrings(kHere, a, b, n);
  return r;
}

__attribute__((visibility("default"))) int strcasecmp(const char* a, const char* b) noexcept {
  if (__interceptor_strcasecmp) return __interceptor_strcasecmp(a, b);
  size_t len;
  int r = StrCompare(a, b, SIZE_MAX, true, &len);
  if (r != 0) RecordStrings(kHere, a, b, SIZE_MAX);
  return r;
}

__attribute__((visibility("default"))) int strncasecmp(const char* a, const char* b,
                                                       size_t n) noexcept {
  if (__interceptor_strncasecmp) return __interceptor_strncasecmp(a, b, n);
  size_t len;
  int r = StrCompare(a, b, n, true, &len);
  if (r != 0) RecordStrings(kHere, a, b, n);
  return r;
}

// glibc's C++ header declares strstr as const-correct overloads; the definition takes the
// symbol name through an asm label instead.
extern "C" char* PollenStrstr(const char* haystack, const char* needle) noexcept __asm__("strstr");
__attribute__((visibility("default"))) char* PollenStrstr(const char* haystack,
                                                          const char* needle) noexcept {
  if (__interceptor_strstr) return __interceptor_strstr(haystack, needle);
  if (*needle == 0) return const_cast<char*>(haystack);
  for (const char* h = haystack; *h; h++) {
    const char* x = h;
    const char* y = needle;
    while (*x && *y && *x == *y) {
      x++;
      y++;
    }
    if (*y == 0) return const_cast<char*>(h);
  }
  size_t n = 0;
  while (needle[n]) n++;
  RecordWords(kHere, needle, needle, n);
  return nullptr;
}

__attribute__((visibility("default"))) void* memmem(const void* haystack, size_t hn,
                                                    const void* needle, size_t nn) noexcept {
  if (__interceptor_memmem) return __interceptor_memmem(haystack, hn, needle, nn);
  const unsigned char* h = static_cast<const unsigned char*>(haystack);
  if (nn == 0) return const_cast<void*>(haystack);
  for (size_t i = 0; i + nn <= hn; i++) {
    if (h[i] == *static_cast<const unsigned char*>(needle) && LoopMemcmp(h + i, needle, nn) == 0) {
      return const_cast<unsigned char*>(h + i);
    }
  }
  RecordWords(kHere, needle, needle, nn);
  return nullptr;
}

}  // extern "C"
