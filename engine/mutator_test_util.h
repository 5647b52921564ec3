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
#include "gtest/gtest.h"

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

// Chains of five mutations of `input` give the same results from a Mutator that has run
// 2,000 mutations before as from a fresh one: results depend on the input and the rng only
// (the coordinator replays chains with its own Mutator).
inline void ExpectResultsIndependentOfEarlierMutations(const Bytes& input, size_t max_size,
                                                       uint64_t warm_seed) {
  Mutator used(max_size);
  Rng warm = Rng::FromSeed(warm_seed);
  Bytes buf(max_size);
  for (int i = 0; i < 2000; i++) {
    std::copy(input.begin(), input.end(), buf.begin());
    used.Mutate(buf.data(), input.size(), warm, MutationSources{});
  }
  Mutator fresh(max_size);
  Bytes a(max_size), b(max_size);
  for (uint64_t seed = 0; seed < 300; seed++) {
    std::copy(input.begin(), input.end(), a.begin());
    std::copy(input.begin(), input.end(), b.begin());
    Rng ra = Rng::FromSeed(seed), rb = Rng::FromSeed(seed);
    size_t na = input.size(), nb = input.size();
    for (int k = 0; k < 5; k++) {
      na = used.Mutate(a.data(), na, ra, MutationSources{});
      nb = fresh.Mutate(b.data(), nb, rb, MutationSources{});
    }
    ASSERT_EQ(Bytes(a.begin(), a.begin() + na), Bytes(b.begin(), b.begin() + nb));
  }
}

inline Bytes InputWith(const Bytes& middle) {
  Bytes input(10, 'a');
  input.insert(input.end(), middle.begin(), middle.end());
  input.insert(input.end(), 10, 'z');
  return input;
}

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_MUTATOR_TEST_UTIL_H_
