// POLLEN_PLANTED_BUG(statement): marks the faulting statement(s) of a planted bug.
//
// Normally it expands to `statement` (inside do { } while (false), so it stays one statement
// wherever it is used), and the examples behave exactly as written.
//
// With -DPOLLEN_DISARM_PLANTED_BUGS the statement is dropped: the bug is disarmed. That build
// is for throughput benchmarks (bench/exec_speed.sh). A benchmark measures executions per
// second over a fixed time, and libFuzzer stops at the first crash (Pollen too, without
// --keep-going), so a bug found after a few seconds would end one fuzzer's run early and the
// two numbers would no longer measure the same thing.
//
// Disarmed, the macro expands to an empty `asm volatile("")` rather than to nothing: it emits
// no instruction, but the compiler may not delete it. With a truly empty branch, clang -O2
// deletes the branch and every comparison that leads to it before SanitizerCoverage runs
// (magic4 compiles to an empty function, with no trace-cmp hook left), and the benchmark
// would measure a different harness from the one that is fuzzed. The statement stays behind
// `if (false)`: never run, but still compiled, so the disarmed build keeps using the
// variables the bug uses (no -Wunused-variable) and cannot rot.
//
// Wrap only the faulting statement(s). Keep any `volatile` that stops the compiler from
// deleting the bug outside the macro, so the armed build is unchanged.
#ifndef POLLEN_EXAMPLES_PLANTED_BUG_H_
#define POLLEN_EXAMPLES_PLANTED_BUG_H_

#ifdef POLLEN_DISARM_PLANTED_BUGS
#define POLLEN_PLANTED_BUG(statement) \
  do {                                \
    asm volatile("");                 \
    if (false) {                      \
      statement;                      \
    }                                 \
  } while (false)
#else
#define POLLEN_PLANTED_BUG(statement) \
  do {                                \
    statement;                        \
  } while (false)
#endif

#endif  // POLLEN_EXAMPLES_PLANTED_BUG_H_
