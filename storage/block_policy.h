// When RocksDB cuts a data block (internal to storage/): entries pack into blocks of
// block_size as RocksDB does by default, except a large value, which gets a block of its own.
//
// Why: the data column families use 256 KiB blocks (rocks_util.cc), so that zstd sees many
// small entries at once. With the default policy a 100 KB input shares a block of about
// 300 KB with two others, and a point lookup reads, checksums and decompresses all three:
// a pull that reads inputs out of key order (the corpus/ stream reads pushed inputs by hash,
// their store keeps them in push order) moved three times the bytes it sent. On its own
// block, a large value costs a lookup its own size; it loses little compression, being
// large enough to compress on its own (docs/decisions.md, "A large input gets a block of
// its own").
//
// Thread safety: the factory is immutable; RocksDB makes one policy per table it builds.
#ifndef POLLEN_STORAGE_BLOCK_POLICY_H_
#define POLLEN_STORAGE_BLOCK_POLICY_H_

#include <cstddef>
#include <memory>

#include "rocksdb/flush_block_policy.h"

namespace pollen::storage {

// Values of at least this many bytes are large: one eighth of the 256 KiB block.
inline constexpr size_t kOwnBlockValueBytes = 32 * 1024;

class LargeValueBlockPolicyFactory : public rocksdb::FlushBlockPolicyFactory {
 public:
  static const char* kClassName() { return "PollenLargeValueBlockPolicyFactory"; }
  const char* Name() const override { return kClassName(); }

  rocksdb::FlushBlockPolicy* NewFlushBlockPolicy(
      const rocksdb::BlockBasedTableOptions& table_options,
      const rocksdb::BlockBuilder& data_block_builder) const override;
};

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_BLOCK_POLICY_H_
