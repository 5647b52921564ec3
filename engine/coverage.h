// Coverage features: from the target's 8-bit edge counters to the features the corpus keeps.
//
// A counter that was hit c > 0 times in one execution becomes one feature, counter*8 +
// bucket(c), with libFuzzer's and AFL's buckets (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+).
// The coordinator keeps one "seen" byte per counter: bit b is set once any input reached
// bucket b on that counter (CoverageMap).
//
// ScanAndClearCounters is the per-execution hot path, run after every execution: one pass
// over the counters that emits features, tests novelty against the seen map and clears the
// counters for the next run, touching only the 8-byte words that are non-zero (Centipede's
// ForEachNonZeroByte; see docs engine-techniques.md §4, §5). It allocates nothing.
#ifndef POLLEN_ENGINE_COVERAGE_H_
#define POLLEN_ENGINE_COVERAGE_H_

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace pollen::engine {

// A feature: counter_index * 8 + bucket. 32 bits hold 2^29 counters, far beyond any target.
using Feature = uint32_t;

inline constexpr uint32_t kBucketsPerCounter = 8;

// The feature for `bucket` (0..7) of counter `counter_index` (< 2^29).
inline constexpr Feature MakeFeature(uint32_t counter_index, uint32_t bucket) {
  return counter_index * kBucketsPerCounter + bucket;
}

// The counter index of a feature made by MakeFeature.
inline constexpr uint32_t FeatureCounter(Feature f) { return f / kBucketsPerCounter; }

// The bucket (0..7) of a feature made by MakeFeature.
inline constexpr uint32_t FeatureBucket(Feature f) { return f % kBucketsPerCounter; }

namespace internal {
constexpr std::array<uint8_t, 256> MakeBucketBitTable() {
  std::array<uint8_t, 256> t{};
  for (int c = 1; c < 256; c++) {
    int b = c == 1    ? 0
            : c == 2  ? 1
            : c == 3  ? 2
            : c < 8   ? 3
            : c < 16  ? 4
            : c < 32  ? 5
            : c < 128 ? 6
                      : 7;
    t[c] = static_cast<uint8_t>(1u << b);
  }
  return t;
}
}  // namespace internal

// kCounterBucketBit[c] is 1 << bucket(c) for c > 0, and 0 for c == 0 (no feature).
inline constexpr std::array<uint8_t, 256> kCounterBucketBit = internal::MakeBucketBitTable();

// The bucket (0..7) of a non-zero counter value. Precondition: c > 0.
inline constexpr uint8_t CounterBucket(uint8_t c) {
  return static_cast<uint8_t>(std::countr_zero(kCounterBucketBit[c]));
}

// Scans counters[0, n), clears them, and reports their features in ascending counter order.
//
// For every non-zero counters[i]:
//  - the feature MakeFeature(base_index + i, bucket) is stored at
//    features_out[*features_written] and *features_written is incremented, while
//    *features_written < features_capacity; features beyond capacity are dropped (but still
//    counted in the return value and still tested for novelty);
//  - *any_new is set to true when the bucket's bit is not set in seen[base_index + i].
//    *any_new is never reset to false, so several counter regions (one per module, each
//    with its own base_index) can be scanned into the same outputs.
// Afterwards counters[0, n) are all zero; only 8-byte words that held a non-zero byte are
// written. `counters` needs no alignment and n needs not be a multiple of 8.
// Returns the number of non-zero counters found (features produced, stored or not).
// Preconditions: seen covers [base_index, base_index + n); features_out has
// features_capacity slots; *features_written <= features_capacity. Not thread-safe for the
// same counters; seen is only read.
inline size_t ScanAndClearCounters(uint8_t* counters, size_t n, uint32_t base_index,
                                   const uint8_t* seen, uint32_t* features_out,
                                   size_t features_capacity, size_t* features_written,
                                   bool* any_new) {
  size_t found = 0;
  size_t written = *features_written;
  uint8_t new_bits = 0;  // OR of unseen bits: one branch-free update per non-zero counter
  auto emit = [&](size_t i, uint8_t c) {
    uint32_t idx = base_index + static_cast<uint32_t>(i);
    uint8_t bit = kCounterBucketBit[c];
    new_bits |= static_cast<uint8_t>(bit & ~seen[idx]);
    if (written < features_capacity) {
      features_out[written++] = MakeFeature(idx, static_cast<uint32_t>(std::countr_zero(bit)));
    }
    found++;
  };
  auto scan_word = [&](size_t at) {
    uint64_t w;
    std::memcpy(&w, counters + at, 8);
    if (w == 0) return;
    const uint64_t zero = 0;
    std::memcpy(counters + at, &zero, 8);
    if constexpr (std::endian::native == std::endian::little) {
      while (w != 0) {
        unsigned shift = static_cast<unsigned>(std::countr_zero(w)) & ~7u;
        emit(at + shift / 8, static_cast<uint8_t>(w >> shift));
        w &= ~(uint64_t{0xff} << shift);
      }
    } else {
      for (unsigned j = 0; j < 8; j++) {
        uint8_t c = static_cast<uint8_t>(w >> (56 - 8 * j));
        if (c != 0) emit(at + j, c);
      }
    }
  };
  size_t i = 0;
  // Most of a large target's counters are zero after any one run (sqlite3: 118,000 counters,
  // a few thousand touched), so 64 bytes are tested at once, with one branch, and only a
  // block with something in it is walked word by word.
  constexpr size_t kBlock = 64;
  for (; i + kBlock <= n; i += kBlock) {
    uint64_t words[kBlock / 8];
    std::memcpy(words, counters + i, kBlock);
    uint64_t any = 0;
    for (uint64_t w : words) any |= w;
    if (any == 0) continue;
    for (size_t j = 0; j < kBlock; j += 8) scan_word(i + j);
  }
  for (; i + 8 <= n; i += 8) scan_word(i);
  for (; i < n; i++) {
    uint8_t c = counters[i];
    if (c == 0) continue;
    counters[i] = 0;
    emit(i, c);
  }
  *features_written = written;
  if (new_bits != 0) *any_new = true;
  return found;
}

// The set of features seen so far: one byte per counter, bit b set when bucket b was seen.
//
// Either owns its bytes, or views bytes owned elsewhere (e.g. a shared-memory region that
// workers read with ScanAndClearCounters). The edges()/features() counts are kept up to
// date by Add; when a view's bytes change behind its back, call Recount(). Not thread-safe.
class CoverageMap {
 public:
  // An owning, empty map of num_counters counters.
  explicit CoverageMap(size_t num_counters);

  // A view of seen[0, num_counters), which must outlive the map. Counts what is set.
  CoverageMap(uint8_t* seen, size_t num_counters);

  CoverageMap(const CoverageMap&) = delete;
  CoverageMap& operator=(const CoverageMap&) = delete;
  CoverageMap(CoverageMap&&) = default;
  CoverageMap& operator=(CoverageMap&&) = default;

  // Number of counters covered; features of counters >= size() are never contained.
  size_t size() const { return size_; }

  // The seen bytes (the layout ScanAndClearCounters reads).
  const uint8_t* data() const { return seen_; }

  // Whether f is in the map (false when its counter is out of range).
  bool Contains(Feature f) const {
    uint32_t c = FeatureCounter(f);
    return c < size_ && (seen_[c] >> FeatureBucket(f) & 1) != 0;
  }

  // Number of f[0, n) not in the map, ignoring out-of-range ones. A feature repeated in f
  // counts each time (ScanAndClearCounters never repeats one).
  size_t CountNew(const Feature* f, size_t n) const;

  // The features of f[0, n) not in the map, in their order (same rules as CountNew).
  std::vector<Feature> NewFeatures(const Feature* f, size_t n) const;

  // Adds f[0, n); ignores features whose counter >= size(). Returns how many were new.
  size_t Add(const Feature* f, size_t n);

  // Number of counters with at least one bucket seen, ladders (SetLadders) left out: the
  // program's edges.
  size_t edges() const { return edges_; }

  // Number of features (bits) in the map.
  size_t features() const { return features_; }

  // Recomputes edges() and features() from the bytes: O(size()).
  void Recount();

  // Counters [first, first + sites * levels) are value-profile ladders (value_profile.h),
  // `levels` counters per site: from now on, adding a site's level l also marks the levels
  // below it (bucket 0), so a level is in the map once it or a higher one was reached, and
  // only a closer input's level is new. The implied levels count in features(), not in Add's
  // return value; no ladder counts in edges().
  void SetLadders(uint32_t first, uint32_t sites, uint32_t levels);

  // Whether counter c is a value-profile ladder's level, not the program's.
  bool IsLadder(uint32_t c) const { return c >= ladder_first_ && c < ladder_end_; }

  // Number of f[0, n) whose counter is the program's (not IsLadder): what an input covers
  // whether or not the value profile was on when it ran.
  size_t CountProgramFeatures(const Feature* f, size_t n) const;

 private:
  void MarkLevelsBelow(uint32_t counter);

  std::vector<uint8_t> storage_;  // empty for a view
  uint8_t* seen_;
  size_t size_;
  size_t edges_ = 0;
  size_t features_ = 0;
  uint32_t ladder_first_ = 0;
  uint32_t ladder_end_ = 0;  // == ladder_first_: no ladders
  uint32_t ladder_levels_ = 1;
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_COVERAGE_H_
