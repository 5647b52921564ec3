#include "storage/set_cover.h"

#include <algorithm>
#include <limits>

#include "base/status.h"

namespace pollen::storage {
namespace {

// Maps sparse uint32 features onto dense ids 0, 1, 2... in order of first appearance.
// Open addressing with linear probing; load factor kept at most 1/2.
class DenseIds {
 public:
  DenseIds() { Rehash(1 << 12); }

  uint32_t IdOf(uint32_t feature) {
    size_t slot = Slot(feature);
    while (ids_[slot] != kEmpty) {
      if (keys_[slot] == feature) return ids_[slot];
      slot = (slot + 1) & mask_;
    }
    keys_[slot] = feature;
    ids_[slot] = count_++;
    if (2 * static_cast<size_t>(count_) > keys_.size()) Rehash(2 * keys_.size());
    return count_ - 1;
  }

  uint32_t count() const { return count_; }

 private:
  static constexpr uint32_t kEmpty = std::numeric_limits<uint32_t>::max();

  size_t Slot(uint32_t feature) const {
    return static_cast<size_t>((feature * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
  }

  void Rehash(size_t capacity) {
    std::vector<uint32_t> old_keys = std::move(keys_);
    std::vector<uint32_t> old_ids = std::move(ids_);
    keys_.assign(capacity, 0);
    ids_.assign(capacity, kEmpty);
    mask_ = capacity - 1;
    shift_ = 64 - static_cast<int>(__builtin_ctzll(capacity));
    for (size_t i = 0; i < old_ids.size(); ++i) {
      if (old_ids[i] == kEmpty) continue;
      size_t slot = Slot(old_keys[i]);
      while (ids_[slot] != kEmpty) slot = (slot + 1) & mask_;
      keys_[slot] = old_keys[i];
      ids_[slot] = old_ids[i];
    }
  }

  std::vector<uint32_t> keys_;
  std::vector<uint32_t> ids_;
  size_t mask_ = 0;
  int shift_ = 64;
  uint32_t count_ = 0;
};

// A heap entry: `gain` is an upper bound of the candidate's true gain (exact when pushed).
struct Entry {
  uint32_t gain;
  uint32_t index;
};

}  // namespace

std::vector<size_t> GreedySetCover(const std::vector<CoverCandidate>& candidates) {
  POLLEN_CHECK(candidates.size() < std::numeric_limits<uint32_t>::max());
  const uint32_t n = static_cast<uint32_t>(candidates.size());

  // Flat dense copy of every candidate's (deduplicated) features: one allocation, and the
  // re-evaluations below touch a vector<bool> instead of a hash table.
  size_t total = 0;
  for (const CoverCandidate& c : candidates) {
    POLLEN_CHECK(c.features != nullptr);
    total += c.features->size();
  }
  std::vector<uint32_t> dense;
  dense.reserve(total);
  std::vector<size_t> begin(n + 1, 0);
  DenseIds ids;
  for (uint32_t i = 0; i < n; ++i) {
    const std::vector<uint32_t>& f = *candidates[i].features;
    for (size_t j = 0; j < f.size(); ++j) {
      if (j > 0 && f[j] == f[j - 1]) continue;
      dense.push_back(ids.IdOf(f[j]));
    }
    begin[i + 1] = dense.size();
  }

  // `a` ranks below `b`: fewer gain, then larger size, then larger hash, then larger index.
  auto worse = [&candidates](const Entry& a, const Entry& b) {
    if (a.gain != b.gain) return a.gain < b.gain;
    const CoverCandidate& ca = candidates[a.index];
    const CoverCandidate& cb = candidates[b.index];
    if (ca.size != cb.size) return ca.size > cb.size;
    if (ca.hash != cb.hash) return ca.hash > cb.hash;
    return a.index > b.index;
  };
  std::vector<Entry> heap;
  heap.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (begin[i + 1] > begin[i])
      heap.push_back({static_cast<uint32_t>(begin[i + 1] - begin[i]), i});
  }
  std::make_heap(heap.begin(), heap.end(), worse);

  std::vector<bool> covered(ids.count(), false);
  uint32_t uncovered = ids.count();
  std::vector<size_t> chosen;
  while (!heap.empty() && uncovered > 0) {
    std::pop_heap(heap.begin(), heap.end(), worse);
    Entry top = heap.back();
    heap.pop_back();
    uint32_t gain = 0;
    for (size_t j = begin[top.index]; j < begin[top.index + 1]; ++j) gain += !covered[dense[j]];
    if (gain == 0) continue;  // nothing new left: never taken
    if (gain < top.gain) {    // stale bound: re-queue with the exact gain
      heap.push_back({gain, top.index});
      std::push_heap(heap.begin(), heap.end(), worse);
      continue;
    }
    // Exact gain >= every other candidate's upper bound (same tie-break): the true best.
    chosen.push_back(top.index);
    for (size_t j = begin[top.index]; j < begin[top.index + 1]; ++j) covered[dense[j]] = true;
    uncovered -= gain;
  }
  return chosen;
}

}  // namespace pollen::storage
