#include "storage/block_policy.h"

#include "rocksdb/slice.h"

namespace pollen::storage {
namespace {

// RocksDB's size policy for runs of small entries; a cut before and after each large value.
class LargeValueBlockPolicy : public rocksdb::FlushBlockPolicy {
 public:
  explicit LargeValueBlockPolicy(rocksdb::FlushBlockPolicy* by_size) : by_size_(by_size) {}

  // True: the current block ends before this entry.
  bool Update(const rocksdb::Slice& key, const rocksdb::Slice& value) override {
    const bool large = value.size() >= kOwnBlockValueBytes;
    const bool cut = started_ && (large || last_large_ || by_size_->Update(key, value));
    started_ = true;
    last_large_ = large;
    return cut;
  }

 private:
  std::unique_ptr<rocksdb::FlushBlockPolicy> by_size_;
  bool started_ = false;     // the table has an entry: a block is open
  bool last_large_ = false;  // the open block holds a large value
};

}  // namespace

rocksdb::FlushBlockPolicy* LargeValueBlockPolicyFactory::NewFlushBlockPolicy(
    const rocksdb::BlockBasedTableOptions& table_options,
    const rocksdb::BlockBuilder& data_block_builder) const {
  return new LargeValueBlockPolicy(rocksdb::FlushBlockBySizePolicyFactory::NewFlushBlockPolicy(
      table_options.block_size, table_options.block_size_deviation, data_block_builder));
}

}  // namespace pollen::storage
