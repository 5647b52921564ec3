// Every distinct pair of operands one execution compared, in the order first seen: what the
// input-to-state stage (engine/i2s_stage.h) tries one by one. AFL++'s CmpLog, for the one run
// of an entry that the stage starts from; the mutations' CmpTable (cmp_table.h) is a small
// rolling window instead, read at random.
//
// Fixed capacity, no allocation on the hot path: pairs beyond capacity are dropped. Pairs
// are deduplicated by an open-addressing set of their hashes (a collision drops a pair).
// Not thread-safe.
#ifndef POLLEN_ENGINE_CMP_LOG_H_
#define POLLEN_ENGINE_CMP_LOG_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/cmp_table.h"

namespace pollen::engine {

struct CmpLog {
  static constexpr size_t kMaxInts = 2048;
  static constexpr size_t kMaxWords = 512;
  static constexpr size_t kSetSlots = 8192;  // power of two, > 2 x (kMaxInts + kMaxWords)

  CmpTable::IntPair ints[kMaxInts];
  CmpTable::WordPair words[kMaxWords];
  uint32_t num_ints = 0;
  uint32_t num_words = 0;
  uint64_t seen[kSetSlots];  // hashes of the pairs kept; 0 = free

  void Clear() {
    num_ints = 0;
    num_words = 0;
    std::memset(seen, 0, sizeof(seen));
  }

  void AddInt(uint64_t a, uint64_t b, uint8_t size) {
    if (a == b || num_ints == kMaxInts) return;
    if (!Insert(Mix((a * 0x9E3779B97F4A7C15ULL ^ b) + size))) return;
    ints[num_ints++] = CmpTable::IntPair{a, b, size};
  }

  // a and b as CmpTable::AddWords takes them (truncated to kMaxWord).
  void AddWords(const void* a, size_t na, const void* b, size_t nb, bool b_constant) {
    if (na > CmpTable::kMaxWord) na = CmpTable::kMaxWord;
    if (nb > CmpTable::kMaxWord) nb = CmpTable::kMaxWord;
    if ((na <= 1 && nb <= 1) || na == 0 || num_words == kMaxWords) return;
    const uint8_t* pa = static_cast<const uint8_t*>(a);
    const uint8_t* pb = static_cast<const uint8_t*>(b);
    uint64_t h = na * 131 + nb + 1;
    for (size_t i = 0; i < na; i++) h = h * 0x100000001B3ULL ^ pa[i];
    for (size_t i = 0; i < nb; i++) h = h * 0x100000001B3ULL ^ (pb[i] + 0x100u);
    if (!Insert(Mix(h) | 1)) return;
    CmpTable::WordPair& w = words[num_words++];
    std::memcpy(w.a, pa, na);
    std::memcpy(w.b, pb, nb);
    w.size = static_cast<uint8_t>(na);
    w.size_b = static_cast<uint8_t>(nb);
    w.b_constant = b_constant ? 1 : 0;
  }

 private:
  static uint64_t Mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return x == 0 ? 1 : x;
  }

  // Adds h to the set; false when it was there already (or the probe ran long: dropped).
  bool Insert(uint64_t h) {
    size_t i = h & (kSetSlots - 1);
    for (size_t probe = 0; probe < 16; probe++, i = (i + 1) & (kSetSlots - 1)) {
      if (seen[i] == h) return false;
      if (seen[i] == 0) {
        seen[i] = h;
        return true;
      }
    }
    return false;
  }
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_CMP_LOG_H_
