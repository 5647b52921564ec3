#include "engine/der_lengths.h"

namespace pollen::engine {
namespace {

constexpr uint8_t kConstructed = 0x20;
constexpr uint8_t kBitString = 0x03;
constexpr uint8_t kOctetString = 0x04;

}  // namespace

void DerElements::Parse(const uint8_t* data, size_t size) {
  count_ = 0;
  ParseRange(data, 0, size, 0);
}

bool DerElements::ParseRange(const uint8_t* data, size_t begin, size_t end, int depth) {
  size_t pos = begin;
  while (pos < end) {
    if (count_ == kMax) return false;
    uint8_t tag = data[pos];
    size_t p = pos + 1;
    if ((tag & 0x1f) == 0x1f) {  // tag number in the following bytes, 7 bits each
      while (p < end && (data[p] & 0x80) != 0) p++;
      p++;
    }
    if (p >= end) return false;
    size_t length_at = p;
    size_t length = data[p++];
    if (length >= 0x80) {
      size_t k = length & 0x7f;
      if (k == 0 || k > 4 || p + k > end) return false;  // indefinite or too long
      length = 0;
      for (size_t i = 0; i < k; i++) length = (length << 8) | data[p++];
    }
    if (length > end - p) return false;
    size_t value = p;
    size_t value_end = p + length;
    elements_[count_++] = Element{static_cast<uint32_t>(pos), static_cast<uint32_t>(length_at),
                                  static_cast<uint32_t>(value), static_cast<uint32_t>(value_end)};
    if (depth < kMaxDepth && length >= 2) {
      size_t inner = value;
      bool walk = (tag & kConstructed) != 0;
      if (tag == kOctetString) walk = true;
      if (tag == kBitString) {  // its first byte counts the unused bits
        walk = true;
        inner++;
      }
      size_t before = count_;
      if (walk && !ParseRange(data, inner, value_end, depth + 1) && (tag & kConstructed) == 0) {
        count_ = before;  // a string whose content is not DER: keep none of it
      }
    }
    pos = value_end;
  }
  return true;
}

size_t DerElements::Fix(uint8_t* data, size_t at, int64_t delta, bool at_end_too) const {
  if (delta == 0) return 0;
  size_t fixed = 0;
  for (size_t i = 0; i < count_; i++) {
    const Element& e = elements_[i];
    // Grown: bytes inserted at `at`, inside the value or at its end. Shrunk: bytes
    // [at, at - delta) removed, all inside the value.
    bool encloses = delta > 0 ? e.value <= at && (at < e.end || (at_end_too && at == e.end))
                              : e.value <= at && at + static_cast<size_t>(-delta) <= e.end;
    if (!encloses) continue;
    int64_t length = static_cast<int64_t>(e.end - e.value) + delta;
    if (length < 0) continue;
    uint8_t first = data[e.length_at];
    if (first < 0x80) {
      if (length >= 0x80) continue;
      data[e.length_at] = static_cast<uint8_t>(length);
    } else {
      size_t k = first & 0x7f;
      if (k < 4 && length >= (int64_t{1} << (8 * k))) continue;
      for (size_t j = 0; j < k; j++) {
        data[e.length_at + k - j] = static_cast<uint8_t>(length >> (8 * j));
      }
    }
    fixed++;
  }
  return fixed;
}

}  // namespace pollen::engine
