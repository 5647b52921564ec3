#include "engine/coverage.h"

#include <bit>

namespace pollen::engine {

CoverageMap::CoverageMap(size_t num_counters)
    : storage_(num_counters, 0), seen_(storage_.data()), size_(num_counters) {}

CoverageMap::CoverageMap(uint8_t* seen, size_t num_counters) : seen_(seen), size_(num_counters) {
  Recount();
}

size_t CoverageMap::CountNew(const Feature* f, size_t n) const {
  size_t count = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = FeatureCounter(f[i]);
    if (c < size_ && (seen_[c] >> FeatureBucket(f[i]) & 1) == 0) count++;
  }
  return count;
}

std::vector<Feature> CoverageMap::NewFeatures(const Feature* f, size_t n) const {
  std::vector<Feature> out;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = FeatureCounter(f[i]);
    if (c < size_ && (seen_[c] >> FeatureBucket(f[i]) & 1) == 0) out.push_back(f[i]);
  }
  return out;
}

size_t CoverageMap::Add(const Feature* f, size_t n) {
  size_t added = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = FeatureCounter(f[i]);
    if (c >= size_) continue;
    uint8_t bit = static_cast<uint8_t>(1u << FeatureBucket(f[i]));
    uint8_t old = seen_[c];
    if ((old & bit) != 0) continue;
    seen_[c] = static_cast<uint8_t>(old | bit);
    added++;
    if (IsLadder(c)) {
      MarkLevelsBelow(c);
    } else if (old == 0) {
      edges_++;
    }
  }
  features_ += added;
  return added;
}

void CoverageMap::SetLadders(uint32_t first, uint32_t sites, uint32_t levels) {
  uint64_t end = uint64_t{first} + uint64_t{sites} * levels;
  if (levels == 0 || end > size_) return;
  ladder_first_ = first;
  ladder_end_ = static_cast<uint32_t>(end);
  ladder_levels_ = levels;
}

size_t CoverageMap::CountProgramFeatures(const Feature* f, size_t n) const {
  size_t count = 0;
  for (size_t i = 0; i < n; i++) count += !IsLadder(FeatureCounter(f[i]));
  return count;
}

void CoverageMap::MarkLevelsBelow(uint32_t counter) {
  uint32_t site_first = counter - (counter - ladder_first_) % ladder_levels_;
  for (uint32_t c = counter; c > site_first;) {
    c--;
    if ((seen_[c] & 1) != 0) break;  // marked before, and so is everything below it
    seen_[c] = static_cast<uint8_t>(seen_[c] | 1);
    features_++;
  }
}

void CoverageMap::Recount() {
  size_t edges = 0;
  size_t features = 0;
  for (size_t i = 0; i < size_; i++) {
    uint8_t b = seen_[i];
    if (i < ladder_first_ || i >= ladder_end_) edges += b != 0;
    features += static_cast<size_t>(std::popcount(b));
  }
  edges_ = edges;
  features_ = features;
}

}  // namespace pollen::engine
