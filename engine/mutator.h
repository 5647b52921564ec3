// Byte-level mutation of inputs: libFuzzer's table of named mutators plus input-to-state
// replacement from the cmp table (engine-techniques.md 1.3, 1.4), driven by one Rng so a
// worker's mutation chain can be replayed exactly by the coordinator (Go's scheme, 3.1).
//
// Cost: one Mutate is O(size) at worst (a memmove or a search), never allocates, and draws
// all randomness from the caller's Rng in a fixed order.
#ifndef POLLEN_ENGINE_MUTATOR_H_
#define POLLEN_ENGINE_MUTATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/cmp_table.h"
#include "engine/dictionary.h"
#include "engine/learned_words.h"
#include "engine/length_fields.h"
#include "engine/rng.h"

namespace pollen::engine {

// Optional material for the mutators that need it; a null or empty source disables them.
// The pointed-to data must stay unchanged for the whole chain (replay needs the same
// sources) and must not overlap the buffer being mutated.
struct MutationSources {
  const Dictionary* dictionary = nullptr;
  const CmpTable* cmp = nullptr;
  const LengthFields* lengths = nullptr;  // of the chain's entry
  const LearnedWords* learned = nullptr;  // words that led to new coverage before
  const uint8_t* crossover = nullptr;     // another corpus entry to splice from
  size_t crossover_size = 0;
};

// Mutations stacked on one corpus entry before the buffer is reset to the entry (Go's
// chainedMutations: longer chains drift too far and reduce diversity, go#49601).
constexpr uint32_t kChainLength = 5;

// Not thread-safe: one Mutator per thread (it owns a scratch buffer).
class Mutator {
 public:
  // Preallocates scratch buffers of 4 * `max_size` bytes. Requires max_size >= 1.
  explicit Mutator(size_t max_size);

  // Applies one mutation, chosen with `rng`, to data[0, size) in place and returns the new
  // size, in [1, max_size()]. `data` must have room for max_size() bytes; `size` must be
  // <= max_size() and may be 0 (the result is still >= 1). Allocates nothing. The result
  // depends only on the bytes, `size`, the rng state and the sources' contents, so the same
  // inputs always give the same output and leave `rng` in the same state.
  size_t Mutate(uint8_t* data, size_t size, Rng& rng, const MutationSources& sources);

  size_t max_size() const { return max_size_; }

  // Mutants no longer than `limit` (at least 1, at most the size given at construction)
  // from now on: what a fuzz request's MutationLimit says; a replay must set the same.
  void set_limit(size_t limit);

  // Mutants of printable ASCII and whitespace only (libFuzzer's -only_ascii): every byte a
  // Mutate leaves is mapped into that set (ToAscii). A replay must set the same.
  void set_ascii(bool ascii) { ascii_ = ascii; }
  bool ascii() const { return ascii_; }

  // Index into the mutator table of the mutation the last Mutate applied (for stats).
  size_t last_mutator() const { return last_mutator_; }

  // The word (a compared operand or a dictionary entry) the last Mutate wrote, if it wrote
  // one: for the learned dictionary. Valid until the next Mutate; size 0 when none.
  const uint8_t* last_word() const { return last_word_; }
  size_t last_word_size() const { return last_word_size_; }

  // Number of mutators in the table, and the name of mutator `index` (< MutatorCount()),
  // e.g. "EraseBytes".
  static size_t MutatorCount();
  // A hash of the table's names in order, never 0: a worker's and a coordinator's tables
  // must be the same for the coordinator to replay the worker's chains (schema Hello).
  static uint64_t TableFingerprint();
  static const char* MutatorName(size_t index);

 private:
  size_t capacity_;  // of the scratch buffer
  size_t max_size_;
  bool ascii_ = false;
  size_t last_mutator_ = 0;
  uint8_t last_word_[LearnedWords::kMaxWord];
  size_t last_word_size_ = 0;
  std::vector<uint8_t> scratch_;
  std::vector<uint8_t> aux_;  // 3 * capacity_, for the nested mutation of mutate_encoded.cc
};

// Maps data[0, size) into printable ASCII and whitespace, as libFuzzer's ToASCII does: the
// top bit dropped, then any other control character made a space.
void ToAscii(uint8_t* data, size_t size);

// The longest mutant of a fuzz request (WorkerShmHeader::mutation_len, node/length_control.h):
// mutation_len 0 means `max_size`; a mutant may always be as long as its entry.
inline size_t MutationLimit(uint32_t mutation_len, size_t entry_size, size_t max_size) {
  if (mutation_len == 0) return max_size;
  size_t limit = mutation_len > entry_size ? mutation_len : entry_size;
  if (limit > max_size) limit = max_size;
  return limit == 0 ? 1 : limit;
}

// Starts a chain: copies `entry` into `out` (capacity m.max_size()), truncated to
// m.max_size() bytes, and returns the copied size (0 for an empty entry; Mutate accepts
// that). The worker must start every chain with this, so that it and ReplayChain agree.
size_t BeginChain(const Mutator& m, const uint8_t* entry, size_t entry_size, uint8_t* out);

// Rebuilds the input a worker executed, and is the definition of what it executed:
//   size = BeginChain(m, entry, entry_size, out);
//   Rng rng(rng_state, rng_inc);
//   repeat chain_length times: size = m.Mutate(out, size, rng, sources);
// where (rng_state, rng_inc) are rng.state() and rng.inc() saved at chain start, and
// `sources` hold the same contents as in the worker. Returns the size; with chain_length 0
// that is the truncated copy, which may be 0.
size_t ReplayChain(Mutator& m, const uint8_t* entry, size_t entry_size, uint64_t rng_state,
                   uint64_t rng_inc, uint32_t chain_length, const MutationSources& sources,
                   uint8_t* out);

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_MUTATOR_H_
