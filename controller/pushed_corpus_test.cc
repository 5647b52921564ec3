// PushedCorpus and PushSink: numbering, duplicates, and durability (entries are written as
// files and ingested, so nodes, readers and resume cursors may only rely on ingested ones),
// and what a failed write costs.
#include "controller/pushed_corpus.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/sha1.h"
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
  EXPECT_FALSE(again.added) << "a duplicate of an entry not ingested yet";
  EXPECT_EQ(again.seq, 1u);
  EXPECT_EQ(pushed->last_seq(), 2u);
  ASSERT_TRUE(pushed->MakeDurable().ok());
  EXPECT_FALSE(pushed->Add("two", "push:c", 4).value().added);
  std::string data;
  ASSERT_TRUE(pushed->Read(2, &data).ok());
  EXPECT_EQ(data, "two");
}

TEST(PushedCorpusTest, EntriesAreDurableAndReadableOnlyOnceIngested) {
  TempDir dir;
  const std::string path = dir.path() + "/pushed";
  {
    auto pushed = PushedCorpus::Open(path, "json_fuzzer").value();
    ASSERT_TRUE(pushed->Add("one", "push:a", 1).ok());
    ASSERT_TRUE(pushed->Add("two", "push:a", 2).ok());
    EXPECT_EQ(pushed->durable_seq(), 0u) << "not ingested: not to be announced to nodes";
    EXPECT_TRUE(pushed->ByHashAfter("").empty());
    std::string data;
    EXPECT_FALSE(pushed->Read(1, &data).ok());
    ASSERT_TRUE(pushed->MakeDurable().ok());
    EXPECT_EQ(pushed->durable_seq(), 2u);
    EXPECT_EQ(pushed->ByHashAfter("").size(), 2u);
    ASSERT_TRUE(pushed->Read(1, &data).ok());
    EXPECT_EQ(data, "one");
    ASSERT_TRUE(pushed->Add("three", "push:a", 3).ok());
    EXPECT_EQ(pushed->durable_seq(), 2u);
  }  // a clean close ingests the rest
  auto reopened = PushedCorpus::Open(path, "json_fuzzer").value();
  EXPECT_EQ(reopened->last_seq(), 3u);
  EXPECT_EQ(reopened->durable_seq(), 3u);
}

// A full file is sealed and ingested in the background while the next one fills; with two
// files in flight, sealing a third waits for the first, so its entries are durable by then.
TEST(PushedCorpusTest, FullFilesAreIngestedInTheBackgroundInOrder) {
  TempDir dir;
  const std::string path = dir.path() + "/pushed";
  constexpr uint64_t kSeal = 100 * 1000;
  auto pushed = PushedCorpus::Open(path, "json_fuzzer", kSeal).value();
  uint64_t most_durable = 0;
  for (int i = 0; i < 40; i++) {  // 10 entries of 10 KB a file: four files sealed
    ASSERT_TRUE(
        pushed->Add(std::string(10000, 'a' + i % 26) + std::to_string(i), "push:a", 1).ok());
    const uint64_t durable = pushed->durable_seq();
    EXPECT_EQ(durable % 10, 0u) << "a file at a time";
    EXPECT_GE(durable, most_durable) << "in order";
    most_durable = durable;
  }
  EXPECT_GE(most_durable, 10u) << "the third seal waited for the first file";
  std::string data;
  ASSERT_TRUE(pushed->Read(10, &data).ok());
  EXPECT_EQ(data, std::string(10000, 'j') + "9");
  ASSERT_TRUE(pushed->MakeDurable().ok());
  EXPECT_EQ(pushed->durable_seq(), 40u);
  pushed.reset();
  auto reopened = PushedCorpus::Open(path, "json_fuzzer").value();
  EXPECT_EQ(reopened->durable_seq(), 40u);
}

// Deletes the open file's files under the store, so that its ingestion fails.
void BreakOpenFile(const std::string& store) {
  for (const auto& file : std::filesystem::directory_iterator(store + "/ingest")) {
    std::filesystem::remove(file.path());
  }
}

// A file whose ingestion fails in the background: its entries are dropped when the failure
// is found, and numbering goes on from the last durable entry.
TEST(PushedCorpusTest, AFailedBackgroundIngestionDropsItsEntries) {
  TempDir dir;
  const std::string path = dir.path() + "/pushed";
  auto pushed = PushedCorpus::Open(path, "json_fuzzer", /*seal_bytes=*/10).value();
  ASSERT_TRUE(pushed->Add("0123456789 first", "push:a", 1).ok());  // sealed at once
  ASSERT_TRUE(pushed->MakeDurable().ok());
  ASSERT_TRUE(pushed->Add("012345 second", "push:a", 1).ok());  // opens a file: not sealed
  BreakOpenFile(path);
  ASSERT_TRUE(pushed->Add("9876 third", "push:a", 1).ok());  // sealed, fails in background
  EXPECT_LE(pushed->durable_seq(), 1u);
  // MakeDurable answers with the failure when its wait finds it, and ok when the ingestion
  // had already failed and its start settled it (a TSan run saw both): the entries are
  // dropped either way, and the loss is what tells a push (PushSink).
  (void)pushed->MakeDurable();
  uint64_t seen = 0;
  EXPECT_EQ(pushed->LossSince(&seen), 1u);
  EXPECT_EQ(pushed->durable_seq(), 1u);
  EXPECT_EQ(pushed->last_seq(), 1u);
  const std::string third = "9876 third";
  EXPECT_FALSE(
      pushed->Contains(base::Sha1(reinterpret_cast<const uint8_t*>(third.data()), third.size())));
  EXPECT_EQ(pushed->Add("0123456789 fifth", "push:a", 1).value().seq, 2u);
  ASSERT_TRUE(pushed->MakeDurable().ok());
  std::string data;
  ASSERT_TRUE(pushed->Read(2, &data).ok());
  EXPECT_EQ(data, "0123456789 fifth");
}

