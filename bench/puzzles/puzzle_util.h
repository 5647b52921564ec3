// Helpers shared by the puzzle targets (bench/puzzles/README.md): byte-order loads and the
// planted crash. Each puzzle is a small libFuzzer harness with one planted bug behind one
// class of hard input; none of them is tuned to Pollen.
#ifndef POLLEN_BENCH_PUZZLES_PUZZLE_UTIL_H_
#define POLLEN_BENCH_PUZZLES_PUZZLE_UTIL_H_

#include <cstddef>
#include <cstdint>

#include "planted_bug.h"

namespace puzzle {

inline uint16_t Be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t Be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}
inline uint16_t Le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
inline uint32_t Le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// The planted bug: a write through a null pointer (volatile, so the compiler keeps it).
inline void Crash() {
  volatile int* p = nullptr;
  POLLEN_PLANTED_BUG(*p = 1);
}

}  // namespace puzzle

#endif  // POLLEN_BENCH_PUZZLES_PUZZLE_UTIL_H_
