// What the mutators of engine/mutator.cc share, and the mutators themselves, by file:
// mutate_bytes.cc (byte-level and dictionaries), mutate_operands.cc (input-to-state),
// mutate_structure.cc (lines, records, groups), mutate_encoded.cc (inside base64 text),
// mutate_compressed.cc (inside zlib streams).
// Internal to the engine: engine/mutator.h is the interface.
#ifndef POLLEN_ENGINE_MUTATION_OPS_H_
#define POLLEN_ENGINE_MUTATION_OPS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/mutator.h"
#include "engine/rng.h"

namespace pollen::engine::mutation {

// Replay depends on every random draw happening in a fixed order, so draws are always made
// in separate statements, never two in one expression or in one call's arguments (whose
// evaluation order C++ leaves unspecified).

// What one mutation may read and write. A mutation returns the new size, or kNoChange when it
// cannot apply; then it must not have modified data (it may have drawn from rng).
struct Ctx {
  uint8_t* data;
  size_t size;
  size_t max_size;
  Rng& rng;
  const MutationSources& src;
  uint8_t* scratch;  // max_size bytes
  uint8_t* aux;      // 3 * max_size bytes, for a mutation that runs another one (MutateNested)
  uint8_t* word;     // LearnedWords::kMaxWord bytes: the word written, for last_word()
  size_t* word_size;
};

// Notes the word a mutation wrote (words of 2 to kMaxWord bytes only).
inline void NoteWord(Ctx& c, const uint8_t* p, size_t n) {
  if (n < 2 || n > LearnedWords::kMaxWord) return;
  std::memcpy(c.word, p, n);
  *c.word_size = n;
}

constexpr size_t kNoChange = 0;

// A length in [1, n] for n >= 1, mostly short so inputs stay small: 90% at most 8,
// 9% at most 32, 1% up to n (Go's chooseLen).
inline size_t ChooseLen(Rng& rng, size_t n) {
  uint32_t x = rng.Below(100);
  size_t cap = x < 90 ? 8 : (x < 99 ? 32 : n);
  return 1 + rng.BelowSize(std::min(cap, n));
}

// Moves data[pos, size) right by n; the caller has checked size + n <= max_size.
inline void OpenGap(uint8_t* data, size_t size, size_t pos, size_t n) {
  std::memmove(data + pos + n, data + pos, size - pos);
}

// Writes `bytes` into the input at a random position, inserting or overwriting as asked;
// switches to the other way when the asked one does not fit.
size_t PlaceBytes(Ctx& c, const uint8_t* bytes, size_t n, bool insert);

// First occurrence of needle[0, n) starting at or after `start`, wrapping to the beginning;
// returns `size` when there is none.
size_t FindWrapping(const uint8_t* data, size_t size, const uint8_t* needle, size_t n,
                    size_t start);

// The mutators (engine/mutator.cc's table picks among them): each returns the new size, or
// kNoChange when it does not apply.
size_t EraseBytes(Ctx& c);
size_t InsertByte(Ctx& c);
size_t InsertRepeatedBytes(Ctx& c);
size_t ChangeByte(Ctx& c);
size_t ChangeBit(Ctx& c);
size_t ShuffleBytes(Ctx& c);
size_t SwapChunks(Ctx& c);
size_t CopyPart(Ctx& c);
size_t CrossOver(Ctx& c);
size_t ChangeAsciiInt(Ctx& c);
size_t ChangeBinInt(Ctx& c);
size_t UseDictionary(Ctx& c);
size_t UseLearnedWord(Ctx& c);
size_t InputToState(Ctx& c);
size_t InputToStateArith(Ctx& c);
size_t CopyLine(Ctx& c);
size_t InsertRecord(Ctx& c);
size_t NestGroup(Ctx& c);
size_t MutateBase64(Ctx& c);
size_t MutateDer(Ctx& c);
size_t MutateZlib(Ctx& c);

// The sources of a nested mutation on decoded or inflated bytes: the input's offsets (its
// length fields) and its crossover partner mean nothing there.
inline MutationSources NestedSources(const MutationSources& s) {
  MutationSources nested = s;
  nested.lengths = nullptr;
  nested.crossover = nullptr;
  nested.crossover_size = 0;
  return nested;
}

// One mutation of the table other than those that run a nested one (mutator.cc), for
// MutateBase64, MutateDer and MutateZlib on the bytes they decoded or parsed: c.aux is not
// used.
size_t MutateNested(Ctx& c);

}  // namespace pollen::engine::mutation

#endif  // POLLEN_ENGINE_MUTATION_OPS_H_