// The same failure, ended before MakeDurable is called: settled, recorded as a loss, and the
// corpus durable again.
TEST(PushedCorpusTest, AnIngestionThatFailedBeforeMakeDurableIsALoss) {
  TempDir dir;
  const std::string path = dir.path() + "/pushed";
  auto pushed = PushedCorpus::Open(path, "json_fuzzer", /*seal_bytes=*/10).value();
  ASSERT_TRUE(pushed->Add("012345 second", "push:a", 1).ok());  // opens a file: not sealed
  BreakOpenFile(path);
  ASSERT_TRUE(pushed->Add("9876 third", "push:a", 1).ok());  // sealed, fails in background
  pushed->WaitForIngestions();
  EXPECT_TRUE(pushed->MakeDurable().ok());  // nothing left that is not durable
  uint64_t seen = 0;
  EXPECT_EQ(pushed->LossSince(&seen), 0u);
  EXPECT_EQ(pushed->last_seq(), 0u);
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

// 200 small records stay in one open file: no cursor may be written while none is durable;
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
  ASSERT_TRUE(pushed_->MakeDurable().ok());  // as a file reaching 64 MB would
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

// A background ingestion that failed before the push ends, found only when the push's end
// makes everything durable: the push must not be reported complete.
TEST(PushedCorpusTest, APushWhoseFileFailedInTheBackgroundFails) {
  TempDir dir;
  const std::string path = dir.path() + "/pushed";
  auto pushed = PushedCorpus::Open(path, "json_fuzzer", /*seal_bytes=*/10).value();
  auto db = RegistryDb::Open(dir.path() + "/registry").value();
  PushSink sink(pushed.get(), db.get(), "json", "push-1", [] { return int64_t{1}; });
  ASSERT_TRUE(sink.Commit("r0", "x").ok());  // opens a file
  BreakOpenFile(path);
  ASSERT_TRUE(sink.Commit("r1", "0123456789").ok());  // seals it: fails in the background
  pushed->WaitForIngestions();
  EXPECT_FALSE(sink.Finish(/*complete=*/true).ok());
  EXPECT_EQ(pushed->last_seq(), 0u);
  EXPECT_EQ(PushSink::ReadCursor(*db, "json", "push-1").value(), "") << "nothing durable";
}

// A failed ingestion drops the entries not durable, those of every push to the campaign:
// each push whose records were among them fails, its cursor at the last record known
// durable; a push whose records were all durable is not affected; the numbers are given
// again.
TEST_F(PushSinkTest, AFailedWriteFailsEachPushThatLostRecordsAndKeepsTheirDurableCursors) {
  PushSink a(pushed_.get(), db_.get(), "json", "push-1", [] { return int64_t{1}; });
  for (int i = 0; i < 64; i++) ASSERT_TRUE(a.Commit(Name(i), "a" + std::to_string(i)).ok());
  ASSERT_TRUE(pushed_->MakeDurable().ok());
  PushSink durable(pushed_.get(), db_.get(), "json", "push-2", [] { return int64_t{1}; });
  ASSERT_TRUE(durable.Commit("d", "a5").ok());  // a duplicate of a durable entry
  for (int i = 64; i < 128; i++) ASSERT_TRUE(a.Commit(Name(i), "a" + std::to_string(i)).ok());
  EXPECT_EQ(Cursor(), Name(63));
  PushSink b(pushed_.get(), db_.get(), "json", "push-3", [] { return int64_t{1}; });
  ASSERT_TRUE(b.Commit("b", "b0").ok());
  EXPECT_EQ(pushed_->last_seq(), 129u);

  BreakOpenFile(dir_.path() + "/pushed");
  Status failed = b.Finish(/*complete=*/true);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(pushed_->last_seq(), 64u) << "entries 65-129 dropped";
  EXPECT_EQ(pushed_->durable_seq(), 64u);
  EXPECT_EQ(PushSink::ReadCursor(*db_, "json", "push-3").value(), "");

  Status lost = a.Commit(Name(128), "a128");
  ASSERT_FALSE(lost.ok());
  EXPECT_NE(lost.message().find("dropped records of this push after '" + Name(63) + "'"),
            std::string::npos)
      << lost.message();
  ASSERT_FALSE(a.Finish(/*complete=*/false).ok());
  EXPECT_EQ(Cursor(), Name(63)) << "the resume point: records after it are sent again";

  ASSERT_TRUE(durable.Finish(/*complete=*/true).ok()) << "its record is in a durable entry";
  PushedCorpus::Added next = pushed_->Add("new", "push:4", 1).value();
  EXPECT_EQ(next.seq, 65u);
  EXPECT_TRUE(pushed_->Add("a64", "push:4", 1).value().added) << "a64 was dropped";
  ASSERT_TRUE(pushed_->MakeDurable().ok());
  std::string data;
  ASSERT_TRUE(pushed_->Read(65, &data).ok());
  EXPECT_EQ(data, "new");
}

}  // namespace
}  // namespace pollen::controller
