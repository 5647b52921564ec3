// Integers stored in an input: 1 to 8 bytes, either byte order. Shared by the mutations and
// the gates, which read and write the same fields.
#ifndef POLLEN_ENGINE_INT_FIELD_H_
#define POLLEN_ENGINE_INT_FIELD_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace pollen::engine {

inline uint64_t LoadField(const uint8_t* p, size_t width, bool big_endian) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; i++) v |= uint64_t{p[big_endian ? width - 1 - i : i]} << (8 * i);
  return v;
}

inline void StoreField(uint8_t* p, size_t width, bool big_endian, uint64_t v) {
  for (size_t i = 0; i < width; i++) p[big_endian ? width - 1 - i : i] = uint8_t(v >> (8 * i));
}

// Whether v fits in a field of `width` bytes.
inline bool FitsIn(uint64_t v, size_t width) { return width >= 8 || (v >> (8 * width)) == 0; }

// The field width (1, 2, 4 or 8 bytes) of a comparison whose operands are `size` bytes.
inline size_t FieldWidth(size_t size) {
  return size >= 8 ? 8 : (size >= 4 ? 4 : (size >= 2 ? 2 : 1));
}

// The bits a field of `width` bytes (1 to 8) holds.
inline uint64_t WidthMask(size_t width) { return width >= 8 ? ~0ULL : (1ULL << (8 * width)) - 1; }

// Bytes needed for v: 1, 2, 4 or 8.
inline size_t NarrowestWidth(uint64_t v) {
  if (v <= 0xff) return 1;
  if (v <= 0xffff) return 2;
  return v <= 0xffffffffULL ? 4 : 8;
}

// The decimal text of v read as a signed integer of `width` bytes, as strtol would have
// produced it, into out (room for 21 bytes); returns its length.
inline size_t DecimalText(uint64_t v, size_t width, uint8_t* out) {
  int64_t x = width >= 8 ? static_cast<int64_t>(v)
                         : static_cast<int64_t>(v << (64 - 8 * width)) >> (64 - 8 * width);
  char buf[24];
  int len = std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(x));
  std::memcpy(out, buf, static_cast<size_t>(len));
  return static_cast<size_t>(len);
}

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_INT_FIELD_H_
