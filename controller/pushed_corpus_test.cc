// PushedCorpus and PushSink: numbering, duplicates, and durability (entries skip the
// write-ahead log, so nodes and resume cursors may only rely on flushed ones).
#include "controller/pushed_corpus.h"

#include <gtest/gtest.h>

#include <string>

#include "controller/controller_test_util.h"
#include "controller/push_sink.h"
#include "controller/registry_db.h"

namespace pollen::controller {
namespace {

using testing::TempDir;

TEST(PushedCorpusTest, NumbersNewInputsAndFindsDuplicates) {
  TempDir dir;
  auto pushed = PushedCorpus::Open(dir.path() + "/pushed", "json_fuzzer").value();
  EXPECT_EQ(pushed->Add("one", "push:a", 1).value().seq, 1u);
  EXPECT_EQ(pushed->Add("two", "push:a", 2).value().seq, 2u);
  PushedCorpus::Added again = pushed->Add("one", "push:b", 3).value();
  EXPECT_FALSE(again.added);
  EXPECT_EQ(again.seq, 1u);
  EXPECT_EQ(pushed->last_seq(), 2u);
  std::string data;
  ASSERT_TRUE(pushed->Read(2, &data).ok());
  EXPECT_EQ(data, "two");
}

TEST(PushedCorpusTest, EntriesAreDurableOnlyOnceFlushed) {
  TempDir dir;
  const std::string path = dir.path() + "/pushed";
  {
    auto pushed = PushedCorpus::Open(path, "json_fuzzer").value();
    ASSERT_TRUE(pushed->Add("one", "push:a", 1).ok());
    ASSERT_TRUE(pushed->Add("two", "push:a", 2).ok());
    EXPECT_EQ(pushed->durable_seq(), 0u) << "in memory only: not to be announced to nodes";
    ASSERT_TRUE(pushed->MakeDurable().ok());
    EXPECT_EQ(pushed->durable_seq(), 2u);
    ASSERT_TRUE(pushed->Add("three", "push:a", 3).ok());
    EXPECT_EQ(pushed->durable_seq(), 2u);
  }  // a clean close flushes the rest
  auto reopened = PushedCorpus::Open(path, "json_fuzzer").value();
  EXPECT_EQ(reopened->last_seq(), 3u);
  EXPECT_EQ(reopened->durable_seq(), 3u);
}

class PushSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pushed_ = PushedCorpus::Open(dir_.path() + "/pushed", "json_fuzzer").value();
    db_ = RegistryDb::Open(dir_.path() + "/registry").value();
  }
  std::string Cursor() { return PushSink::ReadCursor(*db_, "json", "push-1").value(); }
  static std::string Name(int i) { return "seed-" + std::to_string(1000 + i); }

  TempDir dir_;
  std::unique_ptr<PushedCorpus> pushed_;
  std::unique_ptr<RegistryDb> db_;
};

// 200 small records stay in one memtable: no cursor may be written while none is durable;
// an interrupted push then makes them durable and keeps the last name.
TEST_F(PushSinkTest, WritesNoCursorBeforeItsRecordsAreDurable) {
  PushSink sink(pushed_.get(), db_.get(), "json", "push-1", [] { return int64_t{1}; });
  for (int i = 0; i < 200; i++) {
    ASSERT_TRUE(sink.Commit(Name(i), "input " + std::to_string(i)).ok());
  }
  EXPECT_EQ(Cursor(), "") << "a cursor naming records a crash would lose";
  ASSERT_TRUE(sink.Finish(/*complete=*/false).ok());
  EXPECT_EQ(Cursor(), Name(199));
  EXPECT_EQ(pushed_->durable_seq(), 200u);
}

// Once entries are durable, the next candidate cursor (every 64 records) is written.
TEST_F(PushSinkTest, WritesTheCursorOfDurableRecords) {
  PushSink sink(pushed_.get(), db_.get(), "json", "push-1", [] { return int64_t{1}; });
  for (int i = 0; i < 64; i++) ASSERT_TRUE(sink.Commit(Name(i), "a" + std::to_string(i)).ok());
  ASSERT_TRUE(pushed_->MakeDurable().ok());  // as RocksDB's own flush would
  for (int i = 64; i < 128; i++) ASSERT_TRUE(sink.Commit(Name(i), "a" + std::to_string(i)).ok());
  EXPECT_EQ(Cursor(), Name(63));
  ASSERT_TRUE(sink.Finish(/*complete=*/true).ok());
  EXPECT_EQ(Cursor(), "") << "a complete push leaves no cursor";
  EXPECT_EQ(sink.added(), 128u);
}

// A record whose input was pushed earlier (and is not durable yet) holds the cursor back too.
TEST_F(PushSinkTest, ADuplicateNeedsItsEarlierEntryDurable) {
  PushSink first(pushed_.get(), db_.get(), "json", "push-0", [] { return int64_t{1}; });
  ASSERT_TRUE(first.Commit("x", "shared input").ok());
  PushSink sink(pushed_.get(), db_.get(), "json", "push-1", [] { return int64_t{1}; });
  for (int i = 0; i < 64; i++) ASSERT_TRUE(sink.Commit(Name(i), "shared input").ok());
  EXPECT_EQ(sink.duplicates(), 64u);
  EXPECT_EQ(Cursor(), "");
}

}  // namespace
}  // namespace pollen::controller
