// Greedy weighted-free set cover for corpus merges (libFuzzer's -set_cover_merge, afl-cmin).
//
// Given candidates that each cover a set of features, choose few candidates that together
// cover every feature any candidate covers. Exact minimum set cover is NP-hard; the greedy
// rule (repeatedly take the candidate covering the most still-uncovered features) is within
// a factor ln(max features per candidate) + 1 of the optimum and is what libFuzzer does.
//
// Cost: O(total features) to remap the sparse uint32 features onto dense ids, then a lazy
// greedy (CELF): a max-heap of candidates keyed by an upper bound of their gain. Gains only
// decrease as features get covered, so a popped candidate whose re-evaluated gain equals its
// key is the true best. In practice each candidate is re-evaluated a few times: about a
// second for 1,000,000 candidates of ~25 features.
//
// Thread safety: a pure function; call it concurrently freely.
#ifndef POLLEN_STORAGE_SET_COVER_H_
#define POLLEN_STORAGE_SET_COVER_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace pollen::storage {

struct CoverCandidate {
  uint64_t size = 0;                                // bytes of the input (smaller is better)
  const std::vector<uint32_t>* features = nullptr;  // sorted ascending; never null.
                                                    // Duplicates are tolerated (ignored).
  std::string_view hash;                            // the final tie-breaker (smaller first)
};

// Returns the indices of the chosen candidates, in the order the greedy took them.
// Each step takes the candidate with the most uncovered features; ties go to the smaller
// size, then the smaller hash, then the smaller index: the result is deterministic and does
// not depend on the order of the candidates (unless two share size and hash). A candidate
// that adds no uncovered feature is never taken, so candidates without features never are.
// Postcondition: the union of the chosen candidates' features is the union of all.
// The pointed-to feature vectors and hashes must outlive the call.
std::vector<size_t> GreedySetCover(const std::vector<CoverCandidate>& candidates);

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_SET_COVER_H_
