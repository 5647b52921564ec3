// Where a compared operand lives, and how much of it may be read, for the hooks that record
// operands behind pointers (the string interceptors and the routine hook): reading an
// operand must never be a fault or a sanitizer report of the target's. (Pointers of unknown
// meaning are read with engine::CopyMapped first: engine/routine_operands.h.)
#ifndef POLLEN_ENGINE_RUNTIME_OPERAND_MEMORY_H_
#define POLLEN_ENGINE_RUNTIME_OPERAND_MEMORY_H_

#include <cstddef>
#include <cstdint>

extern "C" void* __asan_region_is_poisoned(void* beg, size_t size) __attribute__((weak));
// The bounds of the executable's image (the linker defines both): a compared operand inside
// it is one of the program's literals, not part of the input.
extern "C" char __executable_start;
extern "C" char _end;

namespace pollen::runtime {

inline bool InImage(const void* p) {
  return p >= static_cast<const void*>(&__executable_start) && p < static_cast<const void*>(&_end);
}

// How many of the first n bytes at p may be read as far as ASan knows: all, unless some are
// not addressable. Without ASan, all: the caller knows the n bytes are the comparison's own.
inline size_t Readable(const void* p, size_t n) {
  if (__asan_region_is_poisoned == nullptr || n == 0) return n;
  const void* bad = __asan_region_is_poisoned(const_cast<void*>(p), n);
  if (bad == nullptr) return n;
  return static_cast<size_t>(static_cast<const char*>(bad) - static_cast<const char*>(p));
}

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_OPERAND_MEMORY_H_
