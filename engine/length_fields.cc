#include "engine/length_fields.h"

#include <algorithm>
#include <cstring>

#include "engine/int_field.h"

namespace pollen::engine {
namespace {

// Bytes of the entry searched for fields: parsers read their lengths early.
constexpr size_t kMaxScan = 4096;

struct Layout {
  size_t width;
  bool big_endian;
};

// Offsets where a field of this layout holds one of the sorted `values` and its span fits
// in the entry, left to right without overlaps; returns how many (at most `max`).
size_t Matches(const uint8_t* entry, size_t size, Layout layout, const uint64_t* values, size_t n,
               uint32_t* out, size_t max) {
  size_t found = 0;
  size_t scan = std::min(size, kMaxScan);
  for (size_t at = 0; at + layout.width <= scan && found < max;) {
    uint64_t v = LoadField(entry + at, layout.width, layout.big_endian);
    if (v >= 1 && at + layout.width + v <= size && std::binary_search(values, values + n, v)) {
      out[found++] = static_cast<uint32_t>(at);
      at += layout.width;
    } else {
      at++;
    }
  }
  return found;
}

}  // namespace

void FindLengthFields(const CmpSiteLog& log, const uint8_t* entry, size_t size, LengthFields* out) {
  std::memset(out, 0, sizeof(*out));
  if (size < 2) return;
  // Every distinct compared value that could be a length of part of the entry.
  uint64_t values[2 * CmpSiteLog::kTrace];
  size_t n = 0;
  for (uint32_t i = 0; i < log.trace_len && i < CmpSiteLog::kTrace; i++) {
    for (uint64_t v : {log.trace[i].a, log.trace[i].b}) {
      if (v >= 1 && v < size) values[n++] = v;
    }
  }
  if (n == 0) return;
  std::sort(values, values + n);
  n = static_cast<size_t>(std::unique(values, values + n) - values);
  // One layout for the whole entry (a format writes all its lengths the same way): the one
  // with the most matches, a match of a wider field counting for more, since it is less
  // likely to happen by chance. Ties go to the wider, then to big-endian (network order).
  static constexpr Layout kLayouts[] = {{4, true}, {4, false}, {2, true}, {2, false}, {1, false}};
  uint32_t offsets[LengthFields::kMax];
  size_t best_score = 0;
  for (const Layout& layout : kLayouts) {
    size_t count = Matches(entry, size, layout, values, n, offsets, LengthFields::kMax);
    if (count * layout.width <= best_score) continue;
    best_score = count * layout.width;
    out->count = static_cast<uint32_t>(count);
    for (size_t i = 0; i < count; i++) {
      uint64_t v = LoadField(entry + offsets[i], layout.width, layout.big_endian);
      out->fields[i] = LengthFields::Field{offsets[i],
                                           static_cast<uint32_t>(v),
                                           static_cast<uint8_t>(layout.width),
                                           static_cast<uint8_t>(layout.big_endian),
                                           {0, 0}};
    }
  }
}

}  // namespace pollen::engine
