// The shared-memory regions between the coordinator and its workers.
//
// WorkerShm: one per worker (a memfd the coordinator creates, mapped read-write by both).
// It holds the corpus entry being fuzzed, its cross-over partner, the RNG state at the start
// of the current mutation chain and how many mutations of the chain have been applied, so
// that the coordinator can rebuild the exact input a dead worker was executing (Go's
// design). Inputs that are not derived from the RNG (minimization candidates, inputs to
// execute as they are) are written to the raw area before they run, with raw_in_mem set.
//
// GlobalCoverageShm: one per coordinator, mapped read-only by every worker. Byte i holds one
// bit per bucket seen so far for counter i; a worker reports an execution as soon as it
// covers a bit that is not set there. Only the coordinator writes it.
//
// The fields a worker updates while a target runs are written with relaxed atomic stores
// followed by a signal fence: a crash cannot leave the compiler's reordering in the way.
#ifndef POLLEN_ENGINE_SHM_LAYOUT_H_
#define POLLEN_ENGINE_SHM_LAYOUT_H_

#include <cstddef>
#include <cstdint>

#include "engine/cmp_table.h"
#include "engine/learned_words.h"
#include "engine/length_fields.h"
#include "engine/mutator.h"

namespace pollen::engine {

enum class WorkerPhase : uint32_t {
  kIdle = 0,
  kInit = 1,      // LLVMFuzzerInitialize and start-up
  kFuzz = 2,      // mutating the entry: the input is rebuilt from the chain state
  kExecute = 3,   // running the raw input as it is
  kMinimize = 4,  // running minimization candidates: the raw area holds the current one
};

struct WorkerShmHeader {
  static constexpr uint64_t kMagic = 0x314d48534e4c4f50ULL;  // "POLNSHM1"
  // 10: the crossover partners go again (one partner); 9: CmpTable's section of wider
  // comparisons by site, crossover partners; 8: mutant_hooks_off; 7: BytePair.either; 6:
  // CmpTable's one-byte section; 5: value_profile; 4: mutation_len; 3: length fields, learned
  // words; 2: CmpTable counts its used slots
  static constexpr uint32_t kVersion = 10;

  uint64_t magic;
  uint32_t version;
  uint32_t max_input;     // capacity of each of entry, crossover and raw
  uint32_t max_features;  // capacity of the feature area

  // Written by the coordinator before a request.
  uint32_t entry_size;
  uint32_t crossover_size;

  // Written by the worker while it runs.
  uint32_t phase;       // WorkerPhase
  uint64_t runs;        // executions in the current request: the watchdog's heartbeat
  uint64_t total_runs;  // executions since the worker started
  uint64_t chain_rng_state;
  uint64_t chain_rng_inc;
  uint32_t chain_length;  // mutations applied to the entry for the input now running
  uint32_t raw_in_mem;    // 1: the raw area holds the exact input now running
  uint32_t raw_size;
  uint32_t in_target;       // 1 while LLVMFuzzerTestOneInput runs
  uint32_t exit_in_target;  // 1: the target called exit(); exit_code holds the code
  int32_t exit_code;
  uint32_t feature_count;  // valid entries in the feature area (results and requests)
  uint32_t mutation_len;   // the longest mutant of a fuzz request (engine::MutationLimit); 0: max
  // 1: the comparison hooks climb the value profile's ladders in the requests that follow
  // (when the worker registered them: POLLEN_VALUE_PROFILE); 0: they do not. Written by the
  // coordinator before a request.
  uint32_t value_profile;
  // 1: the next fuzz request's mutants, or the next minimize request's candidates, may run
  // without the comparison hooks (the worker keeps them when it needs them:
  // engine/runtime/worker.cc); 0: with. Written by the coordinator before a request.
  uint32_t mutant_hooks_off;

