// The input-to-state stage: every operand pair one run of an entry compared (a CmpLog), tried
// at every place of the entry where one of its operands sits, one candidate per run
// (REDQUEEN, AFL++'s CmpLog stage). The random input-to-state mutation (mutator.cc) picks one
// pair of a 96-slot window per mutation; a comparison-heavy parser (re2) compares thousands
// of distinct pairs per input, most of which that window never holds.
//
// Candidates, in this order, each distinct (same place, same bytes) once:
//  - those of colorization, when the caller ran it (engine/colorize.h);
//  - words (memcmp, strcmp and the compiler plugin's routines): a -> b, and b -> a unless b
//    is the program's literal; the needle must be at least 2 bytes;
//  - integers of 2 bytes or more: a -> b and b -> a, at the compared width and at the
//    narrowest width holding both (a 4-byte magic compared as a size_t), little and big
//    endian, and as decimal text (strtol; one digit or more). One-byte comparisons are left
//    to the random mutations: a byte value is found all over an input.
// At most kMaxPerNeedle places per needle, kMaxCandidates in all. Deterministic: the same
// log and input give the same list, so a stage interrupted by a request's limits resumes
// at an index.
#ifndef POLLEN_ENGINE_I2S_STAGE_H_
#define POLLEN_ENGINE_I2S_STAGE_H_

#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "engine/cmp_log.h"
#include "engine/colorize.h"

namespace pollen::engine {

class I2sStage {
 public:
  static constexpr size_t kMaxCandidates = 1024;
  static constexpr size_t kMaxPerNeedle = 4;

  // The candidates for input[0, size) from `log`; none longer than max_size bytes. The
  // colorization's candidates (engine/colorize.h), aimed at one place each, come first.
  I2sStage(const CmpLog& log, const uint8_t* input, size_t size, size_t max_size,
           const std::vector<ColorCandidate>& colored = {});

  size_t size() const { return candidates_.size(); }

  // Writes candidate i (< size()) of `input` (the same bytes the stage was built from) into
  // out, which has room for max_size bytes; returns its size.
  size_t Build(size_t i, const uint8_t* input, size_t size, uint8_t* out) const;

  // The bytes candidate i writes (for the learned dictionary when it finds something).
  const uint8_t* replacement(size_t i) const { return candidates_[i].bytes; }
  size_t replacement_size(size_t i) const { return candidates_[i].rn; }

 private:
  struct Candidate {
    uint32_t pos;
    uint8_t n;   // bytes replaced
    uint8_t rn;  // bytes written
    uint8_t bytes[CmpTable::kMaxWord];
  };
  void AddCandidate(size_t pos, size_t n, const uint8_t* replacement, size_t rn);
  void AddNeedle(const uint8_t* input, size_t size, const uint8_t* needle, size_t n,
                 const uint8_t* replacement, size_t rn);

  size_t max_size_;
  std::vector<Candidate> candidates_;
  std::unordered_set<uint64_t> seen_;  // hashes of the candidates, to skip repeats
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_I2S_STAGE_H_
