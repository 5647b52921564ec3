// New inputs as they were found, before minimization cut them down: material for crossover.
//
// Minimizing a find keeps only the bytes its new features need. What it drops may be what a
// later input needs where no edge shows it: puzzle_pattern's bug wants a counted repetition
// `{n,m}` with n < m behind a back-reference, and `{8,9}` covers no more than `{0,0}`, so
// minimized corpora held only the latter (docs/benchmarks.md, "Minimized corpora lose what
// coverage does not see"). The coordinator keeps the latest finds as found here, bounded in
// bytes, and offers one as a fuzz request's crossover partner half the time; they are never
// fuzzed, stored or sent to peers.
#ifndef POLLEN_NODE_FOUND_INPUTS_H_
#define POLLEN_NODE_FOUND_INPUTS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "engine/rng.h"

namespace pollen::node {

class FoundInputs {
 public:
  // Keeps at most `max_inputs` inputs of at most `max_bytes` bytes in all.
  FoundInputs(size_t max_inputs, size_t max_bytes);

  // Adds an input, dropping the oldest ones until both bounds hold; an input larger than
  // max_bytes on its own, or an empty one, is not kept.
  void Add(std::vector<uint8_t> input);

  bool empty() const { return inputs_.empty(); }
  size_t size() const { return inputs_.size(); }
  size_t bytes() const { return bytes_; }

  // A uniformly chosen input. Requires !empty().
  const std::vector<uint8_t>& Pick(engine::Rng& rng) const;

 private:
  size_t max_inputs_;
  size_t max_bytes_;
  size_t bytes_ = 0;
  std::deque<std::vector<uint8_t>> inputs_;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_FOUND_INPUTS_H_
