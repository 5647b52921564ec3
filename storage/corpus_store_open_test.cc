// CorpusStore::Open: campaign checks, paths that are not stores, corruption, read-only
// readers and the one-writer rule (also across processes).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "rocksdb/db.h"
#include "storage/corpus_store.h"
#include "storage/store_test_util.h"

extern char** environ;

namespace pollen::storage {
namespace {

namespace fs = std::filesystem;

constexpr char kChildStoreEnv[] = "POLLEN_STORAGE_TEST_CHILD_STORE";
constexpr char kChildOutEnv[] = "POLLEN_STORAGE_TEST_CHILD_OUT";

class CorpusStoreOpenTest : public testing::Test {
 protected:
  ScratchDir dir_;
  const std::string path_ = dir_.Sub("store");
  const CampaignId campaign_{"png_decoder", "build-1"};
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(CorpusStoreOpenTest, WrongTargetIsAnErrorNamingPathAndBothTargets) {
  ASSERT_NE(OpenOrFail(path_, campaign_), nullptr);
  Result<std::unique_ptr<CorpusStore>> other =
      CorpusStore::Open(path_, {"jpeg_decoder", "build-1"}, {});
  ExpectErrorMentions(other.status(), {path_, "'png_decoder'", "'jpeg_decoder'"});
}

TEST_F(CorpusStoreOpenTest, BuildIdChangeIsReportedRejectableAndAdoptable) {
  {
    std::unique_ptr<CorpusStore> store = OpenOrFail(path_, campaign_);
    ASSERT_NE(store, nullptr);
    EXPECT_FALSE(store->build_id_changed());
    ASSERT_TRUE(PutText(*store, "h", "input").ok());
  }
  const CampaignId rebuilt{"png_decoder", "build-2"};
  StoreOptions strict;
  strict.accept_build_id_change = false;
  ExpectErrorMentions(CorpusStore::Open(path_, rebuilt, strict).status(),
                      {path_, "'build-1'", "'build-2'"});
  {
    std::unique_ptr<CorpusStore> store = OpenOrFail(path_, rebuilt);
    ASSERT_NE(store, nullptr);
    EXPECT_TRUE(store->build_id_changed());
    EXPECT_EQ(store->stored_build_id(), "build-1");
    EXPECT_EQ(store->campaign().build_id, "build-2");
    EXPECT_TRUE(store->HasEntry("h"));  // the inputs stay usable
    ASSERT_TRUE(store->AdoptBuildId().ok());
    EXPECT_FALSE(store->build_id_changed());
  }
  std::unique_ptr<CorpusStore> store = OpenOrFail(path_, rebuilt, strict);
  ASSERT_NE(store, nullptr);
  EXPECT_FALSE(store->build_id_changed());
}

TEST_F(CorpusStoreOpenTest, NewerFormatVersionIsAnError) {
  ASSERT_NE(OpenOrFail(path_, campaign_), nullptr);
  const std::string newer = std::to_string(kStoreFormatVersion + 1);
  RawWrite(path_, "campaign", "format_version", newer);
  ExpectErrorMentions(
      CorpusStore::Open(path_, campaign_, {}).status(),
      {path_, "written by an incompatible version of pollen (format " + newer + ")"});
  StoreOptions read_only;
  read_only.read_only = true;
  ExpectErrorMentions(CorpusStore::Open(path_, campaign_, read_only).status(),
                      {"(format " + newer + ")"});
}

TEST_F(CorpusStoreOpenTest, RegularFileIsNotAStore) {
  { std::ofstream(path_) << "precious"; }
  ExpectErrorMentions(CorpusStore::Open(path_, campaign_, {}).status(), {path_, "not a directory"});
  EXPECT_EQ(ReadFile(path_), "precious");
}

TEST_F(CorpusStoreOpenTest, DirectoryWithOtherFilesIsNotAStoreAndIsLeftAlone) {
  fs::create_directory(path_);
  { std::ofstream(path_ + "/notes.txt") << "keep me"; }
  ExpectErrorMentions(CorpusStore::Open(path_, campaign_, {}).status(),
                      {path_, "not a pollen corpus store"});
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(path_)) {
    files.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(files, std::vector<std::string>{"notes.txt"});
  EXPECT_EQ(ReadFile(path_ + "/notes.txt"), "keep me");
}

TEST_F(CorpusStoreOpenTest, ForeignRocksdbDatabaseIsNotAStore) {
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::DB* db = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, path_, &db).ok());
  EXPECT_TRUE(db->Close().ok());
  delete db;
  ExpectErrorMentions(CorpusStore::Open(path_, campaign_, {}).status(),
                      {path_, "not a pollen corpus store"});
}

TEST_F(CorpusStoreOpenTest, CorruptedStoreReportsPathAndRocksdbMessage) {
  ASSERT_NE(OpenOrFail(path_, campaign_), nullptr);
  { std::ofstream(path_ + "/CURRENT", std::ios::trunc) << "garbage"; }
  ExpectErrorMentions(CorpusStore::Open(path_, campaign_, {}).status(),
                      {path_, "corrupted", "rocksdb: Corruption"});
}

TEST_F(CorpusStoreOpenTest, AbsentOrEmptyPathIsCreatedOnlyWhenAllowed) {
  StoreOptions read_only;
  read_only.read_only = true;
  ExpectErrorMentions(CorpusStore::Open(path_, campaign_, read_only).status(),
                      {path_, "read-only open never creates"});
  StoreOptions no_create;
  no_create.create_if_missing = false;
  EXPECT_FALSE(CorpusStore::Open(path_, campaign_, no_create).ok());
  EXPECT_FALSE(fs::exists(path_));

  fs::create_directory(path_);  // an empty directory is fine to create into
  ASSERT_NE(OpenOrFail(path_, campaign_), nullptr);
  EXPECT_TRUE(fs::exists(path_ + "/CURRENT"));
  EXPECT_FALSE(CorpusStore::Open(path_, {"", "b"}, {}).ok());  // a target is required
}

TEST_F(CorpusStoreOpenTest, ReadOnlyOpenSeesFlushedDataWhileWriterIsOpen) {
  std::unique_ptr<CorpusStore> writer = OpenOrFail(path_, campaign_);
  ASSERT_NE(writer, nullptr);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(PutText(*writer, "h" + std::to_string(i), "input " + std::to_string(i)).ok());
  }
  ASSERT_TRUE(writer->Flush().ok());

