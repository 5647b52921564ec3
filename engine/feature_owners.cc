#include "engine/feature_owners.h"

#include <algorithm>

namespace pollen::engine {

void FeatureOwners::Add(uint32_t entry, uint32_t size, std::span<const Feature> features) {
  for (Feature f : features) {
    auto [it, inserted] = owners_.try_emplace(f, Owner{entry, size});
    if (!inserted && it->second.size > size) it->second = Owner{entry, size};
  }
}

bool FeatureOwners::Replace(uint32_t entry, uint32_t size, std::span<const Feature> features,
                            std::span<const Feature> old_features) {
  for (Feature f : Owned(entry, old_features)) {
    if (!std::binary_search(features.begin(), features.end(), f)) return false;
  }
  for (Feature f : features) {
    auto [it, inserted] = owners_.try_emplace(f, Owner{entry, size});
    if (!inserted && (it->second.entry == entry || it->second.size > size))
      it->second = Owner{entry, size};
  }
  return true;
}

std::vector<Feature> FeatureOwners::Owned(uint32_t entry, std::span<const Feature> features) const {
  std::vector<Feature> owned;
  for (Feature f : features) {
    auto it = owners_.find(f);
    if (it != owners_.end() && it->second.entry == entry) owned.push_back(f);
  }
  return owned;
}

bool FeatureOwners::OwnerOf(Feature f, uint32_t* entry) const {
  auto it = owners_.find(f);
  if (it == owners_.end()) return false;
  *entry = it->second.entry;
  return true;
}

}  // namespace pollen::engine
