// RocksDB's info log, sent to spdlog instead of a LOG file in the store.
//
// RocksDB writes a LOG file into every database directory and, at each open, dumps every
// option of every column family into it (about 100 KB a time, kept for the last four
// opens): a corpus of a few hundred inputs had 330 KB of LOG files beside 100 KB of data,
// and `pollen corpus stats` counts every byte of the directory. Pollen reports the store's
// state through its own errors and status lines, so this logger keeps only what needs a
// human: RocksDB's errors, as spdlog errors naming the store; its warnings (mostly write
// stalls under bulk loads) at spdlog's debug level (docs/decisions.md, "No RocksDB LOG
// files").
//
// Thread safety: RocksDB calls Logv from its background threads; spdlog's default logger
// is thread-safe and the logger holds nothing else but the immutable path.
#ifndef POLLEN_STORAGE_ROCKS_LOGGER_H_
#define POLLEN_STORAGE_ROCKS_LOGGER_H_

#include <memory>
#include <string>

#include "rocksdb/env.h"

namespace pollen::storage {

// A logger for DBOptions::info_log of the store at `path`: ERROR and FATAL go to spdlog as
// errors, WARN as debug messages; the rest (INFO, DEBUG, the HEADER options dump) is dropped.
std::shared_ptr<rocksdb::Logger> NewRocksLogger(const std::string& path);

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_ROCKS_LOGGER_H_
