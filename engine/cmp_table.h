// The table of compared operands that the cmp hooks fill and the input-to-state mutator reads.
//
// A plain struct of fixed size with no pointers: the worker copies it into shared memory at
// the start of every mutation chain, so the coordinator can replay the chain's mutations with
// exactly the operands the worker used. Like libFuzzer's TORC it is a rolling window: a new
// pair overwrites a slot chosen by its values, and nothing is ever cleared.
#ifndef POLLEN_ENGINE_CMP_TABLE_H_
#define POLLEN_ENGINE_CMP_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pollen::engine {

struct CmpTable {
  static constexpr size_t kIntSlots = 64;
  static constexpr size_t kWordSlots = 32;
  static constexpr size_t kMaxWord = 32;  // longer memcmp/strcmp operands are truncated

  struct IntPair {
    uint64_t a;
    uint64_t b;
    uint8_t size;  // operand width in bytes: 1, 2, 4 or 8; 0 = empty slot
  };
  struct WordPair {
    uint8_t a[kMaxWord];
    uint8_t b[kMaxWord];
    uint8_t size;    // bytes used in a; 0 = empty slot
    uint8_t size_b;  // bytes used in b: strings of different lengths keep their own
    uint8_t b_constant;  // 1: b is the program's own (a literal), a the input's
  };

  IntPair ints[kIntSlots];
  WordPair words[kWordSlots];
  // Slots in use: lets a reader skip an empty table without looking through every slot.
  uint32_t used_ints;
  uint32_t used_words;

  bool empty() const { return used_ints == 0 && used_words == 0; }

  // Hot path (called from every instrumented comparison): no branches beyond the equality
  // test, one slot write.
  void AddInt(uint64_t a, uint64_t b, uint8_t size) {
    if (a == b) return;  // nothing to learn from operands that already match
    IntPair& p = ints[(a ^ b ^ (a >> 17) ^ (b >> 29)) % kIntSlots];
    if (p.size == 0) used_ints++;
    p.a = a;
    p.b = b;
    p.size = size;
  }

  void AddWord(const void* a, const void* b, size_t n, bool b_constant = false) {
    AddWords(a, n, b, n, b_constant);
  }

  // Two operands of their own lengths (strcmp of "hi" and "HELO": a token is replaced whole).
  // `b_constant`: b is known to be the program's (a literal in its image).
  void AddWords(const void* a, size_t na, const void* b, size_t nb, bool b_constant = false) {
    if (na > kMaxWord) na = kMaxWord;
    if (nb > kMaxWord) nb = kMaxWord;
    if ((na <= 1 && nb <= 1) || na == 0) return;
    const uint8_t* pa = static_cast<const uint8_t*>(a);
    const uint8_t* pb = static_cast<const uint8_t*>(b);
    uint32_t h = static_cast<uint32_t>(na * 33 + nb);
    for (size_t i = 0; i < na && i < 8; i++) h = h * 31 + pa[i];
    for (size_t i = 0; i < nb && i < 8; i++) h = h * 31 + (pb[i] << 8);
    WordPair& w = words[h % kWordSlots];
    if (w.size == 0) used_words++;
    std::memcpy(w.a, pa, na);
    std::memcpy(w.b, pb, nb);
    w.size = static_cast<uint8_t>(na);
    w.size_b = static_cast<uint8_t>(nb);
    w.b_constant = b_constant ? 1 : 0;
  }

  void Clear() { std::memset(this, 0, sizeof(*this)); }
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_CMP_TABLE_H_
