// The hashes of a node's own corpus entries, announced to its campaign one digest page at a
// time (docs/cluster.md, "Recovery of what was dropped"): pages of at most `page_size`
// hashes in ascending order, each starting after the last hash of the previous one and
// wrapping to the smallest after the largest. Every hash is announced once per cycle, and a
// page costs the same however large the corpus grows. Not thread-safe.
#ifndef POLLEN_NODE_DIGEST_CYCLE_H_
#define POLLEN_NODE_DIGEST_CYCLE_H_

#include <cstddef>
#include <optional>
#include <set>

#include "broker/client/cluster_message.h"

namespace pollen::node {

class DigestCycle {
 public:
  // Precondition: page_size > 0 (and at most the receivers' MessageLimits::max_hashes).
  explicit DigestCycle(size_t page_size);

  // Adds a hash; adding one already there does nothing.
  void Add(const base::Digest& hash);
  size_t size() const { return hashes_.size(); }

  // The next page: corpus_size is size(), first_index the position of its first hash in
  // the ascending order. A page never wraps within itself, so the last page of a cycle may
  // be short. Empty (no hashes) when the set is.
  broker::CorpusDigest NextPage();

 private:
  size_t page_size_;
  std::set<base::Digest> hashes_;
  std::optional<base::Digest> last_;  // the last hash of the previous page
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_DIGEST_CYCLE_H_
