#include "engine/value_profile.h"

namespace pollen::engine {

void ValueProfile::Collect(uint32_t base, const uint8_t* seen, Feature* out, size_t capacity,
                           size_t* written, bool* any_new) {
  for (size_t w = 0; w < kSites / 64; w++) {
    uint64_t bits = touched_[w];
    touched_[w] = 0;
    while (bits != 0) {
      size_t site = w * 64 + static_cast<size_t>(std::countr_zero(bits));
      bits &= bits - 1;
      size_t level = best_[site] - 1u;
      best_[site] = 0;
      uint32_t first = base + static_cast<uint32_t>(site * kLevels);
      bool higher_seen = false;
      for (size_t l = level; l < kLevels && !higher_seen; l++)
        higher_seen = (seen[first + l] & 1) != 0;
      if (!higher_seen) *any_new = true;
      if (*written < capacity)
        out[(*written)++] = MakeFeature(first + static_cast<uint32_t>(level), 0);
    }
  }
}

void ValueProfile::Reset() {
  for (size_t w = 0; w < kSites / 64; w++) {
    uint64_t bits = touched_[w];
    touched_[w] = 0;
    for (; bits != 0; bits &= bits - 1)
      best_[w * 64 + static_cast<size_t>(std::countr_zero(bits))] = 0;
  }
}

}  // namespace pollen::engine
