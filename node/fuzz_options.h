// Every option of `pollen fuzz` (and of repro/minimize, which take a subset), as one list
// expanded into the options struct, the flag parser and --help. Passed by const&.
#ifndef POLLEN_NODE_FUZZ_OPTIONS_H_
#define POLLEN_NODE_FUZZ_OPTIONS_H_

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace pollen::node {

// A flag that is on, off, or left to Pollen to switch as the run goes (--flag=auto).
enum class Setting : uint8_t { kOff, kOn, kAuto };

inline const char* SettingName(Setting s) {
  return s == Setting::kOn ? "true" : s == Setting::kOff ? "false" : "auto";
}
inline std::ostream& operator<<(std::ostream& out, Setting s) { return out << SettingName(s); }

// X(type, name, default, help)
#define POLLEN_FUZZ_FLAGS(X)                                                                     \
  X(uint32_t, workers, 0, "worker processes; 0 = one per core")                                  \
  X(uint64_t, time, 0, "stop after this many seconds; 0 = no limit")                             \
  X(uint64_t, runs, 0, "stop after this many executions; 0 = no limit")                          \
  X(uint64_t, seed, 0, "random seed; 0 = from the clock (printed, so a run can be repeated)")    \
  X(uint32_t, max_len, 0, "largest input in bytes; 0 = the largest seed, at least 4096")         \
  X(uint32_t, timeout, 10, "seconds one execution may take before it is reported as a hang")     \
  X(uint32_t, hang_cutoff_ms, 1000,                                                              \
    "once executions stopped at a time limit have taken 5 % of the workers' time, a mutant "     \
    "still running after this many ms (or ten times the slowest corpus entry's time) is "        \
    "stopped there and saved as a hang (crashes/hang-*, one per stack), not reported as a "      \
    "timeout; 0 = off: every execution gets --timeout")                                          \
  X(uint32_t, rss_limit_mb, 2048, "memory one worker may use, in MiB; 0 = no limit")             \
  X(uint32_t, malloc_limit_mb, 0,                                                                \
    "one allocation larger than this many MiB is an out-of-memory failure, reported with its "   \
    "stack (targets built with a sanitizer); 0 = the rss limit, as libFuzzer's")                 \
  X(bool, only_ascii, false,                                                                     \
    "mutants of printable ASCII and whitespace only (libFuzzer's -only_ascii)")                  \
  X(std::string, dict, "", "dictionary file (libFuzzer/AFL format: one \"value\" per line)")     \
  X(bool, target_dict, true,                                                                     \
    "also use the dictionary Pollen's compiler plugin embedded in the target, if any")           \
  X(bool, keep_going, false, "go on after a failure; failures are deduplicated by signature")    \
  X(std::string, workdir, "", "work directory; default ./.pollen/<target name>")                 \
  X(uint32_t, status_every, 3, "seconds between status lines")                                   \
  X(uint32_t, minimize_time, 30,                                                                 \
    "seconds spent minimizing one failing input; 0 = keep it as it failed")                      \
  X(uint32_t, minimize_share, 25,                                                                \
    "percent of the fuzzing's cost (executions weighted by input size) that minimizing new "     \
    "inputs may cost, and never more time than fuzzing; a find beyond it joins the corpus as "   \
    "it was found, and one that minimizing shortened is kept as found too, as a crossover "      \
    "partner; 0 = never minimize")                                                               \
  X(Setting, use_value_profile, Setting::kAuto,                                                  \
    "also keep inputs that bring a comparison closer (libFuzzer's -use_value_profile): true, "   \
    "false, or auto: on only while no new edge has been found for 5 s")                          \
  X(Setting, mutant_cmp_hooks, Setting::kAuto,                                                   \
    "run mutants with the comparison hooks: true always, false never when nothing needs "        \
    "them, auto a share chosen by finds per second (x86-64; the entry's runs always have them)") \
  X(uint32_t, len_control, 0,                                                                    \
    "grow the longest mutant by log2(limit) after len_control x log2(limit) executions "         \
    "without a new input, from the largest corpus entry up to max_len; 0 = off; libFuzzer's "    \
    "-len_control, whose default is 100")                                                        \
  X(bool, reduce_inputs, true,                                                                   \
    "replace a corpus entry by a shorter mutant with every feature no smaller entry has "        \
    "(libFuzzer's -reduce_inputs)")                                                              \
  X(bool, keep_seed, true,                                                                       \
    "keep every seed (and every stored entry of this node's own that runs again) in the "        \
    "corpus, even one that adds no coverage, unless the harness rejects it (libFuzzer's "        \
    "-keep_seed=1, AFL++'s queue)")                                                              \
  X(bool, speed_weight, true,                                                                    \
    "choose corpus entries whose mutants run fast more often, slow ones less (AFL++'s "          \
    "performance score; libFuzzer's -entropic_scale_per_exec_time)")                             \
  X(uint32_t, unit_runs, 8192,                                                                   \
    "executions a worker spends on one corpus entry before the next is chosen (a fuzz unit, "    \
    "which also ends after --unit-ms)")                                                          \
  X(uint32_t, unit_ms, 5,                                                                        \
    "milliseconds a worker spends on one corpus entry at most (a fuzz unit, which also ends "    \
    "after --unit-runs executions); Go's unit is 100")                                           \
  X(bool, i2s_stage, false,                                                                      \
    "before fuzzing an entry the first time, try every pair of operands its run compared at "    \
    "every place of the entry that holds one of them (REDQUEEN's input-to-state stage); off "    \
    "by default: level or below on re2 in three trials")

struct FuzzOptions {
#define POLLEN_DECLARE_FLAG(type, name, def, help) type name = def;
  POLLEN_FUZZ_FLAGS(POLLEN_DECLARE_FLAG)
#undef POLLEN_DECLARE_FLAG

  std::string target;                    // path of the target binary
  std::vector<std::string> corpus_dirs;  // seed directories (read; new entries not written)
  bool libfuzzer_output = false;         // status lines in libFuzzer's shape (pollen libfuzzer)
  bool stop_after_seeds = false;  // stop once the start-up inputs have run (-runs=0, -merge=1)
};

// The number of workers `options` asks for: --workers, or one per online CPU when it is 0.
inline uint32_t WorkerCount(const FuzzOptions& options) {
  if (options.workers != 0) return options.workers;
  return static_cast<uint32_t>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

}  // namespace pollen::node

#endif  // POLLEN_NODE_FUZZ_OPTIONS_H_
