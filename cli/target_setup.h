// What every command that runs a target does first: check the target, load the dictionary,
// read the seed directories, settle max_len.
#ifndef POLLEN_CLI_TARGET_SETUP_H_
#define POLLEN_CLI_TARGET_SETUP_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/dictionary.h"
#include "node/single_run.h"

namespace pollen::cli {

// Every regular file below each directory, recursively. A directory that is missing or
// unreadable is an error; so is a file in it that cannot be read.
Status ReadCorpusDirs(const std::vector<std::string>& dirs,
                      std::vector<std::vector<uint8_t>>* inputs);

// The largest seed, at least 4096 and at most 1 MiB, when `requested` is 0.
uint32_t ChooseMaxLen(uint32_t requested, const std::vector<std::vector<uint8_t>>& seeds);

// A dictionary from a file, or an empty one for "".
Result<engine::Dictionary> LoadDictionary(const std::string& path);

std::string BaseName(const std::string& path);

// Prints "ERROR: message" and returns kExitUsage.
int UsageError(const std::string& message);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_TARGET_SETUP_H_
