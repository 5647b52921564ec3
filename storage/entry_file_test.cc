// EntryFile and CorpusStore::IngestEntryFile: entries invisible until ingested, then all
// there (and after a reopen); the rules an entry file keeps; files dropped or left behind.
#include "storage/entry_file.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "storage/corpus_store.h"
#include "storage/store_test_util.h"

namespace pollen::storage {
namespace {

namespace fs = std::filesystem;

const CampaignId kCampaign{"entry_file_target", "build-1"};

class EntryFileTest : public testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrFail(path_, kCampaign);
    ASSERT_NE(store_, nullptr);
  }

  std::unique_ptr<EntryFile> Start() {
    Result<std::unique_ptr<EntryFile>> file = store_->StartEntryFile();
    EXPECT_TRUE(file.ok()) << file.status().message();
    return file.ok() ? std::move(file).value() : nullptr;
  }

  static Status AddText(EntryFile& file, std::string_view key, std::string_view input,
                        std::vector<uint32_t> features = {1, 2, 3}) {
    const std::vector<uint8_t> bytes = Bytes(input);
    return file.Add(key, bytes, MetaFor(input, std::move(features)));
  }

  // Every key of the store, in order (through ForEachEntry).
  std::vector<std::string> Keys() {
    std::vector<std::string> keys;
    Status s = store_->ForEachEntry([&](std::string_view key, const EntryMeta&) {
      keys.emplace_back(key);
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.message();
    return keys;
  }

  size_t FilesWaiting() const {
    std::error_code ec;
    if (!fs::exists(path_ + "/ingest", ec)) return 0;
    size_t n = 0;
    for (auto it = fs::directory_iterator(path_ + "/ingest", ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      n++;
    }
    return n;
  }

  ScratchDir dir_;
  const std::string path_ = dir_.Sub("store");
  std::unique_ptr<CorpusStore> store_;
};

TEST_F(EntryFileTest, EntriesAreInvisibleUntilIngestedThenAllThereAfterAReopen) {
  std::unique_ptr<EntryFile> file = Start();
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(AddText(*file, "a", "first input").ok());
  ASSERT_TRUE(AddText(*file, "b", "second", {7, 9}).ok());
  EXPECT_EQ(file->entries(), 2u);
  EXPECT_EQ(file->bytes(), 17u);
  EXPECT_FALSE(store_->HasEntry("a")) << "visible before the ingestion";
  EXPECT_EQ(FilesWaiting(), 2u) << "inputs and metadata";
  ASSERT_TRUE(store_->IngestEntryFile(std::move(file)).ok());
  EXPECT_EQ(FilesWaiting(), 0u) << "moved into the store";
  EXPECT_EQ(Keys(), (std::vector<std::string>{"a", "b"}));

  store_.reset();
  store_ = OpenOrFail(path_, kCampaign);
  ASSERT_NE(store_, nullptr);
  Result<std::vector<uint8_t>> input = store_->GetInput("b");
  ASSERT_TRUE(input.ok()) << input.status().message();
  EXPECT_EQ(*input, Bytes("second"));
  Result<EntryMeta> meta = store_->GetMeta("b");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->features, (std::vector<uint32_t>{7, 9}));
  EXPECT_EQ(meta->origin, "seed");
}

// Ingested keys may fall between keys already there, in files and in the memtable.
TEST_F(EntryFileTest, IngestedEntriesInterleaveWithWrittenOnes) {
  ASSERT_TRUE(PutText(*store_, "b", "in a file").ok());
  ASSERT_TRUE(store_->Flush().ok());
  ASSERT_TRUE(PutText(*store_, "d", "in the memtable").ok());
  std::unique_ptr<EntryFile> file = Start();
  ASSERT_NE(file, nullptr);
  for (const char* key : {"a", "c", "e"}) ASSERT_TRUE(AddText(*file, key, key).ok());
  ASSERT_TRUE(store_->IngestEntryFile(std::move(file)).ok());
  EXPECT_EQ(Keys(), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  Result<std::vector<uint8_t>> input = store_->GetInput("d");
  ASSERT_TRUE(input.ok()) << input.status().message();
  EXPECT_EQ(*input, Bytes("in the memtable"));
}

TEST_F(EntryFileTest, KeysMustAscendAndABrokenRuleLeavesTheFileAsItWas) {
  std::unique_ptr<EntryFile> file = Start();
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(AddText(*file, "m", "one").ok());
  ExpectErrorMentions(AddText(*file, "a", "two"), {"'a'", "after 'm'", "keys must ascend"});
  ExpectErrorMentions(AddText(*file, "m", "two"), {"keys must ascend"});
  ExpectErrorMentions(AddText(*file, "", "two"), {"the hash is empty"});
  std::vector<uint8_t> bytes = Bytes("four");
  EntryMeta wrong_size = MetaFor("four!");
  ExpectErrorMentions(file->Add("z", bytes, wrong_size), {"meta.size is 5", "has 4 bytes"});
  ExpectErrorMentions(AddText(*file, "z", "unsorted", {3, 1}), {"not sorted"});
  EXPECT_EQ(file->entries(), 1u);
  ASSERT_TRUE(AddText(*file, "n", "two").ok());
  ASSERT_TRUE(store_->IngestEntryFile(std::move(file)).ok());
  EXPECT_EQ(Keys(), (std::vector<std::string>{"m", "n"}));
}

TEST_F(EntryFileTest, AnEmptyFileAddsNothingAndADroppedOneLeavesNothing) {
  std::unique_ptr<EntryFile> empty = Start();
  ASSERT_NE(empty, nullptr);
  ASSERT_TRUE(store_->IngestEntryFile(std::move(empty)).ok());
  std::unique_ptr<EntryFile> dropped = Start();
  ASSERT_NE(dropped, nullptr);
  ASSERT_TRUE(AddText(*dropped, "a", "never ingested").ok());
  EXPECT_EQ(FilesWaiting(), 2u);
  dropped.reset();
  EXPECT_EQ(FilesWaiting(), 0u);
  EXPECT_TRUE(Keys().empty());
}

// A writer that died with a file open left it in <store>/ingest: the next writer deletes it,
// and its entries never appear.
TEST_F(EntryFileTest, FilesLeftByAnEarlierWriterAreDeletedWhenTheStoreOpens) {
  std::unique_ptr<EntryFile> file = Start();
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(AddText(*file, "a", "left behind").ok());
  // As a crash would leave them: copies, since the file deletes its own when dropped.
  fs::copy(path_ + "/ingest", dir_.Sub("left"));
  file.reset();
  store_.reset();
  fs::copy(dir_.Sub("left"), path_ + "/ingest");
  ASSERT_EQ(FilesWaiting(), 2u);
  StoreOptions read_only;
  read_only.read_only = true;
  ASSERT_NE(OpenOrFail(path_, kCampaign, read_only), nullptr);
  EXPECT_EQ(FilesWaiting(), 2u) << "a reader must not delete a writer's files";
  store_ = OpenOrFail(path_, kCampaign);
  ASSERT_NE(store_, nullptr);
  EXPECT_EQ(FilesWaiting(), 0u);
  EXPECT_TRUE(Keys().empty());
}

// A Compact that chooses a new counter table while a file is open: the file's metadata is
// laid out over the old one, which Compact deletes, so the file is refused.
TEST_F(EntryFileTest, ACompactionWhileAFileIsOpenMakesItsIngestionFail) {
  for (int i = 0; i < 20; i++) {
    ASSERT_TRUE(PutText(*store_, "entry " + std::to_string(i), std::to_string(i)).ok());
  }
  std::unique_ptr<EntryFile> file = Start();
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(AddText(*file, "z1", "before").ok());
  ASSERT_TRUE(store_->Compact().ok());
  ExpectErrorMentions(AddText(*file, "z2", "after"), {"counter table changed"});
  ExpectErrorMentions(store_->IngestEntryFile(std::move(file)),
                      {"counter table changed", "1 entries are not added"});
  EXPECT_FALSE(store_->HasEntry("z1"));
  std::unique_ptr<EntryFile> next = Start();  // over the new table
  ASSERT_NE(next, nullptr);
  ASSERT_TRUE(AddText(*next, "z1", "again").ok());
  ASSERT_TRUE(store_->IngestEntryFile(std::move(next)).ok());
  Result<EntryMeta> meta = store_->GetMeta("z1");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->features, (std::vector<uint32_t>{1, 2, 3}));
}

TEST_F(EntryFileTest, AReadOnlyStoreStartsNoFile) {
  store_.reset();
  StoreOptions read_only;
  read_only.read_only = true;
  store_ = OpenOrFail(path_, kCampaign, read_only);
  ASSERT_NE(store_, nullptr);
  Result<std::unique_ptr<EntryFile>> file = store_->StartEntryFile();
  ExpectErrorMentions(file.status(), {"read-only", "start an entry file"});
}

}  // namespace
}  // namespace pollen::storage
