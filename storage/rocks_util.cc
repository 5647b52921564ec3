#include "storage/rocks_util.h"

#include <algorithm>
#include <vector>

#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "storage/block_policy.h"

namespace pollen::storage {

std::string PrintableKey(std::string_view key) {
  const bool printable = std::all_of(key.begin(), key.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
  });
  if (printable) return "'" + std::string(key) + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex = "0x";
  for (char c : key) {
    hex.push_back(kHex[static_cast<unsigned char>(c) >> 4]);
    hex.push_back(kHex[static_cast<unsigned char>(c) & 0xf]);
  }
  return hex;
}

bool IsLockHeld(const rocksdb::Status& s) {
  // RocksDB reports a held LOCK file as an IO error, "While lock file: <path>/LOCK: Resource
  // temporarily unavailable" for another process and "lock hold by current process, ...:
  // <path>/LOCK" for this one. Other errors on the LOCK file (it cannot be opened: "while open
  // a file for lock", a read-only file system) are not a held lock.
  if (!s.IsIOError()) return false;
  const std::string text = s.ToString();
  return text.find("While lock file") != std::string::npos ||
         text.find("lock hold by current process") != std::string::npos;
}

StatusCode RocksCode(const rocksdb::Status& s) {
  if (s.ok()) return StatusCode::kOk;
  if (s.IsCorruption()) return StatusCode::kInvalid;
  if (IsLockHeld(s) || s.IsBusy() || s.IsTryAgain() || s.IsTimedOut()) {
    return StatusCode::kUnavailable;
  }
  if (s.IsShutdownInProgress()) return StatusCode::kInterrupted;
  return StatusCode::kFailed;
}

Status FromRocks(const rocksdb::Status& s, const std::string& path, std::string_view doing) {
  const std::string rocks = s.ToString();
  const StatusCode code = RocksCode(s);
  if (IsLockHeld(s)) {
    const bool here = rocks.find("current process") != std::string::npos;
    return Status::Error(code,
                         "corpus store " + path + ": store is locked by another pollen process" +
                             (here ? " (here: by another CorpusStore of this process)" : "") +
                             " (one writer per store; open it read-only to read it meanwhile); "
                             "rocksdb: " +
                             rocks);
  }
  if (s.IsCorruption()) {
    return Status::Error(code, "corpus store " + path + " is corrupted (while " +
                                   std::string(doing) + "); rocksdb: " + rocks);
  }
  return Status::Error(
      code, "corpus store " + path + ": " + std::string(doing) + " failed; rocksdb: " + rocks);
}

rocksdb::CompressionType ChooseCompression() {
  const std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  for (rocksdb::CompressionType wanted : {rocksdb::kZSTD, rocksdb::kLZ4Compression}) {
    if (std::find(supported.begin(), supported.end(), wanted) != supported.end()) return wanted;
  }
  return rocksdb::kNoCompression;
}

rocksdb::ColumnFamilyOptions DataColumnFamilyOptions(bool bloom_filter) {
  rocksdb::ColumnFamilyOptions options;
  options.compression = ChooseCompression();
  // Corpus entries are many small, similar records, and zstd only finds what they share
  // inside one block (its window) or in the file's dictionary. A 256 KiB block holds the
  // metadata of a thousand jsoncpp entries: on the jsoncpp store of docs/benchmarks.md, the
  // metadata takes 67 KB with them against 87 KB with 16 KiB blocks and the dictionary, the
  // inputs 38 KB against 54 KB. The cost is at most one 256 KiB decompression per point
  // lookup, and lookups are rare (HasEntry on a known input, a merge reading what it
  // selected; both mostly in key order, so from the block cache).
  //
  // Two strengths (docs/decisions.md, "Compression strength by level"): memtable flushes
  // and compactions into upper levels use zstd level 1 without a dictionary, which keeps
  // pace with writes (text: about 350 MB/s against 57 MB/s at level 9 on one core); the
  // last level, where a settled store lives (every compaction, merge and `corpus compact`
  // ends there), uses level 9 with a 16 KiB dictionary trained once a file holds many
  // blocks (a store of a few blocks gets none: it would cost more than it saves).
  options.compression_opts.level = 1;
  options.bottommost_compression = options.compression;
  options.bottommost_compression_opts.enabled = true;
  options.bottommost_compression_opts.level = 9;
  options.bottommost_compression_opts.max_dict_bytes = 16 * 1024;
  options.bottommost_compression_opts.zstd_max_train_bytes = 100 * 16 * 1024;
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 256 * 1024;
  // XXH3 instead of the default CRC32c for block checksums: Debian's RocksDB computes CRC32c
  // in portable code, which took a fifth of a flush of large inputs; files record their own
  // checksum type, so stores written before read as ever.
  table.checksum = rocksdb::kXXH3;
  table.flush_block_policy_factory = std::make_shared<LargeValueBlockPolicyFactory>();
  if (bloom_filter) table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

}  // namespace pollen::storage
