// The integer comparisons of one execution in the order they ran, repeats included: two runs
// that took the same path compared at the same sites in the same order, so their sequences
// line up entry by entry, and an operand that differs between them came from the bytes that
// differ between the inputs (colorization, engine/colorize.h).
//
// Fixed capacity, no allocation on the hot path: comparisons beyond capacity are dropped.
// Not thread-safe.
#ifndef POLLEN_ENGINE_CMP_SEQUENCE_H_
#define POLLEN_ENGINE_CMP_SEQUENCE_H_

#include <cstddef>
#include <cstdint>

namespace pollen::engine {

struct CmpSequence {
  static constexpr size_t kMax = 8192;

  struct Cmp {
    uint64_t a;
    uint64_t b;
    uint32_t site;  // low bits of the comparison's pc
    uint8_t size;   // operand width in bytes: 1, 2, 4 or 8
  };

  Cmp cmps[kMax];
  uint32_t count = 0;

  void Clear() { count = 0; }

  void Add(uintptr_t pc, uint64_t a, uint64_t b, uint8_t size) {
    if (count == kMax) return;
    cmps[count++] = Cmp{a, b, static_cast<uint32_t>(pc), size};
  }
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_CMP_SEQUENCE_H_
