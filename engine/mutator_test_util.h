// Helpers of the mutator's tests (engine/mutator_test.cc, mutate_operands_test.cc,
// mutate_structure_test.cc): random bytes, sources that enable every mutator, and the
// first mutation of an input that contains what a test wants.
#ifndef POLLEN_ENGINE_MUTATOR_TEST_UTIL_H_
#define POLLEN_ENGINE_MUTATOR_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/mutator.h"

namespace pollen::engine {

using Bytes = std::vector<uint8_t>;

inline Bytes RandomBytes(Rng& rng, size_t n) {
  Bytes b(n);
  for (uint8_t& x : b) x = static_cast<uint8_t>(rng.Next());
  return b;
}

inline bool Contains(const uint8_t* data, size_t size, const Bytes& needle) {
  return std::search(data, data + size, needle.begin(), needle.end()) != data + size;
}

// Sources that enable every mutator.
struct AllSources {
  AllSources() {
    dict.entries = {"KEYWORD", "\x01\x02"};
    cmp.Clear();
    cmp.AddInt(0x11223344, 0xdeadbeef, 4);
    cmp.AddInt(7, 300, 2);
    cmp.AddWord("HELLO", "WORLD", 5);
    partner = Bytes{'P', 'A', 'R', 'T', 'N', 'E', 'R', '-', '1', '2', '3'};
    sources.dictionary = &dict;
    sources.cmp = &cmp;
    sources.crossover = partner.data();
    sources.crossover_size = partner.size();
    // The '\n' (10) at offset 5 of EveryMutatorApplies's input, read as the length of the
    // ten bytes after it.
    lengths = LengthFields{};
    lengths.fields[0] = LengthFields::Field{5, 10, 1, 0, {0, 0}};
    lengths.count = 1;
    sources.lengths = &lengths;
    learned = LearnedWords{};
    learned.Add(reinterpret_cast<const uint8_t*>("LEARNED"), 7);
    sources.learned = &learned;
  }
  Dictionary dict;
  CmpTable cmp;
  LengthFields lengths;
  LearnedWords learned;
  Bytes partner;
  MutationSources sources;
};

// Mutates a fresh copy of `input` up to `tries` times (chains of one); returns the first
// result containing `wanted`, or an empty vector.
inline Bytes FirstResultContaining(const Bytes& input, const Bytes& wanted,
                                   const MutationSources& sources, uint64_t seed, int tries) {
  Mutator m(256);
  Rng rng = Rng::FromSeed(seed);
  Bytes buf(256);
  for (int i = 0; i < tries; i++) {
    std::copy(input.begin(), input.end(), buf.begin());
    size_t size = m.Mutate(buf.data(), input.size(), rng, sources);
    if (Contains(buf.data(), size, wanted)) return Bytes(buf.begin(), buf.begin() + size);
  }
  return {};
}

inline Bytes InputWith(const Bytes& middle) {
  Bytes input(10, 'a');
  input.insert(input.end(), middle.begin(), middle.end());
  input.insert(input.end(), 10, 'z');
  return input;
}

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_MUTATOR_TEST_UTIL_H_