  StoreOptions read_only;
  read_only.read_only = true;
  std::unique_ptr<CorpusStore> reader = OpenOrFail(path_, campaign_, read_only);
  ASSERT_NE(reader, nullptr);
  Result<std::vector<uint8_t>> got = reader->GetInput("h2");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, Bytes("input 2"));
  Result<CorpusStore::Stats> stats = reader->GetStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->entries, 3u);

  ExpectErrorMentions(PutText(*reader, "x", "y"), {path_, "read-only"});
  ExpectErrorMentions(reader->DeleteEntry("h0"), {"read-only"});
  ExpectErrorMentions(reader->Flush(), {"read-only"});
  EXPECT_TRUE(reader->HasEntry("h0"));
  EXPECT_TRUE(PutText(*writer, "h3", "the writer is unaffected").ok());
}

// RocksDB's info LOG (an options dump of ~100 KB at every open) is not written into the
// store: its messages go to spdlog (storage/rocks_logger.h).
TEST_F(CorpusStoreOpenTest, WritesNoRocksdbLogFiles) {
  for (int open = 0; open < 2; ++open) {
    std::unique_ptr<CorpusStore> writer = OpenOrFail(path_, campaign_);
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(PutText(*writer, "h" + std::to_string(open), "input").ok());
    ASSERT_TRUE(writer->Compact().ok());
  }
  StoreOptions read_only;
  read_only.read_only = true;
  ASSERT_NE(OpenOrFail(path_, campaign_, read_only), nullptr);
  int files = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(path_)) {
    ++files;
    EXPECT_NE(entry.path().filename().string().rfind("LOG", 0), 0u) << entry.path();
  }
  EXPECT_GT(files, 0);
}

TEST_F(CorpusStoreOpenTest, SecondWriterInTheSameProcessIsLocked) {
  std::unique_ptr<CorpusStore> writer = OpenOrFail(path_, campaign_);
  ASSERT_NE(writer, nullptr);
  const Status second = CorpusStore::Open(path_, campaign_, {}).status();
  ExpectErrorMentions(second, {path_, "store is locked by another pollen process"});
  EXPECT_EQ(second.code(), StatusCode::kUnavailable) << "later, when the writer closes, may work";
}

// Runs this test binary again (a fresh process, no fork of RocksDB's threads) as a second
// writer; the child reports what Open said through a file.
TEST_F(CorpusStoreOpenTest, SecondWriterInAnotherProcessIsLocked) {
  std::unique_ptr<CorpusStore> writer = OpenOrFail(path_, campaign_);
  ASSERT_NE(writer, nullptr);
  const std::string out = dir_.Sub("child_out.txt");
  posix_spawn_file_actions_t actions;
  ASSERT_EQ(posix_spawn_file_actions_init(&actions), 0);
  const std::string log = dir_.Sub("child_log.txt");  // keeps the child's gtest output apart
  for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    ASSERT_EQ(posix_spawn_file_actions_addopen(&actions, fd, log.c_str(),
                                               O_WRONLY | O_CREAT | O_APPEND, 0644),
              0);
  }
  pid_t pid = 0;
  const int spawned = SpawnThisTest(
      "CorpusStoreChildProcess.OpenAsWriter",
      {std::string(kChildStoreEnv) + "=" + path_, std::string(kChildOutEnv) + "=" + out}, &actions,
      &pid);
  posix_spawn_file_actions_destroy(&actions);
  ASSERT_EQ(spawned, 0);

  int wstatus = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  pid_t done = 0;
  while ((done = waitpid(pid, &wstatus, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &wstatus, 0);
    FAIL() << "child process did not finish within 60 s";
  }
  ASSERT_EQ(done, pid);
  EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) << ReadFile(log);
  const std::string message = ReadFile(out);
  EXPECT_NE(message.find("store is locked by another pollen process"), std::string::npos)
      << message;
  EXPECT_NE(message.find(path_), std::string::npos) << message;
}

// The child half of SecondWriterInAnotherProcessIsLocked; skipped when run on its own.
TEST(CorpusStoreChildProcess, OpenAsWriter) {
  const char* store_path = std::getenv(kChildStoreEnv);
  const char* out = std::getenv(kChildOutEnv);
  if (store_path == nullptr || out == nullptr) {
    GTEST_SKIP() << "helper process of SecondWriterInAnotherProcessIsLocked";
  }
  Result<std::unique_ptr<CorpusStore>> store =
      CorpusStore::Open(store_path, {"png_decoder", "build-1"}, {});
  std::ofstream(out) << (store.ok() ? std::string("opened") : store.status().message());
}

}  // namespace
}  // namespace pollen::storage
