// How long mutants may grow (libFuzzer's -len_control): the limit starts at the corpus's
// largest entry (at least 4 bytes) when fuzzing starts, and grows by log2(limit) bytes each
// time len_control × log2(limit) executions pass without a new corpus entry, up to max_len.
// Short inputs run faster and keep the mutations on the bytes that matter; the limit
// rises once short inputs stop finding anything. A mutant may always be as long as its
// entry (engine::MutationLimit). len_control 0: no limit but max_len.
//
// Thread safety: none; the coordinator owns it.
#ifndef POLLEN_NODE_LENGTH_CONTROL_H_
#define POLLEN_NODE_LENGTH_CONTROL_H_

#include <cstddef>
#include <cstdint>

namespace pollen::node {

class LengthControl {
 public:
  LengthControl(uint32_t len_control, size_t max_len)
      : len_control_(len_control), max_len_(max_len), limit_(max_len) {}

  // Fuzzing starts after `runs` executions, with `largest` the longest corpus entry.
  void Start(size_t largest, uint64_t runs);
  // A new corpus entry after `runs` executions.
  void OnNewEntry(uint64_t runs) { last_new_ = runs; }
  // The limit for a request that starts after `runs` executions (max_len when off).
  size_t Limit(uint64_t runs);

 private:
  const uint32_t len_control_;
  const size_t max_len_;
  size_t limit_;
  uint64_t last_new_ = 0;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_LENGTH_CONTROL_H_
