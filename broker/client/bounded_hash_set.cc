#include "broker/client/bounded_hash_set.h"

#include <algorithm>

#include "base/status.h"

namespace pollen::broker {

BoundedHashSet::BoundedHashSet(size_t capacity) : capacity_(capacity) {
  POLLEN_CHECK(capacity > 0);
  index_.reserve(std::min<size_t>(capacity, 1 << 16));
}

bool BoundedHashSet::Insert(const base::Digest& hash) {
  auto it = index_.find(hash);
  if (it != index_.end()) {
    order_.splice(order_.begin(), order_, it->second);
    return false;
  }
  if (index_.size() == capacity_) {
    index_.erase(order_.back());
    order_.pop_back();
  }
  order_.push_front(hash);
  index_.emplace(hash, order_.begin());
  return true;
}

void BoundedHashSet::Erase(const base::Digest& hash) {
  auto it = index_.find(hash);
  if (it == index_.end()) return;
  order_.erase(it->second);
  index_.erase(it);
}

}  // namespace pollen::broker
