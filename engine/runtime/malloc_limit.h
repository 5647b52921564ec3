// libFuzzer's -malloc_limit_mb: one allocation above the limit, made inside
// LLVMFuzzerTestOneInput, ends the worker as out of memory with the allocation's stack
// ("==PID== ERROR: pollen: out-of-memory (malloc(N))", node/failure.cc), instead of a slow
// climb to the rss limit or a null pointer. Through the sanitizers' malloc hooks, as libFuzzer
// does: a target built without a sanitizer has none, and only the rss limit applies.
#ifndef POLLEN_ENGINE_RUNTIME_MALLOC_LIMIT_H_
#define POLLEN_ENGINE_RUNTIME_MALLOC_LIMIT_H_

#include <cstdint>

namespace pollen::runtime {

// Installs the limit (`limit_mb` MiB; 0 does nothing): the process then exits with
// `exit_code` after the report. Returns whether a sanitizer's malloc hooks were there to
// install it in.
bool InstallMallocLimit(uint64_t limit_mb, int exit_code);

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_MALLOC_LIMIT_H_
