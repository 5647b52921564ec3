// For every feature of a corpus, the smallest entry that has it: its "owner" (libFuzzer's
// smallest element per feature, the basis of its -reduce_inputs).
//
// An entry owns the features it was the first, or the smallest, to reach; on a tie in size
// the earlier holder keeps the feature. The features an entry owns are what it must keep
// when a smaller input replaces it (Replace): every feature of the corpus then still has a
// holder, and no holder grows.
//
// Entries are dense indices chosen by the caller (LiveCorpus's positions). Not thread-safe.
#ifndef POLLEN_ENGINE_FEATURE_OWNERS_H_
#define POLLEN_ENGINE_FEATURE_OWNERS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/coverage.h"

namespace pollen::engine {

class FeatureOwners {
 public:
  // Records that `entry`, of `size` bytes, has `features`: it takes every feature that had
  // no owner, or whose owner is larger.
  void Add(uint32_t entry, uint32_t size, std::span<const Feature> features);

  // Records that `entry`, which had `old_features`, now has `size` bytes and `features`
  // (both sorted). `features` must include every feature the entry owns (Owned): it keeps
  // those and takes the others as Add does. Returns false, changing nothing, when an owned
  // feature is missing.
  bool Replace(uint32_t entry, uint32_t size, std::span<const Feature> features,
               std::span<const Feature> old_features);

  // The features of `features` (the entry's own, sorted) that `entry` owns, in order.
  std::vector<Feature> Owned(uint32_t entry, std::span<const Feature> features) const;

  // The owner of f; false when no entry has f.
  bool OwnerOf(Feature f, uint32_t* entry) const;

  size_t size() const { return owners_.size(); }  // features with an owner

 private:
  struct Owner {
    uint32_t entry;
    uint32_t size;
  };
  std::unordered_map<Feature, Owner> owners_;
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_FEATURE_OWNERS_H_
