// Turns the ways a target can fail into a report on stderr that the coordinator reads:
// fatal signals, uncaught C++ exceptions, and exit() called from inside the harness.
//
// Every report starts with a line "==PID== ERROR: pollen: <what>" followed by a stack in
// the sanitizers' format ("    #N 0xPC in FUNCTION (MODULE+0xOFFSET)"). When a sanitizer
// runtime is linked in, it keeps its own signal handlers and prints its own reports; ours
// then only cover what it leaves alone (abort(), exceptions, exit()).
#ifndef POLLEN_ENGINE_RUNTIME_CRASH_HANDLER_H_
#define POLLEN_ENGINE_RUNTIME_CRASH_HANDLER_H_

#include "engine/shm_layout.h"

namespace pollen::runtime {

// Installs the handlers (SIGUSR1 included: the coordinator's request for a timeout stack). `shm`
// may be null (standalone runs); when set, exit() inside the harness is flagged there before the
// process ends.
void InstallCrashHandlers(engine::WorkerShmHeader* shm);

// Prints the current stack to stderr (sanitizer's printer when present, else ours).
void PrintStack();

// True when ASan or MSan is linked in: they report fatal signals themselves. (UBSan's
// standalone runtime, which clang links for -fsanitize=fuzzer-no-link alone, does not count:
// our handlers replace its.)
bool SanitizerHandlesSignals();

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_CRASH_HANDLER_H_
