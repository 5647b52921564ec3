// What SanitizerCoverage registered in this process: the inline 8-bit counter regions and
// pc tables of every instrumented module, and the table of compared operands.
//
// Process-wide by necessity: the compiler's callbacks are plain C functions with no context.
// Modules register from their constructors, before main(), single-threaded; afterwards the
// registry is read-only. Nothing here allocates.
#ifndef POLLEN_ENGINE_RUNTIME_SANCOV_STATE_H_
#define POLLEN_ENGINE_RUNTIME_SANCOV_STATE_H_

#include <cstddef>
#include <cstdint>

#include "engine/cmp_sites.h"
#include "engine/cmp_table.h"

namespace pollen::runtime {

struct CounterModule {
  uint8_t* start;
  uint8_t* stop;
  uint32_t base;  // index of this module's first counter in the process-wide numbering
};

struct SancovState {
  static constexpr size_t kMaxModules = 256;
  CounterModule modules[kMaxModules];
  size_t num_modules = 0;
  uint64_t num_counters = 0;
  uint64_t num_pcs = 0;
  bool too_many_modules = false;
  engine::CmpTable cmp;  // filled by the trace-cmp and string hooks
  engine::CmpSiteLog sites;  // non-constant integer comparisons by site, when the worker asks
  // True while the harness runs: the string hooks record only the target's comparisons,
  // not the runtime's own.
  volatile bool in_target = false;
};

SancovState& GetSancovState();

// Zeroes every counter (start-up, and after code that ran outside the fuzzing loop).
void ClearAllCounters();

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_SANCOV_STATE_H_
