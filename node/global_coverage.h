// The coordinator's global coverage map, in a memfd that every worker maps read-only.
//
// Byte i has bit b set once some corpus entry reached bucket b of counter i. Workers read
// it to decide, after each execution, whether to report; only the coordinator writes it,
// and only for inputs it has accepted into the corpus.
#ifndef POLLEN_NODE_GLOBAL_COVERAGE_H_
#define POLLEN_NODE_GLOBAL_COVERAGE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "base/status.h"
#include "engine/coverage.h"

namespace pollen::node {

class GlobalCoverage {
 public:
  // Capacity in counters. The memfd is sparse: pages cost memory only once written.
  static constexpr uint64_t kDefaultCapacity = uint64_t{1} << 26;

  static Result<std::unique_ptr<GlobalCoverage>> Create(uint64_t capacity = kDefaultCapacity);
  ~GlobalCoverage();

  int fd() const { return fd_; }
  uint64_t capacity() const { return capacity_; }

  // Fixes the number of counters (from the first worker's hello). Until then the map is
  // empty: nothing is new and nothing can be added.
  void SetNumCounters(uint64_t n);
  uint64_t num_counters() const { return num_counters_; }

  // Features not in the map yet.
  std::vector<uint32_t> NewFeatures(const uint32_t* features, size_t n) const;
  size_t CountNew(const uint32_t* features, size_t n) const;
  // Adds features; returns how many were new.
  size_t Add(const uint32_t* features, size_t n);
  // The value profile's ladders (engine::CoverageMap::SetLadders); after SetNumCounters.
  void SetLadders(uint32_t first, uint32_t sites, uint32_t levels) {
    if (map_) map_->SetLadders(first, sites, levels);
  }
  // How many of the features are the program's, not the value profile's.
  size_t CountProgramFeatures(const uint32_t* features, size_t n) const {
    return map_ ? map_->CountProgramFeatures(features, n) : n;
  }

  size_t edges() const { return map_ ? map_->edges() : 0; }
  size_t features() const { return map_ ? map_->features() : 0; }

 private:
  GlobalCoverage() = default;
  int fd_ = -1;
  void* base_ = nullptr;
  size_t size_ = 0;
  uint64_t capacity_ = 0;
  uint64_t num_counters_ = 0;
  std::unique_ptr<engine::CoverageMap> map_;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_GLOBAL_COVERAGE_H_
