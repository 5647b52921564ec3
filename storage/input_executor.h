// How storage asks for an input to be executed, when it needs features it does not have
// (a merge of inputs from a directory, or of entries recorded for another build).
//
// storage/ cannot run targets itself (the dependency rule: node/ depends on storage/, not
// the other way); node/ implements this interface with worker processes
// (node/worker_executor.h), and tests implement it with a plain function.
#ifndef POLLEN_STORAGE_INPUT_EXECUTOR_H_
#define POLLEN_STORAGE_INPUT_EXECUTOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace pollen::storage {

struct ExecutionResult {
  bool failed = false;             // the input crashed, hung or ran out of memory
  std::string failure_kind;        // when failed: "SEGV", "timeout", "oom", ...
  std::string failure_signature;   // when failed: the deduplication signature, if known
  std::string failure_report;      // when failed: the report with its stack, if any
  std::vector<uint32_t> features;  // when not failed: sorted, unique
  uint64_t exec_time_us = 0;
};

class InputExecutor {
 public:
  virtual ~InputExecutor() = default;
  // Runs one input. A failing input is a result (failed = true), not an error; an error
  // means the executor itself cannot go on (the target cannot be started at all).
  // Not thread-safe: one call at a time.
  virtual Result<ExecutionResult> Execute(const uint8_t* data, size_t size) = 0;
};

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_INPUT_EXECUTOR_H_
