// Input minimization: Go's minimizeBytes strategies under an attempt budget.
//
// Used to shrink a crashing input (oracle: "still crashes the same way") or a new corpus
// entry (oracle: "still has the new features") before it is stored. The oracle runs the
// target, so it is the whole cost: the minimizer bounds its calls and never repeats the
// candidate it has just tried.
#ifndef POLLEN_ENGINE_MINIMIZER_H_
#define POLLEN_ENGINE_MINIMIZER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace pollen::engine {

// Returns true when the candidate data[0, size) is still interesting. The pointer is valid
// only during the call.
using MinimizeOracle = std::function<bool(const uint8_t* data, size_t size)>;

// Shrinks `input`, which is assumed interesting, with these strategies in order (Go's
// internal/fuzz minimizeBytes; docs engine-techniques.md §3.3):
//  1. cut the tail by chunks of size/2, size/4, ..., 1 bytes, each repeated while it works;
//  2. remove single bytes, left to right;
//  3. remove ranges [i, i+len), for len = size/2, size/4, ..., 2 (largest first), at every i;
//  4. replace each byte that is not printable ASCII (0x20..0x7e, \t, \n, \r) with the first
//     of "012789ABCXYZabcxyz !\"#$%&'()*+,." the oracle accepts.
// Candidates are never empty. Calls the oracle at most max_attempts times and never twice
// in a row with the same candidate. Returns the last candidate the oracle accepted, or the
// input itself when none was. When attempts_made is not null, stores the number of calls.
std::vector<uint8_t> MinimizeBytes(std::vector<uint8_t> input, const MinimizeOracle& oracle,
                                   uint64_t max_attempts, uint64_t* attempts_made);

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_MINIMIZER_H_
