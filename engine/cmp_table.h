// The table of compared operands that the cmp hooks fill and the input-to-state mutator reads.
//
// A plain struct of fixed size with no pointers: the worker copies it into shared memory at
// the start of every mutation chain, so the coordinator can replay the chain's mutations with
// exactly the operands the worker used. Like libFuzzer's TORC it is a rolling window: a new
// pair overwrites a slot chosen by its values, and nothing is ever cleared.
//
// One-byte comparisons (a parser's character tests: `t[0] == 'P'`, and its searches for a
// delimiter: `std::find(t, end, '>')`) have a section of their own, one slot per comparison
// site: a parser makes hundreds of them per run, and in the value-hashed window the test
// that guards a rare construct was overwritten by the later ones before a mutation could
// read it (re2's named groups, issue 20). A search's loop compares every byte it passes with
// the byte it looks for, a variable (no constant hook); its site keeps the last pair, and
// input-to-state uses it either way, half the time inserting one of its bytes at a random
// place (a search that failed met the byte it sought nowhere).
//
// Wider comparisons go both to the value-hashed window (a loop that compares one value with
// a table's entries at one site leaves several pairs there) and to a section by site, where
// a site's slot keeps its last pair that differed. Without the second, a check made early in
// a run (libpng's ICC profile header, read before thousands of comparisons on the image rows)
// was gone from the 64-slot window by the time the run ended and the mutations read it.
#ifndef POLLEN_ENGINE_CMP_TABLE_H_
#define POLLEN_ENGINE_CMP_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pollen::engine {

struct CmpTable {
  static constexpr size_t kIntSlots = 64;
  static constexpr size_t kWordSlots = 32;
  static constexpr size_t kMaxWord = 32;        // longer memcmp/strcmp operands are truncated
  static constexpr size_t kByteSlots = 256;     // one-byte comparisons, by site
  static constexpr size_t kSiteIntSlots = 512;  // wider comparisons, by site

  struct IntPair {
    uint64_t a;
    uint64_t b;
    uint8_t size;  // operand width in bytes: 1, 2, 4 or 8; 0 = empty slot
  };
  struct WordPair {
    uint8_t a[kMaxWord];
    uint8_t b[kMaxWord];
    uint8_t size;        // bytes used in a; 0 = empty slot
    uint8_t size_b;      // bytes used in b: strings of different lengths keep their own
    uint8_t b_constant;  // 1: b is the program's own (a literal), a the input's
  };

  struct BytePair {
    uint8_t input;     // the byte the program read (from the input, most likely)
    uint8_t constant;  // the value it was compared with
    uint8_t used;      // 0 = empty slot
    uint8_t either;    // 1: neither operand was a constant; either may be the input's
  };

  IntPair ints[kIntSlots];
  WordPair words[kWordSlots];
  BytePair bytes[kByteSlots];
  IntPair site_ints[kSiteIntSlots];
  // The site_ints slots in use, in the order they were first filled (used_site_ints of
  // them): a reader picks one uniformly, where a scan from a random slot of the sparse
  // section would favour the slots after long gaps.
  uint16_t site_int_order[kSiteIntSlots];
  // Slots in use: lets a reader skip an empty table without looking through every slot.
  uint32_t used_ints;
  uint32_t used_words;
  uint32_t used_bytes;
  uint32_t used_site_ints;

  bool empty() const {
    return used_ints == 0 && used_words == 0 && used_bytes == 0 && used_site_ints == 0;
  }

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

  // A comparison of 2 bytes or more at `site` (as for AddConstByte): the window and the
  // site's own slot. Hot path too.
  void AddSiteInt(uintptr_t site, uint64_t a, uint64_t b, uint8_t size) {
    if (a == b) return;
    AddInt(a, b, size);
    const size_t slot = (site * 0x9E3779B97F4A7C15ULL) >> (64 - kSiteIntBits);
    IntPair& p = site_ints[slot];
    if (p.size == 0) site_int_order[used_site_ints++] = static_cast<uint16_t>(slot);
    p.a = a;
    p.b = b;
    p.size = size;
  }

  // A one-byte comparison with a constant at `site` (the comparison's offset in the image,
  // the same in every run): the site's slot keeps its last pair that differed. Hot path too.
  void AddConstByte(uintptr_t site, uint8_t input, uint8_t constant) {
    SetByte(site, input, constant, 0);
  }

  // A one-byte comparison of two variables at `site` (a search loop: the byte read and the
  // byte sought), in the same per-site section. Hot path too.
  void AddSiteByte(uintptr_t site, uint8_t a, uint8_t b) { SetByte(site, a, b, 1); }

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

  // Empties the section by site only: before an entry's run, so that what it holds after
  // are that run's comparisons, not those of earlier entries at sites this one never reaches.
  void ClearSites() {
    std::memset(site_ints, 0, sizeof(site_ints));
    used_site_ints = 0;
  }

 private:
  static constexpr unsigned kSiteIntBits = 9;
  static_assert(kSiteIntSlots == size_t{1} << kSiteIntBits);

  // The site's slot keeps its last pair that differed.
  void SetByte(uintptr_t site, uint8_t input, uint8_t constant, uint8_t either) {
    if (input == constant) return;
    BytePair& p = bytes[(site ^ (site >> 8)) % kByteSlots];
    if (p.used == 0) {
      used_bytes++;
      p.used = 1;
    }
    p.input = input;
    p.constant = constant;
    p.either = either;
  }
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_CMP_TABLE_H_
