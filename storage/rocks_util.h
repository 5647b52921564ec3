// Small adapters between RocksDB and the project's conventions: storage/'s corpus stores, and
// the controller's registry (controller/registry_db.cc), which uses RocksDB directly.
//
// Thread safety: all functions are pure or read process-wide constants; call them freely.
#ifndef POLLEN_STORAGE_ROCKS_UTIL_H_
#define POLLEN_STORAGE_ROCKS_UTIL_H_

#include <string>
#include <string_view>

#include "base/status.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace pollen::storage {

inline rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }

inline std::string_view ToView(const rocksdb::Slice& s) {
  return std::string_view(s.data(), s.size());
}

// A key as it should appear in a message: 'key' if printable ASCII, 0x<hex> otherwise.
std::string PrintableKey(std::string_view key);

// Whether RocksDB failed because the database's LOCK file is held (by another process, or by
// another handle of this one: "lock hold by current process").
bool IsLockHeld(const rocksdb::Status& s);

// The class of a failed RocksDB status, for every database of the project (the corpus
// stores here, the controller's registry): corruption is kInvalid (the same again cannot
// succeed), a held lock, Busy, TryAgain and TimedOut kUnavailable (later may), a shutdown
// in progress kInterrupted, anything else kFailed.
StatusCode RocksCode(const rocksdb::Status& s);

// Turns a failed RocksDB status into a Status of class RocksCode(s) naming the store at
// `path` and what was being done. A held LOCK file becomes "store is locked by another
// pollen process"; corruption says so. RocksDB's own message is always kept.
// Precondition: !s.ok().
Status FromRocks(const rocksdb::Status& s, const std::string& path, std::string_view doing);

// The compression for data column families: zstd, else lz4 if this RocksDB lacks zstd,
// else none.
rocksdb::CompressionType ChooseCompression();

// Options of the data column families: ChooseCompression() over large blocks. With
// `bloom_filter`, a Bloom filter (10 bits a key) so that a lookup of an unknown key (HasEntry
// on a new input: the common case) rarely reads a block; a column family only ever asked for
// keys it holds (the inputs) does without.
rocksdb::ColumnFamilyOptions DataColumnFamilyOptions(bool bloom_filter);

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_ROCKS_UTIL_H_
