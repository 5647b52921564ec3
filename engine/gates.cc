#include "engine/gates.h"

#include <string.h>  // memmem (glibc)

namespace pollen::engine {
namespace {

// A site run this often is in a loop over records, not a one-off check of a whole part.
constexpr uint32_t kMaxLearnHits = 16;

// The offsets where `v`, written as `width` bytes, occurs in data[0, size) (the first
// Gate::kMaxPlaces); returns how many.
size_t FindPlaces(const uint8_t* data, size_t size, uint64_t v, size_t width, bool big_endian,
                  uint32_t* places) {
  uint8_t needle[8];
  StoreField(needle, width, big_endian, v);
  size_t n = 0;
  for (size_t at = 0; at + width <= size && n < Gate::kMaxPlaces;) {
    const void* hit = memmem(data + at, size - at, needle, width);
    if (hit == nullptr) break;
    size_t pos = static_cast<size_t>(static_cast<const uint8_t*>(hit) - data);
    places[n++] = static_cast<uint32_t>(pos);
    at = pos + 1;
  }
  return n;
}

}  // namespace

size_t GateSet::Learn(CmpSiteLog& log, const uint8_t* entry, size_t size) {
  count_ = 0;
  for (uint32_t slot = 0; slot < CmpSiteLog::kSlots && count_ < kMaxGates; slot++) {
    CmpSite& s = log.slots[slot];
    s.watched = 0;
    if (s.pc == 0 || s.hits == 0 || s.hits > kMaxLearnHits || s.a != s.b || s.a == 0) continue;
    if (s.size < 2) continue;  // one-byte comparisons are characters, not computed fields
    const uint64_t v = s.a;
    // The widest width first: a 4-byte checksum is more telling than its low byte.
    for (size_t width = s.size >= 8 ? 8 : s.size; width >= NarrowestWidth(v); width /= 2) {
      Gate& g = gates_[count_];
      size_t n = 0;
      bool big = false;
      for (int b = 0; b < (width > 1 ? 2 : 1) && n == 0; b++) {
        big = b == 1;
        n = FindPlaces(entry, size, v, width, big, g.places);
      }
      if (n == 0) continue;
      g.pc = s.pc;
      g.slot = slot;
      g.entry_size = static_cast<uint32_t>(size);
      g.place_count = static_cast<uint32_t>(n);
      g.current = 0;
      g.width = static_cast<uint8_t>(width);
      g.big_endian = big;
      g.value = v;
      g.failures = 0;
      g.confirmed = false;
      count_++;
      s.watched = 1;
      break;
    }
  }
  return count_;
}

int GateSet::Fix(const CmpSiteLog& log, uint8_t* data, size_t size) {
  for (size_t i = 0; i < count_; i++) {
    const Gate& g = gates_[i];
    const CmpSite& s = log.slots[g.slot];
    if (s.pc != g.pc || s.hits == 0 || s.a == s.b) continue;
    // The field where it was, or as far from the end as it was (the mutant grew or shrank
    // before it).
    uint32_t offset = g.places[g.current];
    size_t from_end = g.entry_size - offset;
    size_t places[2] = {offset, from_end <= size ? size - from_end : SIZE_MAX};
    for (size_t pos : places) {
      if (pos == SIZE_MAX || pos + g.width > size) continue;
      uint64_t field = LoadField(data + pos, g.width, g.big_endian);
      if (field != g.value) continue;  // the mutation changed the field itself: leave it
      uint64_t expected;
      if (s.a == field) {
        expected = s.b;
      } else if (s.b == field) {
        expected = s.a;
      } else {
        continue;
      }
      if (!FitsIn(expected, g.width)) continue;
      StoreField(data + pos, g.width, g.big_endian, expected);
      return static_cast<int>(i);
    }
  }
  return -1;
}

void GateSet::ResetHits(CmpSiteLog& log) const {
  for (size_t i = 0; i < count_; i++) log.slots[gates_[i].slot].hits = 0;
}

void GateSet::Settle(int index, CmpSiteLog& log) {
  if (index < 0 || static_cast<size_t>(index) >= count_) return;
  Gate& g = gates_[index];
  const CmpSite& s = log.slots[g.slot];
  if (s.pc == g.pc && s.hits > 0 && s.a == s.b) {
    g.failures = 0;
    g.confirmed = true;
    return;
  }
  // An unconfirmed place gets one try: the next place may be the field. A confirmed one
  // gets several (a fix can fail for other reasons: the mutation broke the field's record).
  if (++g.failures < (g.confirmed ? kMaxFailures : 1)) return;
  g.failures = 0;
  g.confirmed = false;
  if (++g.current < g.place_count) return;
  log.slots[g.slot].watched = 0;
  gates_[index] = gates_[--count_];
}

}  // namespace pollen::engine
