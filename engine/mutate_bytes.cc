// The byte-level mutators (libFuzzer's and Go's set) and the two dictionaries.
#include <algorithm>
#include <cstring>

#include "engine/int_field.h"
#include "engine/mutation_ops.h"

namespace pollen::engine::mutation {

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

namespace {

bool IsDigit(uint8_t b) { return b >= '0' && b <= '9'; }

}  // namespace

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
  const LearnedWords::Word& w =
      learned->words[c.rng.BelowSize(std::min<size_t>(learned->count, LearnedWords::kMax))];
  if (w.size < 2 || w.size > LearnedWords::kMaxWord) return kNoChange;
  bool insert = c.rng.Bool();
  size_t n = PlaceBytes(c, w.bytes, w.size, insert);
  if (n != kNoChange) NoteWord(c, w.bytes, w.size);
  return n;
}

}  // namespace pollen::engine::mutation
