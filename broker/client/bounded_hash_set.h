// A set of content hashes with a fixed capacity: the least recently used hash leaves when a
// new one arrives at capacity. Dedup at the broker and at each node: memory stays bounded
// however long a campaign runs, and a hash that is seen again is refreshed, so what keeps
// coming back stays in the set.
//
// Memory: about 100 bytes per hash (the hash, a list node and a hash-table node).
// Not thread-safe.
#ifndef POLLEN_BROKER_CLIENT_BOUNDED_HASH_SET_H_
#define POLLEN_BROKER_CLIENT_BOUNDED_HASH_SET_H_

#include <cstddef>
#include <cstring>
#include <list>
#include <unordered_map>

#include "base/digest.h"
#include "broker/client/cluster_message.h"

namespace pollen::broker {

class BoundedHashSet {
 public:
  // Precondition: capacity > 0.
  explicit BoundedHashSet(size_t capacity);

  // Adds `hash` and returns true if it was absent; returns false and marks it most recently
  // used if it was present. Evicts the least recently used hash when full.
  bool Insert(const base::Digest& hash);

  // Removes `hash` if present.
  void Erase(const base::Digest& hash);

  bool Contains(const base::Digest& hash) const { return index_.count(hash) != 0; }
  size_t size() const { return index_.size(); }
  size_t capacity() const { return capacity_; }

 private:
  size_t capacity_;
  std::list<base::Digest> order_;  // most recently used first
  std::unordered_map<base::Digest, std::list<base::Digest>::iterator, base::DigestHasher> index_;
};

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_CLIENT_BOUNDED_HASH_SET_H_
