// Colorization (REDQUEEN, AFL++'s CmpLog): which bytes of an input reach which comparison.
//
// Colorize replaces as many bytes of the input as it can by random ones without changing
// the execution's path (the caller's `same_path` test: the same features): ranges are tried
// whole, and a range that changes the path is split in two, AFL++'s way, within a budget of
// runs. The colorized input then runs with a comparison sequence (engine/cmp_sequence.h)
// beside the original's: where the two differ in an operand, that operand was read from
// bytes that changed, and the places that hold its original value in the input and its
// colorized value in the colorized input are where it came from. ColorCandidates lists, for
// each such place, the other operand written there: an input-to-state candidate aimed at
// one place, where value search alone (engine/i2s_stage.h) tries every place that holds the
// value, and cannot try one-byte values at all.
#ifndef POLLEN_ENGINE_COLORIZE_H_
#define POLLEN_ENGINE_COLORIZE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/cmp_sequence.h"
#include "engine/rng.h"

namespace pollen::engine {

// Returns a copy of input[0, size) with random bytes wherever `same_path` held for them;
// `same_path` is called at most max_runs times, *runs says how often.
std::vector<uint8_t> Colorize(const uint8_t* input, size_t size, Rng& rng, size_t max_runs,
                              const std::function<bool(const uint8_t*, size_t)>& same_path,
                              size_t* runs);

struct ColorCandidate {
  uint32_t pos;
  uint8_t width;
  uint8_t bytes[8];  // the other operand, in the order the field is stored
};

// The candidates from the comparisons of `original` (input[0, size)) and `colored`
// (colorized[0, size)): for each aligned comparison (same site and width) whose operand
// differs, every place p where input holds the original operand and colorized the colorized
// one, at the compared width or at one byte for values below 256, in either byte order,
// gets the other operand written at p. At most max_candidates, each (place, bytes) once.
std::vector<ColorCandidate> ColorCandidates(const CmpSequence& original, const CmpSequence& colored,
                                            const uint8_t* input, const uint8_t* colorized,
                                            size_t size, size_t max_candidates);

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_COLORIZE_H_
