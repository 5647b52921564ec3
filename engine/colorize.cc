#include "engine/colorize.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>
#include <utility>

#include "engine/int_field.h"

namespace pollen::engine {

std::vector<uint8_t> Colorize(const uint8_t* input, size_t size, Rng& rng, size_t max_runs,
                              const std::function<bool(const uint8_t*, size_t)>& same_path,
                              size_t* runs) {
  std::vector<uint8_t> colored(input, input + size);
  std::vector<uint8_t> trial(colored);
  std::vector<std::pair<size_t, size_t>> ranges;  // [begin, end): the largest is tried first
  if (size > 0) ranges.emplace_back(0, size);
  *runs = 0;
  while (!ranges.empty() && *runs < max_runs) {
    auto largest = std::max_element(ranges.begin(), ranges.end(), [](const auto& x, const auto& y) {
      return x.second - x.first < y.second - y.first;
    });
    auto [begin, end] = *largest;
    ranges.erase(largest);
    trial = colored;
    for (size_t i = begin; i < end; i++) {
      // A byte that differs from the original: the change must be visible.
      uint8_t v = static_cast<uint8_t>(rng.Next());
      trial[i] = v == input[i] ? static_cast<uint8_t>(v + 1) : v;
    }
    ++*runs;
    if (same_path(trial.data(), trial.size())) {
      colored.swap(trial);
    } else if (end - begin > 1) {
      size_t mid = begin + (end - begin) / 2;
      ranges.emplace_back(begin, mid);
      ranges.emplace_back(mid, end);
    }
  }
  return colored;
}

namespace {

// Calls fn for every place p where input holds `original` and colorized holds `colored`,
// as fields of `width` bytes, in either byte order (one order for one byte).
void ForEachPlace(const uint8_t* input, const uint8_t* colorized, size_t size, size_t width,
                  uint64_t original, uint64_t colored,
                  const std::function<void(size_t pos, size_t width, bool big)>& fn) {
  if (width > size) return;
  uint8_t want[8], got[8];
  for (int big = 0; big < (width > 1 ? 2 : 1); big++) {
    StoreField(want, width, big != 0, original);
    StoreField(got, width, big != 0, colored);
    for (size_t p = 0; p + width <= size; p++) {
      if (colorized[p] != got[0] || input[p] != want[0]) continue;
      if (std::memcmp(colorized + p, got, width) != 0 || std::memcmp(input + p, want, width) != 0) {
        continue;
      }
      fn(p, width, big != 0);
    }
  }
}

}  // namespace

std::vector<ColorCandidate> ColorCandidates(const CmpSequence& original, const CmpSequence& colored,
                                            const uint8_t* input, const uint8_t* colorized,
                                            size_t size, size_t max_candidates) {
  std::vector<ColorCandidate> out;
  std::unordered_set<uint64_t> seen;
  size_t n = std::min(original.count, colored.count);
  for (size_t i = 0; i < n && out.size() < max_candidates; i++) {
    const CmpSequence::Cmp& o = original.cmps[i];
    const CmpSequence::Cmp& c = colored.cmps[i];
    if (o.site != c.site || o.size != c.size) break;  // the paths parted: nothing lines up
    size_t width = FieldWidth(o.size);
    uint64_t mask = WidthMask(width);
    for (int side = 0; side < 2; side++) {
      uint64_t from = (side == 0 ? o.a : o.b) & mask;
      uint64_t moved = (side == 0 ? c.a : c.b) & mask;
      uint64_t to = (side == 0 ? o.b : o.a) & mask;
      if (from == moved || from == to) continue;  // not from the input, or already equal
      auto add = [&](size_t pos, size_t w, bool big) {
        if (out.size() >= max_candidates) return;
        if (w < 8 && (to >> (8 * w)) != 0) return;  // the value does not fit the field
        ColorCandidate cand{static_cast<uint32_t>(pos), static_cast<uint8_t>(w), {}};
        StoreField(cand.bytes, w, big, to);
        uint64_t h = pos * 0x9E3779B97F4A7C15ULL ^ (w << 1) ^ (to * 0xBF58476D1CE4E5B9ULL) ^ big;
        if (seen.insert(h).second) out.push_back(cand);
      };
      ForEachPlace(input, colorized, size, width, from, moved, add);
      if (width > 1 && from < 256 && moved < 256) {
        ForEachPlace(input, colorized, size, 1, from, moved, add);
      }
    }
  }
  return out;
}

}  // namespace pollen::engine
