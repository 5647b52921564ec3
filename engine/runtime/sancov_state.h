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
#include "engine/runtime/hook_sites.h"
#include "engine/value_profile.h"

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
  engine::CmpTable cmp;      // filled by the trace-cmp and string hooks
  engine::CmpSiteLog sites;  // non-constant integer comparisons by site, when the worker asks
  // Every distinct pair too, on the entry's own run of a request with an input-to-state
  // stage (engine/i2s_stage.h); null otherwise.
  engine::CmpLog* cmp_log = nullptr;
  // And every integer comparison in order, on the runs that colorize the entry; null otherwise.
  engine::CmpSequence* cmp_seq = nullptr;
  // Whether __pollen_trace_routine (routine_hook.cc, for targets built with the compiler
  // pass) records: only on the entry's own run, whose operands input-to-state reads.
  bool log_routines = false;
  // Where the comparison hooks note their call sites (hook_sites.h), on the entry's own runs;
  // null otherwise.
  HookSites* hook_sites = nullptr;
  // True while the harness runs: the string hooks record only the target's comparisons,
  // not the runtime's own.
  volatile bool in_target = false;
  // Value profile (libFuzzer's -use_value_profile, closer only: engine/value_profile.h):
  // what the hooks climb, null while off (SetValueProfileActive). Its counter indices are one
  // more counter module, registered at value_profile_counters, which the hooks never write;
  // registered_profile is set once they are, for the whole process.
  engine::ValueProfile* value_profile = nullptr;
  engine::ValueProfile* registered_profile = nullptr;
  const uint8_t* value_profile_counters = nullptr;
  uint32_t value_profile_first = 0;  // the module's base: its first counter's number
};

// Registers the value-profile counters (once, before the worker's hello) and turns the
// profile on.
void EnableValueProfile();

// Turns the registered profile on or off for the runs that follow (no-op when none is
// registered); turning it off forgets the current run's levels.
void SetValueProfileActive(bool active);

SancovState& GetSancovState();

// The addresses of the comparison and switch hooks, whose call sites HookSites may patch;
// returns how many were written to out (at most HookSites::kMaxHooks).
size_t ComparisonHookAddresses(uintptr_t* out);

// Zeroes every counter (start-up, and after code that ran outside the fuzzing loop).
void ClearAllCounters();

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_SANCOV_STATE_H_
