#include "engine/mutator.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "base/status.h"
#include "engine/mutation_ops.h"

namespace pollen::engine {
namespace {

using mutation::Ctx;
using mutation::kNoChange;

struct MutatorEntry {
  const char* name;
  size_t (*fn)(Ctx&);
};

// Picked uniformly, as in libFuzzer (no weights). EraseBytes must stay first and the
// fallbacks below must always apply.
constexpr MutatorEntry kMutators[] = {
    {"EraseBytes", mutation::EraseBytes},
    {"InsertByte", mutation::InsertByte},
    {"InsertRepeatedBytes", mutation::InsertRepeatedBytes},
    {"ChangeByte", mutation::ChangeByte},
    {"ChangeBit", mutation::ChangeBit},
    {"ShuffleBytes", mutation::ShuffleBytes},
    {"SwapChunks", mutation::SwapChunks},
    {"CopyPart", mutation::CopyPart},
    {"CrossOver", mutation::CrossOver},
    {"ChangeASCIIInt", mutation::ChangeAsciiInt},
    {"ChangeBinInt", mutation::ChangeBinInt},
    {"Dictionary", mutation::UseDictionary},
    {"LearnedDictionary", mutation::UseLearnedWord},
    {"InputToState", mutation::InputToState},
    {"InputToStateArith", mutation::InputToStateArith},
    {"CopyLine", mutation::CopyLine},
    {"InsertRecord", mutation::InsertRecord},
    {"NestGroup", mutation::NestGroup},
    {"Base64", mutation::MutateBase64},
    {"Der", mutation::MutateDer},
    {"Zlib", mutation::MutateZlib},
};
constexpr size_t kNumMutators = std::size(kMutators);
constexpr size_t kEraseIndex = 0;
constexpr size_t kInsertByteIndex = 1;  // always applies to an empty input
constexpr size_t kChangeBitIndex = 4;   // always applies to a non-empty input
constexpr int kMaxAttempts = 16;

}  // namespace

namespace mutation {

size_t MutateNested(Ctx& c) {
  for (int attempt = 0; attempt < kMaxAttempts; attempt++) {
    size_t index = c.rng.Below(kNumMutators);
    const auto fn = kMutators[index].fn;
    if (fn == MutateBase64 || fn == MutateDer || fn == MutateZlib) continue;
    size_t new_size = fn(c);
    if (new_size != kNoChange) return new_size;
  }
  return kNoChange;
}

}  // namespace mutation

Mutator::Mutator(size_t max_size)
    : capacity_(max_size), max_size_(max_size), scratch_(max_size), aux_(3 * max_size) {
  POLLEN_CHECK(max_size >= 1);
}

void Mutator::set_limit(size_t limit) {
  max_size_ = std::max<size_t>(1, std::min(limit, capacity_));
}

size_t Mutator::Mutate(uint8_t* data, size_t size, Rng& rng, const MutationSources& sources) {
  POLLEN_CHECK(size <= max_size_);
  last_word_size_ = 0;
  Ctx c{data,        size,       max_size_,       rng, sources, scratch_.data(),
        aux_.data(), last_word_, &last_word_size_};
  // Above half the largest size, erase a little more often, so inputs do not drift up to
  // it (whatever the request's limit: that one is length control's, node/length_control.h).
  bool large = size > capacity_ / 2;
  for (int attempt = 0; attempt < kMaxAttempts; attempt++) {
    size_t index = kEraseIndex;
    if (!large || !rng.OneIn(8)) index = rng.Below(kNumMutators);
    size_t new_size = kMutators[index].fn(c);
    if (new_size != kNoChange) {
      last_mutator_ = index;
      if (ascii_) ToAscii(data, new_size);
      return new_size;
    }
  }
  // Only reached when nothing applied (e.g. tiny inputs and no sources).
  last_mutator_ = size == 0 ? kInsertByteIndex : kChangeBitIndex;
  size_t new_size = kMutators[last_mutator_].fn(c);
  if (ascii_) ToAscii(data, new_size);
  return new_size;
}

void ToAscii(uint8_t* data, size_t size) {
  for (size_t i = 0; i < size; i++) {
    uint8_t c = data[i] & 0x7f;
    bool space = c == ' ' || (c >= '\t' && c <= '\r');
    if (!space && (c < 0x20 || c == 0x7f)) c = ' ';
    data[i] = c;
  }
}

size_t Mutator::MutatorCount() { return kNumMutators; }

uint64_t Mutator::TableFingerprint() {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (const MutatorEntry& e : kMutators) {
    for (const char* p = e.name;; p++) {
      h = (h ^ static_cast<uint8_t>(*p)) * 0x100000001b3ULL;
      if (*p == '\0') break;
    }
  }
  return h == 0 ? 1 : h;
}

const char* Mutator::MutatorName(size_t index) {
  return index < kNumMutators ? kMutators[index].name : "?";
}

size_t BeginChain(const Mutator& m, const uint8_t* entry, size_t entry_size, uint8_t* out) {
  size_t size = std::min(entry_size, m.max_size());
  if (size > 0) std::memcpy(out, entry, size);
  return size;
}

size_t ReplayChain(Mutator& m, const uint8_t* entry, size_t entry_size, uint64_t rng_state,
                   uint64_t rng_inc, uint32_t chain_length, const MutationSources& sources,
                   uint8_t* out) {
  size_t size = BeginChain(m, entry, entry_size, out);
  Rng rng(rng_state, rng_inc);
  for (uint32_t i = 0; i < chain_length; i++) size = m.Mutate(out, size, rng, sources);
  return size;
}

}  // namespace pollen::engine
