#include "engine/mutator.h"

#include <string.h>  // memmem (glibc)

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <utility>

#include "base/status.h"
#include "engine/int_field.h"

namespace pollen::engine {
namespace {

// Replay depends on every random draw happening in a fixed order, so draws are always made
// in separate statements, never two in one expression or in one call's arguments (whose
// evaluation order C++ leaves unspecified).

// What one mutation may read and write. A mutation returns the new size, or kNoChange when it
// cannot apply; then it must not have modified data (it may have drawn from rng).
struct Ctx {
  uint8_t* data;
  size_t size;
  size_t max_size;
  Rng& rng;
  const MutationSources& src;
  uint8_t* scratch;  // max_size bytes
  uint8_t* word;     // LearnedWords::kMaxWord bytes: the word written, for last_word()
  size_t* word_size;
};

// Notes the word a mutation wrote (words of 2 to kMaxWord bytes only).
void NoteWord(Ctx& c, const uint8_t* p, size_t n) {
  if (n < 2 || n > LearnedWords::kMaxWord) return;
  std::memcpy(c.word, p, n);
  *c.word_size = n;
}

constexpr size_t kNoChange = 0;

// A length in [1, n] for n >= 1, mostly short so inputs stay small: 90% at most 8,
// 9% at most 32, 1% up to n (Go's chooseLen).
size_t ChooseLen(Rng& rng, size_t n) {
  uint32_t x = rng.Below(100);
  size_t cap = x < 90 ? 8 : (x < 99 ? 32 : n);
  return 1 + rng.BelowSize(std::min(cap, n));
}

// Moves data[pos, size) right by n; the caller has checked size + n <= max_size.
void OpenGap(uint8_t* data, size_t size, size_t pos, size_t n) {
  std::memmove(data + pos + n, data + pos, size - pos);
}

// Writes `bytes` into the input at a random position, inserting or overwriting as asked;
// switches to the other way when the asked one does not fit.
size_t PlaceBytes(Ctx& c, const uint8_t* bytes, size_t n, bool insert) {
  if (insert && c.size + n > c.max_size) insert = false;
  if (!insert && n > c.size) {
    if (c.size + n > c.max_size) return kNoChange;
    insert = true;
  }
  if (insert) {
    size_t pos = c.rng.BelowSize(c.size + 1);
    OpenGap(c.data, c.size, pos, n);
    std::memcpy(c.data + pos, bytes, n);
    return c.size + n;
  }
  size_t pos = c.rng.BelowSize(c.size - n + 1);
  std::memcpy(c.data + pos, bytes, n);
  return c.size;
}

size_t EraseBytes(Ctx& c) {
  if (c.size <= 1) return kNoChange;
  size_t n = ChooseLen(c.rng, c.size - 1);
  size_t pos = c.rng.BelowSize(c.size - n + 1);
  std::memmove(c.data + pos, c.data + pos + n, c.size - pos - n);
  return c.size - n;
}

size_t InsertByte(Ctx& c) {
  if (c.size >= c.max_size) return kNoChange;
  size_t pos = c.rng.BelowSize(c.size + 1);
  OpenGap(c.data, c.size, pos, 1);
  c.data[pos] = static_cast<uint8_t>(c.rng.Next());
  return c.size + 1;
}

size_t InsertRepeatedBytes(Ctx& c) {
  if (c.size >= c.max_size) return kNoChange;
  size_t n = ChooseLen(c.rng, c.max_size - c.size);
  size_t pos = c.rng.BelowSize(c.size + 1);
  uint8_t value = 0;
  if (c.rng.Bool()) {
    value = static_cast<uint8_t>(c.rng.Next());
  } else if (c.rng.Bool()) {
    value = 0xff;  // 0x00 and 0xff are favoured, as in libFuzzer
  }
  OpenGap(c.data, c.size, pos, n);
  std::memset(c.data + pos, value, n);
  return c.size + n;
}

size_t ChangeByte(Ctx& c) {
  if (c.size == 0) return kNoChange;
  size_t pos = c.rng.BelowSize(c.size);
  c.data[pos] ^= static_cast<uint8_t>(1 + c.rng.Below(255));  // never the same value
  return c.size;
}

size_t ChangeBit(Ctx& c) {
  if (c.size == 0) return kNoChange;
  size_t pos = c.rng.BelowSize(c.size);
  c.data[pos] ^= static_cast<uint8_t>(1u << c.rng.Below(8));
  return c.size;
}

size_t ShuffleBytes(Ctx& c) {
  if (c.size < 2) return kNoChange;
  size_t n = 2 + c.rng.BelowSize(std::min<size_t>(c.size, 8) - 1);  // [2, 8]
  size_t pos = c.rng.BelowSize(c.size - n + 1);
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = c.rng.BelowSize(i + 1);
    std::swap(c.data[pos + i], c.data[pos + j]);
  }
  return c.size;
}

size_t SwapChunks(Ctx& c) {
  if (c.size < 2) return kNoChange;
  size_t n = ChooseLen(c.rng, c.size / 2);
  size_t a = c.rng.BelowSize(c.size - 2 * n + 1);
  size_t b = a + n + c.rng.BelowSize(c.size - a - 2 * n + 1);
  std::swap_ranges(c.data + a, c.data + a + n, c.data + b);
  return c.size;
}

size_t CopyPart(Ctx& c) {
  if (c.size == 0) return kNoChange;
  bool insert = c.size < c.max_size && c.rng.Bool();
  size_t n = ChooseLen(c.rng, insert ? std::min(c.size, c.max_size - c.size) : c.size);
  size_t from = c.rng.BelowSize(c.size - n + 1);
  if (!insert) {
    size_t to = c.rng.BelowSize(c.size - n + 1);
    std::memmove(c.data + to, c.data + from, n);
    return c.size;
  }
  std::memcpy(c.scratch, c.data + from, n);  // the gap may move the source
  size_t to = c.rng.BelowSize(c.size + 1);
  OpenGap(c.data, c.size, to, n);
  std::memcpy(c.data + to, c.scratch, n);
  return c.size + n;
}

size_t CrossOver(Ctx& c) {
  const uint8_t* other = c.src.crossover;
  size_t other_size = c.src.crossover_size;
  if (other == nullptr || other_size == 0) return kNoChange;
  switch (c.rng.Below(3)) {
    case 0: {  // overwrite part of the input with part of the partner
      if (c.size == 0) return kNoChange;
      size_t n = ChooseLen(c.rng, std::min(c.size, other_size));
      size_t from = c.rng.BelowSize(other_size - n + 1);
      size_t to = c.rng.BelowSize(c.size - n + 1);
      std::memcpy(c.data + to, other + from, n);
      return c.size;
    }
    case 1: {  // insert part of the partner
      if (c.size >= c.max_size) return kNoChange;
      size_t n = ChooseLen(c.rng, std::min(other_size, c.max_size - c.size));
      size_t from = c.rng.BelowSize(other_size - n + 1);
      size_t to = c.rng.BelowSize(c.size + 1);
      OpenGap(c.data, c.size, to, n);
      std::memcpy(c.data + to, other + from, n);
      return c.size + n;
    }
    default: {  // splice: a prefix of the input, then a suffix of the partner
      size_t keep = c.rng.BelowSize(c.size + 1);
      size_t from = c.rng.BelowSize(other_size);
      size_t n = std::min(other_size - from, c.max_size - keep);
      std::memcpy(c.data + keep, other + from, n);
      return keep + n;  // >= 1: keep == 0 leaves room for at least one partner byte
    }
  }
}

bool IsDigit(uint8_t b) { return b >= '0' && b <= '9'; }

size_t ChangeAsciiInt(Ctx& c) {
  if (c.size == 0) return kNoChange;
  // The first digit at or after a random position (wrapping), then its whole number.
  size_t start = c.rng.BelowSize(c.size);
  size_t b = start;
  while (b < c.size && !IsDigit(c.data[b])) b++;
  if (b == c.size) {
    b = 0;
    while (b < start && !IsDigit(c.data[b])) b++;
    if (b == start) return kNoChange;
  }
  while (b > 0 && IsDigit(c.data[b - 1])) b--;
  size_t e = b;
  while (e < c.size && IsDigit(c.data[e]) && e - b < 19) e++;  // 19 digits fit in uint64
  uint64_t v = 0;
  for (size_t i = b; i < e; i++) v = v * 10 + (c.data[i] - '0');
  switch (c.rng.Below(5)) {
    case 0:
      v++;
      break;
    case 1:
      v = v == 0 ? 1 : v - 1;
      break;
    case 2:
      v /= 2;
      break;
    case 3:
      v *= 2;
      break;
    default:
      v = c.rng.BelowSize(v < (1ULL << 32) ? v * v + 10 : ~0ULL);
      break;
  }
  char digits[20];  // reversed
  size_t len = 0;
  do {
    digits[len++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  size_t new_size = c.size - (e - b) + len;
  if (new_size > c.max_size) return kNoChange;
  std::memmove(c.data + b + len, c.data + e, c.size - e);
  for (size_t i = 0; i < len; i++) c.data[b + i] = static_cast<uint8_t>(digits[len - 1 - i]);
  return new_size;
}

size_t ChangeBinInt(Ctx& c) {
  if (c.size == 0) return kNoChange;
  static constexpr size_t kWidths[] = {1, 2, 4, 8};
  uint32_t fitting = c.size >= 8 ? 4 : (c.size >= 4 ? 3 : (c.size >= 2 ? 2 : 1));
  size_t width = kWidths[c.rng.Below(fitting)];
  size_t pos = c.rng.BelowSize(c.size - width + 1);
  bool big_endian = width > 1 && c.rng.Bool();
  uint64_t v = LoadField(c.data + pos, width, big_endian);
  if (c.rng.OneIn(4)) {
    v = ~v + 1;  // negate
  } else {
    uint64_t delta = 1 + c.rng.Below(10);
    v = c.rng.Bool() ? v + delta : v - delta;
  }
  StoreField(c.data + pos, width, big_endian, v);
  return c.size;
}

size_t UseDictionary(Ctx& c) {
  const Dictionary* dict = c.src.dictionary;
  if (dict == nullptr || dict->entries.empty()) return kNoChange;
  const std::string& entry = dict->entries[c.rng.BelowSize(dict->entries.size())];
  bool insert = c.rng.Bool();
  size_t n = PlaceBytes(c, reinterpret_cast<const uint8_t*>(entry.data()), entry.size(), insert);
  if (n != kNoChange) NoteWord(c, reinterpret_cast<const uint8_t*>(entry.data()), entry.size());
  return n;
}

size_t UseLearnedWord(Ctx& c) {
  const LearnedWords* learned = c.src.learned;
  if (learned == nullptr || learned->count == 0) return kNoChange;
  const LearnedWords::Word& w = learned->words[c.rng.BelowSize(std::min<size_t>(learned->count, LearnedWords::kMax))];
  if (w.size < 2 || w.size > LearnedWords::kMaxWord) return kNoChange;
  bool insert = c.rng.Bool();
  size_t n = PlaceBytes(c, w.bytes, w.size, insert);
  if (n != kNoChange) NoteWord(c, w.bytes, w.size);
  return n;
}

// First occurrence of needle[0, n) starting at or after `start`, wrapping to the beginning;
// returns `size` when there is none.
size_t FindWrapping(const uint8_t* data, size_t size, const uint8_t* needle, size_t n,
                    size_t start) {
  if (n == 0 || n > size) return size;
  const void* hit = memmem(data + start, size - start, needle, n);
  if (hit == nullptr) hit = memmem(data, std::min(size, start + n - 1), needle, n);
  return hit == nullptr ? size : static_cast<size_t>(static_cast<const uint8_t*>(hit) - data);
}

// Appends text[0, n) to a random line of the input (before its newline or CRLF, or at the
// end of the input), after a space when the line ends in a letter or digit ("DATA" becomes
// "DATA 7", "mode=" becomes "mode=4242").
size_t AppendToLine(Ctx& c, const uint8_t* text, size_t n) {
  if (c.size == 0) return kNoChange;
  size_t at = c.rng.BelowSize(c.size);
  const void* nl = std::memchr(c.data + at, '\n', c.size - at);
  size_t end = nl == nullptr ? c.size : static_cast<size_t>(static_cast<const uint8_t*>(nl) - c.data);
  if (end > 0 && c.data[end - 1] == '\r') end--;  // "DATA\r\n": before the \r
  bool space = end > 0 && std::isalnum(c.data[end - 1]) != 0;
  size_t total = n + (space ? 1 : 0);
  if (c.size + total > c.max_size) return kNoChange;
  OpenGap(c.data, c.size, end, total);
  if (space) c.data[end] = ' ';
  std::memcpy(c.data + end + (space ? 1 : 0), text, n);
  return c.size + total;
}

// One way to apply a compared pair: find `needle` (n bytes) in the input, write
// `replacement` (rn bytes, which may differ from n: the input then shrinks or grows) there.
struct Replacement {
  uint8_t needle[CmpTable::kMaxWord];
  uint8_t replacement[CmpTable::kMaxWord];
  size_t n;
  size_t rn;
  bool text = false;  // decimal text of an integer operand
};

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

// Input-to-state (RedQueen / libFuzzer's TORC): a program compared a value taken from the
// input against another value, so write the other value where the first one sits.
size_t InputToState(Ctx& c) {
  const CmpTable* table = c.src.cmp;
  if (table == nullptr || table->empty()) return kNoChange;
  // The one-byte section counts as a quarter of its slots: as many as the int window.
  constexpr size_t kByteShare = CmpTable::kByteSlots / 4;
  constexpr size_t kSlots = CmpTable::kIntSlots + CmpTable::kWordSlots + kByteShare;
  constexpr size_t kFirstByte = CmpTable::kIntSlots + CmpTable::kWordSlots;
  size_t slot = c.rng.BelowSize(kSlots);
  if (slot >= kFirstByte && table->used_bytes > 0) return ByteToState(c, *table);
  if (slot >= kFirstByte) slot = c.rng.BelowSize(kFirstByte);  // no byte pairs: as before
  size_t tried = 0;
  for (; tried < kFirstByte; tried++, slot = (slot + 1) % kFirstByte) {
    bool used = slot < CmpTable::kIntSlots ? table->ints[slot].size != 0
                                           : table->words[slot - CmpTable::kIntSlots].size != 0;
    if (used) break;
  }
  if (tried == kFirstByte) {
    return table->used_bytes > 0 ? ByteToState(c, *table) : kNoChange;
  }

  Replacement options[6];  // {a->b, b->a} x {little endian, big endian, decimal text}
  size_t count = 0;
  if (slot < CmpTable::kIntSlots) {
    const CmpTable::IntPair& p = table->ints[slot];
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
    const CmpTable::WordPair& p = table->words[slot - CmpTable::kIntSlots];
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
    if (slot >= CmpTable::kIntSlots) NoteWord(c, r.replacement, r.rn);
    return c.size - r.n + r.rn;
  }
  // The operand is not in the input (it may come from a transformation of it): insert the
  // wanted value somewhere, so later mutations can build on it. A number parsed from text
  // that is not there was parsed from an empty or missing field: half the time its text goes
  // where fields end, at the end of a line.
  const Replacement& r = options[first];
  size_t n = r.text && c.rng.Bool() ? AppendToLine(c, r.replacement, r.rn)
                                    : PlaceBytes(c, r.replacement, r.rn, /*insert=*/true);
  if (n != kNoChange && slot >= CmpTable::kIntSlots) NoteWord(c, r.replacement, r.rn);
  return n;
}

// Picks a used int slot of the table, starting at a random one; nullptr when there is none.
const CmpTable::IntPair* PickIntPair(Ctx& c) {
  const CmpTable* table = c.src.cmp;
  if (table == nullptr || table->used_ints == 0) return nullptr;
  size_t slot = c.rng.BelowSize(CmpTable::kIntSlots);
  for (size_t tried = 0; tried < CmpTable::kIntSlots; tried++, slot = (slot + 1) % CmpTable::kIntSlots) {
    if (table->ints[slot].size != 0) return &table->ints[slot];
  }
  return nullptr;
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

// [begin, end) of the line (with its '\n', if any) that contains position `at`.
void LineAround(const uint8_t* data, size_t size, size_t at, size_t* begin, size_t* end) {
  size_t b = at;
  while (b > 0 && data[b - 1] != '\n') b--;
  const void* nl = std::memchr(data + at, '\n', size - at);
  *begin = b;
  *end = nl == nullptr ? size : static_cast<size_t>(static_cast<const uint8_t*>(nl) - data) + 1;
}

// Text protocols and configuration files grow by whole lines: copies a line of the input
// (or of the cross-over partner) to the start or end of a line. Needs a newline in the input.
size_t CopyLine(Ctx& c) {
  if (c.size == 0 || std::memchr(c.data, '\n', c.size) == nullptr) return kNoChange;
  const uint8_t* from = c.data;
  size_t from_size = c.size;
  if (c.src.crossover != nullptr && c.src.crossover_size > 0 && c.rng.OneIn(4)) {
    from = c.src.crossover;
    from_size = c.src.crossover_size;
  }
  size_t lb, le;
  LineAround(from, from_size, c.rng.BelowSize(from_size), &lb, &le);
  size_t n = le - lb;
  if (from[le - 1] == '\n') n--;  // the line's text; its newline is added where it goes
  size_t tb, te;
  LineAround(c.data, c.size, c.rng.BelowSize(c.size), &tb, &te);
  size_t to = c.rng.Bool() ? tb : te;
  if (c.size + n + 1 > c.max_size) return kNoChange;
  // After the input's unfinished last line the copy goes on a line of its own: "\nline"
  // (the input's last section is where a key is often missing); elsewhere "line\n".
  bool after_unfinished = to == c.size && c.data[c.size - 1] != '\n';
  size_t text_at = after_unfinished ? 1 : 0;
  std::memmove(c.scratch + text_at, from + lb, n);  // the gap may move the source
  c.scratch[after_unfinished ? 0 : n] = '\n';
  n++;
  OpenGap(c.data, c.size, to, n);
  std::memcpy(c.data + to, c.scratch, n);
  return c.size + n;
}

// Inserts a copy of a whole record and grows every length that encloses the insertion
// point (length_fields.h). A record is a length field's span with the k bytes before the
// field (its type or tag: k in 0..2, the same for the copy and the place it goes to), and
// it goes where another record starts. Fields that the chain's earlier mutations moved or
// changed are left out.
size_t InsertRecord(Ctx& c) {
  const LengthFields* lf = c.src.lengths;
  if (lf == nullptr || lf->count == 0) return kNoChange;
  // The fields still in place in this input.
  uint8_t valid[LengthFields::kMax];
  size_t nvalid = 0;
  for (uint32_t i = 0; i < lf->count && i < LengthFields::kMax; i++) {
    const LengthFields::Field& f = lf->fields[i];
    if (size_t{f.offset} + f.width + f.value > c.size) continue;
    if (LoadField(c.data + f.offset, f.width, f.big_endian != 0) != f.value) continue;
    valid[nvalid++] = static_cast<uint8_t>(i);
  }
  if (nvalid == 0) return kNoChange;
  size_t k = c.rng.Below(3);
  const LengthFields::Field& src = lf->fields[valid[c.rng.BelowSize(nvalid)]];
  const LengthFields::Field& dst = lf->fields[valid[c.rng.BelowSize(nvalid)]];
  if (src.offset < k || dst.offset < k) return kNoChange;
  size_t from = src.offset - k;
  size_t n = k + src.width + src.value;
  size_t at = dst.offset - k;
  if (c.size + n > c.max_size) return kNoChange;
  std::memcpy(c.scratch, c.data + from, n);
  // Grow the enclosing lengths first, while their offsets are still those of the entry
  // (an enclosing field lies before the insertion point, so the gap does not move it).
  for (size_t i = 0; i < nvalid; i++) {
    const LengthFields::Field& f = lf->fields[valid[i]];
    size_t begin = size_t{f.offset} + f.width;
    if (at < begin || at >= begin + f.value) continue;
    uint64_t grown = uint64_t{f.value} + n;
    if (!FitsIn(grown, f.width)) continue;
    StoreField(c.data + f.offset, f.width, f.big_endian != 0, grown);
  }
  OpenGap(c.data, c.size, at, n);
  std::memcpy(c.data + at, c.scratch, n);
  return c.size + n;
}

// The bracket that closes `open`: ')', ']', '}' or '>', or 0 for a byte that opens nothing.
uint8_t Closer(uint8_t open) {
  switch (open) {
    case '(':
      return ')';
    case '[':
      return ']';
    case '{':
      return '}';
    case '<':
      return '>';
    default:
      return 0;
  }
}

// One past the bracket that closes the group opening at data[begin] (brackets of its own
// kind only), or 0 when it does not close within kMaxGroup bytes.
constexpr size_t kMaxGroup = 1024;
size_t GroupEnd(const uint8_t* data, size_t size, size_t begin) {
  const uint8_t open = data[begin];
  const uint8_t close = Closer(open);
  size_t depth = 0;
  size_t stop = std::min(size, begin + kMaxGroup);
  for (size_t i = begin; i < stop; i++) {
    if (data[i] == open) {
      depth++;
    } else if (data[i] == close && --depth == 0) {
      return i + 1;
    }
  }
  return 0;
}

// A bracketed group of data, [*begin, *end): among the first four opening brackets at or
// after a random place (wrapping), the first that closes. False when there is none.
bool PickGroup(Rng& rng, const uint8_t* data, size_t size, size_t* begin, size_t* end) {
  if (size < 2) return false;
  size_t start = rng.BelowSize(size);
  int opens = 0;
  for (size_t k = 0; k < size && opens < 4; k++) {
    size_t i = start + k < size ? start + k : start + k - size;
    if (Closer(data[i]) == 0) continue;
    opens++;
    size_t e = GroupEnd(data, size, i);
    if (e != 0) {
      *begin = i;
      *end = e;
      return true;
    }
  }
  return false;
}

// Nesting without a grammar (Grimoire's recursive splicing, reduced to brackets): a copy of
// a bracketed group, with up to four bytes after it (a repetition such as "{9}" or "*"),
// goes inside a group of the input, just after its opening or before its closing bracket,
// so that the parser's recursion runs one level deeper: "(a{9}){9}" becomes
// "(a{9}(a{9}){9}){9}". A quarter of the time, when the cross-over partner has a group,
// the copy is the partner's. Regular expressions, JSON, SQL and markup nest this way, and a
// level deeper is new coverage (a larger program, another hit-count bucket) that byte
// mutations rarely build.
size_t NestGroup(Ctx& c) {
  size_t begin, end;
  if (!PickGroup(c.rng, c.data, c.size, &begin, &end)) return kNoChange;
  const uint8_t* from = c.data;
  size_t from_size = c.size;
  size_t ub = begin;
  size_t ue = end;
  if (c.src.crossover != nullptr && c.src.crossover_size > 1 && c.rng.OneIn(4)) {
    size_t pb, pe;
    if (PickGroup(c.rng, c.src.crossover, c.src.crossover_size, &pb, &pe)) {
      from = c.src.crossover;
      from_size = c.src.crossover_size;
      ub = pb;
      ue = pe;
    }
  }
  size_t tail = c.rng.BelowSize(5);
  ue = std::min(from_size, ue + tail);
  size_t n = ue - ub;
  if (c.size + n > c.max_size) return kNoChange;
  size_t at = c.rng.Bool() ? begin + 1 : end - 1;
  std::memcpy(c.scratch, from + ub, n);  // the gap may move the source
  OpenGap(c.data, c.size, at, n);
  std::memcpy(c.data + at, c.scratch, n);
  return c.size + n;
}

struct MutatorEntry {
  const char* name;
  size_t (*fn)(Ctx&);
};

// Picked uniformly, as in libFuzzer (no weights). EraseBytes must stay first and the
// fallbacks below must always apply.
constexpr MutatorEntry kMutators[] = {
    {"EraseBytes", EraseBytes},
    {"InsertByte", InsertByte},
    {"InsertRepeatedBytes", InsertRepeatedBytes},
    {"ChangeByte", ChangeByte},
    {"ChangeBit", ChangeBit},
    {"ShuffleBytes", ShuffleBytes},
    {"SwapChunks", SwapChunks},
    {"CopyPart", CopyPart},
    {"CrossOver", CrossOver},
    {"ChangeASCIIInt", ChangeAsciiInt},
    {"ChangeBinInt", ChangeBinInt},
    {"Dictionary", UseDictionary},
    {"LearnedDictionary", UseLearnedWord},
    {"InputToState", InputToState},
    {"InputToStateArith", InputToStateArith},
    {"CopyLine", CopyLine},
    {"InsertRecord", InsertRecord},
    {"NestGroup", NestGroup},
};
constexpr size_t kNumMutators = std::size(kMutators);
constexpr size_t kEraseIndex = 0;
constexpr size_t kInsertByteIndex = 1;  // always applies to an empty input
constexpr size_t kChangeBitIndex = 4;   // always applies to a non-empty input
constexpr int kMaxAttempts = 16;

}  // namespace

Mutator::Mutator(size_t max_size) : capacity_(max_size), max_size_(max_size), scratch_(max_size) {
  POLLEN_CHECK(max_size >= 1);
}

void Mutator::set_limit(size_t limit) {
  max_size_ = std::max<size_t>(1, std::min(limit, capacity_));
}

size_t Mutator::Mutate(uint8_t* data, size_t size, Rng& rng, const MutationSources& sources) {
  POLLEN_CHECK(size <= max_size_);
  last_word_size_ = 0;
  Ctx c{data, size, max_size_, rng, sources, scratch_.data(), last_word_, &last_word_size_};
  // Above half the largest size, erase a little more often, so inputs do not drift up to
  // it (whatever the request's limit: that one is length control's, node/length_control.h).
  bool large = size > capacity_ / 2;
  for (int attempt = 0; attempt < kMaxAttempts; attempt++) {
    size_t index = kEraseIndex;
    if (!large || !rng.OneIn(8)) index = rng.Below(kNumMutators);
    size_t new_size = kMutators[index].fn(c);
    if (new_size != kNoChange) {
      last_mutator_ = index;
      return new_size;
    }
  }
  // Only reached when nothing applied (e.g. tiny inputs and no sources).
  last_mutator_ = size == 0 ? kInsertByteIndex : kChangeBitIndex;
  return kMutators[last_mutator_].fn(c);
}

size_t Mutator::MutatorCount() { return kNumMutators; }

const char* Mutator::MutatorName(size_t index) {
  return index < kNumMutators ? kMutators[index].name : "?";
}

size_t BeginChain(const Mutator& m, const uint8_t* entry, size_t entry_size, uint8_t* out) {
  size_t size = std::min(entry_size, m.max_size());
  if (size > 0) std::memcpy(out, entry, size);
  return size;
}

size_t ReplayChain(Mutator& m, const uint8_t* entry, size_t entry_size, uint64_t rng_state,
                   uint64_t rng_inc, uint32_t chain_length, const MutationSources& sources,
                   uint8_t* out) {
  size_t size = BeginChain(m, entry, entry_size, out);
  Rng rng(rng_state, rng_inc);
  for (uint32_t i = 0; i < chain_length; i++) size = m.Mutate(out, size, rng, sources);
  return size;
}

}  // namespace pollen::engine
