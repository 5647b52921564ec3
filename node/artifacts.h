// Failure artifacts in the work directory, named like libFuzzer's: crash-<sha1>,
// timeout-<sha1>, oom-<sha1>, leak-<sha1>; beside each, <name>.txt with the kind, the
// signature, the summary and the report with its stack.
#ifndef POLLEN_NODE_ARTIFACTS_H_
#define POLLEN_NODE_ARTIFACTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "node/failure.h"

namespace pollen::node {

// The file name prefix for a failure kind (crash, timeout, hang, oom, leak).
std::string ArtifactPrefix(const std::string& kind);

// Writes the input and its report into `dir` (created if needed); returns the input's path.
Result<std::string> SaveArtifact(const std::string& dir, const std::vector<uint8_t>& input,
                                 const Failure& failure, const std::string& target);

// Reads a whole file; a clear error when it cannot.
Result<std::vector<uint8_t>> ReadWholeFile(const std::string& path);

// Creates a directory and its parents.
Status MakeDirs(const std::string& path);

}  // namespace pollen::node

#endif  // POLLEN_NODE_ARTIFACTS_H_
