// Deciding what a store path holds before RocksDB touches it.
//
// RocksDB's create_if_missing would happily create a database inside any directory; the
// storage layer only creates one where nothing else lives, so that a mistyped path never
// scatters files among somebody else's (and never "resets" anything).
#ifndef POLLEN_STORAGE_STORE_PATH_H_
#define POLLEN_STORAGE_STORE_PATH_H_

#include <string>

#include "base/status.h"

namespace pollen::storage {

enum class StorePathKind {
  kAbsentOrEmpty,  // may become a new store
  kDatabase,       // a directory holding a RocksDB database (CURRENT file)
};

// Classifies `path`. Errors (naming `path`): a non-directory, a non-empty directory without
// a RocksDB database, or a path that cannot be inspected. Thread-safe; reads the filesystem.
Result<StorePathKind> InspectStorePath(const std::string& path);

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_STORE_PATH_H_