  CmpTable cmp_snapshot;       // operands the current chain's mutations read
  LengthFields length_fields;  // of the entry, read by the chain's mutations too
  // The worker adds to it after a request that found something; the coordinator reads and
  // refills it between requests.
  LearnedWords learned;
};

// Offsets of the variable-size areas that follow the header, each 64-byte aligned.
struct WorkerShmLayout {
  size_t entry_offset;
  size_t crossover_offset;
  size_t raw_offset;
  size_t features_offset;
  size_t total_size;

  static constexpr size_t Align(size_t n) { return (n + 63) & ~static_cast<size_t>(63); }

  static WorkerShmLayout For(uint32_t max_input, uint32_t max_features) {
    WorkerShmLayout l{};
    l.entry_offset = Align(sizeof(WorkerShmHeader));
    l.crossover_offset = l.entry_offset + Align(max_input);
    l.raw_offset = l.crossover_offset + Align(max_input);
    l.features_offset = l.raw_offset + Align(max_input);
    l.total_size = l.features_offset + Align(static_cast<size_t>(max_features) * sizeof(uint32_t));
    return l;
  }
};

// A typed view over a mapped WorkerShm region.
class WorkerShmView {
 public:
  WorkerShmView() = default;
  WorkerShmView(void* base, WorkerShmLayout layout)
      : base_(static_cast<uint8_t*>(base)), layout_(layout) {}

  WorkerShmHeader* header() const { return reinterpret_cast<WorkerShmHeader*>(base_); }
  uint8_t* entry() const { return base_ + layout_.entry_offset; }
  uint8_t* crossover() const { return base_ + layout_.crossover_offset; }
  uint8_t* raw() const { return base_ + layout_.raw_offset; }
  uint32_t* features() const {
    return reinterpret_cast<uint32_t*>(base_ + layout_.features_offset);
  }
  const WorkerShmLayout& layout() const { return layout_; }
  bool valid() const { return base_ != nullptr; }

  // What a fuzz request's mutations read, from the header and the crossover area, with the
  // run's `dictionary`: the worker and the coordinator's replay of its chains build it here,
  // so that both read the same sources.
  MutationSources ChainSources(const Dictionary* dictionary) const {
    WorkerShmHeader* h = header();
    MutationSources sources;
    sources.dictionary = dictionary;
    sources.cmp = &h->cmp_snapshot;
    sources.lengths = &h->length_fields;
    sources.learned = &h->learned;
    sources.crossover = crossover();
    sources.crossover_size = h->crossover_size < h->max_input ? h->crossover_size : h->max_input;
    return sources;
  }

 private:
  uint8_t* base_ = nullptr;
  WorkerShmLayout layout_{};
};

struct GlobalCoverageHeader {
  static constexpr uint64_t kMagic = 0x31564f434e4c4f50ULL;  // "POLNCOV1"
  uint64_t magic;
  uint64_t capacity;      // counters the map can hold
  uint64_t num_counters;  // set by the coordinator from the first worker's hello
  uint64_t reserved[5];
};

// The map's bytes start right after the header.
constexpr size_t kGlobalCoverageDataOffset = sizeof(GlobalCoverageHeader);

// Environment variables through which the coordinator starts a target in worker mode.
inline constexpr const char* kEnvWorkerFds = "POLLEN_WORKER_FDS";      // "ctl_in,ctl_out,shm,cov"
inline constexpr const char* kEnvWorkerShmSize = "POLLEN_WORKER_SHM";  // "max_input,max_features"
// "1": the worker adds value-profile counters (runtime/sancov_state.h) to its coverage.
inline constexpr const char* kEnvValueProfile = "POLLEN_VALUE_PROFILE";
// One allocation larger than this many MiB ends the worker as out of memory
// (engine/runtime/malloc_limit.h); absent: no limit.
inline constexpr const char* kEnvMallocLimitMb = "POLLEN_MALLOC_LIMIT_MB";

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_SHM_LAYOUT_H_
