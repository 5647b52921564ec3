// A dictionary learned while fuzzing: the words (memcmp/strcmp operands, dictionary entries)
// whose use by a mutation led to new coverage, as libFuzzer's "recommended dictionary" and
// AFL++'s auto-dictionary. Mutations then insert them anywhere in any entry, where the cmp
// table only offers the current entry's own comparisons.
//
// A plain struct with no pointers: each worker has one in its shared memory (the chain's
// replay reads it there), the coordinator merges them, hands the union to every worker
// between requests, and keeps it in the work directory (learned.dict) for the next run.
#ifndef POLLEN_ENGINE_LEARNED_WORDS_H_
#define POLLEN_ENGINE_LEARNED_WORDS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace pollen::engine {

struct LearnedWords {
  static constexpr size_t kMax = 64;
  static constexpr size_t kMaxWord = 32;
  struct Word {
    uint8_t bytes[kMaxWord];
    uint8_t size;  // 2..kMaxWord
    uint8_t reserved[3];
    uint32_t uses;  // new inputs it took part in
  };
  Word words[kMax];
  uint32_t count;
  uint32_t reserved;

  // Counts one more use of p[0, n), adding it if new (n in [2, kMaxWord]; others are
  // ignored). When full, the least used word makes room.
  void Add(const uint8_t* p, size_t n, uint32_t uses = 1);

  // Takes in the words of `other`, each with the larger of the two use counts.
  void Merge(const LearnedWords& other);

  // libFuzzer's dictionary format, most used first, one `"HELO"` per line; with
  // `with_uses`, followed by ` # Uses: 3` as libFuzzer prints its recommended dictionary
  // (which a dictionary parser then refuses: for reading, leave it out).
  std::string Format(bool with_uses) const;
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_LEARNED_WORDS_H_
