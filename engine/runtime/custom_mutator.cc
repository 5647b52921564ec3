#include "engine/runtime/custom_mutator.h"

#include <algorithm>
#include <cstring>
#include <vector>

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) __attribute__((weak));
extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out_size, unsigned int seed)
    __attribute__((weak));

namespace pollen::runtime {
namespace {

// What LLVMFuzzerMutate draws from: set only while a hook runs (the worker is one thread).
struct MutateContext {
  engine::Mutator* mutator = nullptr;
  engine::Rng* rng = nullptr;
  const engine::MutationSources* sources = nullptr;
};
MutateContext g_context;

// Two buffers: a crossover's output, and LLVMFuzzerMutate's, which the crossover may call.
enum class Use { kCrossOver, kMutate };
uint8_t* Scratch(Use use, size_t size) {
  static std::vector<uint8_t> buffers[2];
  std::vector<uint8_t>& b = buffers[use == Use::kCrossOver ? 0 : 1];
  if (b.size() < size) b.resize(size);
  return b.data();
}

}  // namespace

bool HasCustomMutator() {
  return LLVMFuzzerCustomMutator != nullptr || LLVMFuzzerCustomCrossOver != nullptr;
}

size_t CustomMutate(engine::Mutator& mutator, uint8_t* data, size_t size, size_t max_size,
                    engine::Rng& rng, const engine::MutationSources& sources) {
  const bool can_cross = LLVMFuzzerCustomCrossOver != nullptr && sources.crossover != nullptr &&
                         sources.crossover_size > 0;
  const bool cross = can_cross && (LLVMFuzzerCustomMutator == nullptr || rng.Bool());
  const unsigned int seed = rng.Next();
  g_context = {&mutator, &rng, &sources};
  size_t out = size;
  if (cross) {
    uint8_t* buf = Scratch(Use::kCrossOver, max_size);
    size_t n = LLVMFuzzerCustomCrossOver(data, size, sources.crossover, sources.crossover_size, buf,
                                         max_size, seed);
    if (n > 0) {  // 0: the hook made nothing, the input stays
      out = std::min(n, max_size);
      std::memcpy(data, buf, out);
    }
  } else if (LLVMFuzzerCustomMutator != nullptr) {
    out = std::min(LLVMFuzzerCustomMutator(data, size, max_size, seed), max_size);
  }
  g_context = {};
  return out;
}

}  // namespace pollen::runtime

// One of Pollen's mutations of data[0, size), at most max_size bytes: for custom mutators.
// Called outside one (no fuzzing is going on), it leaves the input as it is.
extern "C" __attribute__((visibility("default"))) size_t LLVMFuzzerMutate(uint8_t* data,
                                                                          size_t size,
                                                                          size_t max_size) {
  using pollen::runtime::g_context;
  if (g_context.mutator == nullptr || max_size == 0) return size;
  pollen::engine::Mutator& m = *g_context.mutator;
  const size_t saved = m.max_size();
  m.set_limit(max_size);
  const size_t limit = m.max_size();  // max_size, or less when the mutator's buffer is smaller
  uint8_t* buf = pollen::runtime::Scratch(pollen::runtime::Use::kMutate, limit);
  size_t n = std::min(size, limit);
  std::memcpy(buf, data, n);
  n = m.Mutate(buf, n, *g_context.rng, *g_context.sources);
  std::memcpy(data, buf, n);
  m.set_limit(saved);
  return n;
}
