// libFuzzer's hooks for structure-aware fuzzing, in a Pollen worker: a target that defines
// LLVMFuzzerCustomMutator (and/or LLVMFuzzerCustomCrossOver) has its mutants made by them
// instead of Pollen's byte mutators, and LLVMFuzzerMutate, which they may call, applies one
// of Pollen's mutations.
//
// Repeatable, as in libFuzzer: the seed each hook gets and every LLVMFuzzerMutate draw come
// from the chain's Rng, so a `--seed` repeats a run. But the coordinator cannot replay a
// hook that lives in the target (node/coordinator_failures.cc), so the worker copies each
// such mutant into the shared raw area before it runs (Worker::RunPublished): a crash is
// taken from there (docs/decisions.md, issue 17).
#ifndef POLLEN_ENGINE_RUNTIME_CUSTOM_MUTATOR_H_
#define POLLEN_ENGINE_RUNTIME_CUSTOM_MUTATOR_H_

#include <cstddef>
#include <cstdint>

#include "engine/mutator.h"
#include "engine/rng.h"

namespace pollen::runtime {

// Whether the target defines LLVMFuzzerCustomMutator or LLVMFuzzerCustomCrossOver.
bool HasCustomMutator();

// One mutant of data[0, size) by the target's hooks, in place, at most `max_size` bytes
// (`data` has room for that many): the custom mutator, or the custom crossover with
// `sources.crossover` (half the time when both are defined and there is a partner).
// While a hook runs, LLVMFuzzerMutate mutates through `mutator` with `rng` and `sources`.
// Returns the new size. `mutator`'s limit is left as it was.
size_t CustomMutate(engine::Mutator& mutator, uint8_t* data, size_t size, size_t max_size,
                    engine::Rng& rng, const engine::MutationSources& sources);

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_CUSTOM_MUTATOR_H_
