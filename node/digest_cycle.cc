#include "node/digest_cycle.h"

#include <iterator>

#include "base/status.h"

namespace pollen::node {

DigestCycle::DigestCycle(size_t page_size) : page_size_(page_size) { POLLEN_CHECK(page_size > 0); }

void DigestCycle::Add(const base::Digest& hash) { hashes_.insert(hash); }

broker::CorpusDigest DigestCycle::NextPage() {
  broker::CorpusDigest page;
  page.corpus_size = hashes_.size();
  auto it = last_ ? hashes_.upper_bound(*last_) : hashes_.begin();
  if (it == hashes_.end()) it = hashes_.begin();  // the previous page ended the cycle
  // O(size) to count the position; a page goes out every few seconds at most.
  page.first_index = static_cast<uint64_t>(std::distance(hashes_.begin(), it));
  for (; it != hashes_.end() && page.hashes.size() < page_size_; ++it) page.hashes.push_back(*it);
  if (!page.hashes.empty()) last_ = page.hashes.back();
  return page;
}

}  // namespace pollen::node
