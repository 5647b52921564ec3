#include "storage/block_policy.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rocksdb/db.h"
#include "storage/rocks_util.h"
#include "storage/store_test_util.h"

namespace pollen::storage {
namespace {

// Writes `values` (keys in order) into one table with the data column families' options, and
// returns that table's number of data blocks.
uint64_t DataBlocksFor(const std::vector<std::string>& values) {
  ScratchDir dir;
  rocksdb::Options options(rocksdb::DBOptions(), DataColumnFamilyOptions(false));
  options.create_if_missing = true;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, dir.Sub("db"), &raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return 0;
  std::unique_ptr<rocksdb::DB> db(raw);
  for (size_t i = 0; i < values.size(); i++) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%08zu", i);
    EXPECT_TRUE(db->Put(rocksdb::WriteOptions(), key, values[i]).ok());
  }
  EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  rocksdb::TablePropertiesCollection tables;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(&tables).ok());
  EXPECT_EQ(tables.size(), 1u);
  uint64_t blocks = 0;
  for (const auto& [name, properties] : tables) blocks += properties->num_data_blocks;
  return blocks;
}

// Incompressible bytes, so that block sizes are what was written.
std::string Noise(size_t size, uint32_t seed) {
  std::string s(size, '\0');
  for (char& c : s) {
    seed = seed * 1664525u + 1013904223u;
    c = static_cast<char>(seed >> 24);
  }
  return s;
}

TEST(BlockPolicyTest, EachLargeValueHasABlockOfItsOwn) {
  // Ten 100 KB values: three to a 256 KiB block by RocksDB's default size policy.
  std::vector<std::string> values;
  for (uint32_t i = 0; i < 10; i++) values.push_back(Noise(100 * 1000, i));
  EXPECT_EQ(DataBlocksFor(values), 10u);
}

TEST(BlockPolicyTest, SmallValuesStillShareBlocks) {
  // 1,000 values of 1 KB: about 1 MB, four blocks of 256 KiB (one per value would be 1,000).
  std::vector<std::string> values;
  for (uint32_t i = 0; i < 1000; i++) values.push_back(Noise(1000, i));
  const uint64_t blocks = DataBlocksFor(values);
  EXPECT_GE(blocks, 4u);
  EXPECT_LE(blocks, 5u);
}

TEST(BlockPolicyTest, ALargeValueEndsTheBlockBeforeAndAfterIt) {
  // small, small, large, small, large just over the threshold, small: the small runs
  // around the large values are blocks of their own.
  const std::vector<std::string> values = {Noise(1000, 1),
                                           Noise(1000, 2),
                                           Noise(100 * 1000, 3),
                                           Noise(1000, 4),
                                           Noise(kOwnBlockValueBytes, 5),
                                           Noise(1000, 6)};
  EXPECT_EQ(DataBlocksFor(values), 5u);
}

}  // namespace
}  // namespace pollen::storage
