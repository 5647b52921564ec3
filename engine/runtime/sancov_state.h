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

#include "engine/cmp_log.h"
#include "engine/cmp_sequence.h"
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
  // Every distinct pair too, on the entry's own run of a request with an input-to-state
  // stage (engine/i2s_stage.h); null otherwise.
  engine::CmpLog* cmp_log = nullptr;
  // And every integer comparison in order, on the runs that colorize the entry; null otherwise.
  engine::CmpSequence* cmp_seq = nullptr;
  // Whether __pollen_trace_routine (routine_hook.cc, for targets built with the compiler
  // pass) records: only on the entry's own run, whose operands input-to-state reads.
  bool log_routines = false;
  // True while the harness runs: the string hooks record only the target's comparisons,
  // not the runtime's own.
  volatile bool in_target = false;
  // Value profile (libFuzzer's -use_value_profile), null when off: one counter per (site,
  // how close its operands came), registered as one more counter module, so each new
  // closeness at a site is a new feature.
  uint8_t* value_profile = nullptr;
};

// 128 site slots (a hash of the pc) of 64 closeness values each.
inline constexpr size_t kValueProfileSites = 128;
inline constexpr size_t kValueProfileCounters = kValueProfileSites * 64;

// Marks the counter of `closeness` (0..63, capped) at the site `pc`.
inline void AddValueProfile(SancovState& s, uintptr_t pc, uint64_t closeness) {
  size_t site = static_cast<size_t>((pc * 0x9E3779B97F4A7C15ULL) >> 57);  // 0..127
  s.value_profile[site * 64 + (closeness > 63 ? 63 : closeness)] = 1;
}

// Registers the value-profile counters (once, before the worker's hello).
void EnableValueProfile();

SancovState& GetSancovState();

// Zeroes every counter (start-up, and after code that ran outside the fuzzing loop).
void ClearAllCounters();

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_SANCOV_STATE_H_
