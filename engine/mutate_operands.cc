// Input-to-state: the compared operands of the cmp table written into the input, as they are,
// transformed, or as decimal text (RedQueen, libFuzzer's TORC).
#include <algorithm>
#include <cctype>
#include <cstring>

#include "engine/int_field.h"
#include "engine/mutation_ops.h"

namespace pollen::engine::mutation {

namespace {

// Appends text[0, n) to a random line of the input (before its newline or CRLF, or at the
// end of the input), after a space when the line ends in a letter or digit ("DATA" becomes
// "DATA 7", "mode=" becomes "mode=4242").
size_t AppendToLine(Ctx& c, const uint8_t* text, size_t n) {
  if (c.size == 0) return kNoChange;
  size_t at = c.rng.BelowSize(c.size);
  const void* nl = std::memchr(c.data + at, '\n', c.size - at);
  size_t end =
      nl == nullptr ? c.size : static_cast<size_t>(static_cast<const uint8_t*>(nl) - c.data);
  if (end > 0 && c.data[end - 1] == '\r') end--;  // "DATA\r\n": before the \r
  bool space = end > 0 && std::isalnum(c.data[end - 1]) != 0;
  size_t total = n + (space ? 1 : 0);
  if (c.size + total > c.max_size) return kNoChange;
  OpenGap(c.data, c.size, end, total);
  if (space) c.data[end] = ' ';
  std::memcpy(c.data + end + (space ? 1 : 0), text, n);
  return c.size + total;
}

}  // namespace

namespace {

// One way to apply a compared pair: find `needle` (n bytes) in the input, write
// `replacement` (rn bytes, which may differ from n: the input then shrinks or grows) there.
struct Replacement {
  uint8_t needle[CmpTable::kMaxWord];
  uint8_t replacement[CmpTable::kMaxWord];
  size_t n;
  size_t rn;
  bool text = false;  // decimal text of an integer operand
};

}  // namespace

namespace {

// Input-to-state for a one-byte comparison (the table's per-site section): the constant
// goes where the compared byte sits, searching from a random place, or, when the byte is not
// in the input, at a random place. A pair of two variables goes either way; the byte a
// search looked for and never met is in the input nowhere after the place it searched, so
// half the time it is inserted at a random place instead. Needs table.used_bytes > 0.
size_t ByteToState(Ctx& c, const CmpTable& table) {
  size_t slot = c.rng.BelowSize(CmpTable::kByteSlots);
  while (table.bytes[slot].used == 0) slot = (slot + 1) % CmpTable::kByteSlots;
  const CmpTable::BytePair& p = table.bytes[slot];
  uint8_t from = p.input;
  uint8_t to = p.constant;
  if (p.either != 0) {
    if (c.rng.Bool()) std::swap(from, to);
    if (c.rng.Bool()) return PlaceBytes(c, &to, 1, /*insert=*/true);
  }
  size_t pos = c.size == 0 ? 0 : FindWrapping(c.data, c.size, &from, 1, c.rng.BelowSize(c.size));
  if (pos == c.size) return PlaceBytes(c, &to, 1, /*insert=*/c.rng.Bool());
  c.data[pos] = to;
  return c.size;
}

// A used slot of one section of the table (`n` slots, `used_count` of them in use), looking
// from a random one; nullptr when the section is empty.
template <typename Pair>
const Pair* PickUsed(Ctx& c, const Pair* slots, size_t n, uint32_t used_count) {
  if (used_count == 0) return nullptr;
  size_t slot = c.rng.BelowSize(n);
  for (size_t tried = 0; tried < n; tried++, slot = (slot + 1) % n) {
    if (slots[slot].size != 0) return &slots[slot];
  }
  return nullptr;
}

// An int pair: from the value-hashed window or the section by site, each half the time when
// both hold pairs. nullptr when neither does.
const CmpTable::IntPair* PickIntPair(Ctx& c) {
  const CmpTable* table = c.src.cmp;
  if (table == nullptr) return nullptr;
  const uint32_t by_site = std::min<uint32_t>(table->used_site_ints, CmpTable::kSiteIntSlots);
  if (by_site > 0 && (table->used_ints == 0 || c.rng.Bool())) {
    const size_t slot = table->site_int_order[c.rng.BelowSize(by_site)] % CmpTable::kSiteIntSlots;
    if (table->site_ints[slot].size != 0) return &table->site_ints[slot];
    return PickUsed(c, table->site_ints, CmpTable::kSiteIntSlots, by_site);
  }
  return PickUsed(c, table->ints, CmpTable::kIntSlots, table->used_ints);
}

}  // namespace

// Input-to-state (RedQueen / libFuzzer's TORC): a program compared a value taken from the
// input against another value, so write the other value where the first one sits.
size_t InputToState(Ctx& c) {
  const CmpTable* table = c.src.cmp;
  if (table == nullptr || table->empty()) return kNoChange;
  // The sections' shares: ints as the window's slots (the section by site shares them), words
  // as their slots, the one-byte section a quarter of its slots.
  constexpr size_t kByteShare = CmpTable::kByteSlots / 4;
  constexpr size_t kFirstByte = CmpTable::kIntSlots + CmpTable::kWordSlots;
  constexpr size_t kSlots = kFirstByte + kByteShare;
  size_t slot = c.rng.BelowSize(kSlots);
  if (slot >= kFirstByte && table->used_bytes > 0) return ByteToState(c, *table);
  if (slot >= kFirstByte) slot = c.rng.BelowSize(kFirstByte);  // no byte pairs
  const CmpTable::IntPair* int_pair = nullptr;
  const CmpTable::WordPair* word_pair = nullptr;
  if (slot < CmpTable::kIntSlots) int_pair = PickIntPair(c);
  if (int_pair == nullptr) {
    word_pair = PickUsed(c, table->words, CmpTable::kWordSlots, table->used_words);
  }
  if (int_pair == nullptr && word_pair == nullptr) int_pair = PickIntPair(c);
  if (int_pair == nullptr && word_pair == nullptr) {
    return table->used_bytes > 0 ? ByteToState(c, *table) : kNoChange;
  }

  Replacement options[6];  // {a->b, b->a} x {little endian, big endian, decimal text}
  size_t count = 0;
  if (int_pair != nullptr) {
    const CmpTable::IntPair& p = *int_pair;
    size_t width = FieldWidth(p.size);
    uint64_t mask = WidthMask(width);
    uint64_t a = p.a & mask;
    uint64_t b = p.b & mask;
    // A wide compare of a narrow field (a 4-byte magic loaded into a size_t): sometimes
    // use the narrowest width that holds both values.
    if (width > 1 && c.rng.Bool()) {
      width = std::min(width, NarrowestWidth(std::max(a, b)));
    }
    uint64_t delta = 0;
    if (c.rng.OneIn(8)) delta = c.rng.Bool() ? 1 : ~0ULL;  // operand +-1 for < and >
    for (int dir = 0; dir < 2; dir++) {
      for (int big = 0; big < (width > 1 ? 2 : 1); big++) {
        Replacement& r = options[count++];
        r.n = width;
        r.rn = width;
        StoreField(r.needle, width, big != 0, dir == 0 ? a : b);
        StoreField(r.replacement, width, big != 0, (dir == 0 ? b : a) + delta);
      }
      // The value may have come from text (strtol, atoi, sscanf): its decimal form.
      Replacement& t = options[count++];
      t.n = DecimalText(dir == 0 ? a : b, width, t.needle);
      t.rn = DecimalText((dir == 0 ? b : a) + delta, width, t.replacement);
      t.text = true;
    }
  } else {
    const CmpTable::WordPair& p = *word_pair;
    size_t na = std::min<size_t>(p.size, CmpTable::kMaxWord);
    size_t nb = std::min<size_t>(p.size_b, CmpTable::kMaxWord);
    // When b is known to be the program's literal, only the input's a is worth replacing.
    for (int dir = 0; dir < (p.b_constant ? 1 : 2); dir++) {
      Replacement& r = options[count++];
      r.n = dir == 0 ? na : nb;
      r.rn = dir == 0 ? nb : na;
      std::memcpy(r.needle, dir == 0 ? p.a : p.b, r.n);
      std::memcpy(r.replacement, dir == 0 ? p.b : p.a, r.rn);
    }
  }

  size_t first = c.rng.BelowSize(count);
  size_t start = c.rng.BelowSize(c.size + 1);
  for (size_t i = 0; i < count; i++) {
    const Replacement& r = options[(first + i) % count];
    if (r.n == r.rn && std::memcmp(r.needle, r.replacement, r.n) == 0) continue;
    if (c.size - std::min(c.size, r.n) + r.rn > c.max_size) continue;
    size_t pos = FindWrapping(c.data, c.size, r.needle, r.n, start);
    if (pos == c.size) continue;
    if (r.rn != r.n) {
      std::memmove(c.data + pos + r.rn, c.data + pos + r.n, c.size - pos - r.n);
    }
    std::memcpy(c.data + pos, r.replacement, r.rn);
    if (word_pair != nullptr) NoteWord(c, r.replacement, r.rn);
    return c.size - r.n + r.rn;
  }
  // The operand is not in the input (it may come from a transformation of it): insert the
  // wanted value somewhere, so later mutations can build on it. A number parsed from text
  // that is not there was parsed from an empty or missing field: half the time its text goes
  // where fields end, at the end of a line.
  const Replacement& r = options[first];
  size_t n = r.text && c.rng.Bool() ? AppendToLine(c, r.replacement, r.rn)
                                    : PlaceBytes(c, r.replacement, r.rn, /*insert=*/true);
  if (n != kNoChange && word_pair != nullptr) NoteWord(c, r.replacement, r.rn);
  return n;
}

// Input-to-state through a transformation (REDQUEEN's encodings, Angora's arithmetic): the
// compared value a was computed from a field of the input (a + k, a - k, a ^ k) and should
// be b, so a field v at a random place becomes v + (b - a), v - (b - a) or v ^ a ^ b. At
// the right place this solves a linear relation whose variable has coefficient +-1, or a
// field stored xor-ed or offset, in one step.
size_t InputToStateArith(Ctx& c) {
  const CmpTable::IntPair* p = PickIntPair(c);
  if (p == nullptr || c.size == 0) return kNoChange;
  size_t width = FieldWidth(p->size);
  while (width > c.size) width /= 2;
  uint64_t mask = WidthMask(width);
  bool swap = c.rng.Bool();
  uint64_t a = swap ? p->b : p->a;
  uint64_t b = swap ? p->a : p->b;
  size_t pos = c.rng.BelowSize(c.size - width + 1);
  bool big_endian = width > 1 && c.rng.Bool();
  uint64_t v = LoadField(c.data + pos, width, big_endian);
  uint64_t w;
  switch (c.rng.Below(3)) {
    case 0:
      w = v + (b - a);
      break;
    case 1:
      w = v - (b - a);
      break;
    default:
      w = v ^ a ^ b;
      break;
  }
  if (((w ^ v) & mask) == 0) return kNoChange;
  StoreField(c.data + pos, width, big_endian, w);
  return c.size;
}

}  // namespace pollen::engine::mutation
