// Text files (the nightly's state, reports and campaign files, the learned dictionary): read whole,
// and written so that a reader or a crash never sees half of one.
#ifndef POLLEN_NODE_TEXT_FILE_H_
#define POLLEN_NODE_TEXT_FILE_H_

#include <string>

#include "base/status.h"

namespace pollen::node {

// The whole file (node::ReadWholeFile). Errors name the path.
Result<std::string> ReadTextFile(const std::string& path);

// Writes `text` to PATH.tmp, syncs it and renames it over `path`. Errors name the file.
Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace pollen::node

#endif  // POLLEN_NODE_TEXT_FILE_H_
