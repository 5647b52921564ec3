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

// Strategy 4's judge, made from the input that strategies 1-3 left: its candidates are then
// judged by the oracle it returns instead of by `oracle`. A new corpus entry uses it to keep
// every feature of the shrunk input, not only its new ones, while bytes turn printable: bytes
// that matter to nothing are made plain, those that matter to an old feature stay (a binary
// format's payload, flattened to a few letters, leaves its mutants little to work from).
using PrintableJudge = std::function<MinimizeOracle(const std::vector<uint8_t>& shrunk)>;

// Shrinks `input`, which is assumed interesting, with these strategies in order (Go's
// internal/fuzz minimizeBytes; docs engine-techniques.md §3.3):
//  1. cut the tail by chunks of size/2, size/4, ..., 1 bytes, each repeated while it works;
//  2. remove single bytes, left to right;
//  3. remove ranges [i, i+len), for len = size/2, size/4, ..., 2 (largest first), at every i;
//  4. replace each byte that is not printable ASCII (0x20..0x7e, \t, \n, \r) with the first
//     of "012789ABCXYZabcxyz !\"#$%&'()*+,." the oracle accepts (the one printable_judge
//     makes, when it is not empty).
// Candidates are never empty. Calls the oracle at most max_attempts times and never twice
// in a row with the same candidate. Returns the last candidate the oracle accepted, or the
// input itself when none was. When attempts_made is not null, stores the number of calls.
std::vector<uint8_t> MinimizeBytes(std::vector<uint8_t> input, const MinimizeOracle& oracle,
                                   uint64_t max_attempts, uint64_t* attempts_made,
                                   const PrintableJudge& printable_judge = {});

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_MINIMIZER_H_
