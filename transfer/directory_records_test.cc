#include "transfer/directory_records.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "transfer/transfer_test_util.h"

namespace pollen::transfer {
namespace {

namespace fs = std::filesystem;
using testing::Record;
using testing::TempDir;

void Write(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<Record> ReadAll(RecordSource& source) {
  std::vector<Record> out;
  std::string name, data;
  for (;;) {
    Result<bool> more = source.Next(&name, &data);
    EXPECT_TRUE(more.ok()) << more.status().message();
    if (!more.ok() || !*more) return out;
    out.emplace_back(name, data);
  }
}

TEST(TransferDirectoryTest, TheSourceReadsRegularFilesInNameOrderAfterTheCursor) {
  TempDir dir;
  Write(dir.path() + "/b", "bee");
  Write(dir.path() + "/a", "");
  Write(dir.path() + "/c", "sea");
  Write(dir.path() + "/.pollen-tmp-1-0", "half written");
  fs::create_directory(dir.path() + "/subdir");
  Write(dir.path() + "/subdir/d", "not read");
  fs::create_symlink(dir.path() + "/c", dir.path() + "/link-to-c");
  auto all = DirectorySource::Open(dir.path());
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ((*all)->remaining(), 4u);
  EXPECT_EQ(ReadAll(**all),
            (std::vector<Record>{{"a", ""}, {"b", "bee"}, {"c", "sea"}, {"link-to-c", "sea"}}));
  auto after_b = DirectorySource::Open(dir.path(), "b");
  ASSERT_TRUE(after_b.ok());
  EXPECT_EQ(ReadAll(**after_b), (std::vector<Record>{{"c", "sea"}, {"link-to-c", "sea"}}));
}

TEST(TransferDirectoryTest, TheSourceSkipsFilesRemovedSinceItListedThem) {
  TempDir dir;
  Write(dir.path() + "/a", "1");
  Write(dir.path() + "/b", "2");
  auto source = DirectorySource::Open(dir.path());
  ASSERT_TRUE(source.ok());
  fs::remove(dir.path() + "/a");
  EXPECT_EQ(ReadAll(**source), (std::vector<Record>{{"b", "2"}}));
}

TEST(TransferDirectoryTest, TheSourceRefusesAFileOverTheRecordLimit) {
  TempDir dir;
  Write(dir.path() + "/huge", std::string(101, 'h'));
  StreamLimits limits;
  limits.max_record_bytes = 100;
  auto source = DirectorySource::Open(dir.path(), "", limits);
  ASSERT_TRUE(source.ok());
  std::string name, data;
  Result<bool> next = (*source)->Next(&name, &data);
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().message(),
            "cannot send " + dir.path() + "/huge: 101 bytes, more than the record limit of 100");
}

TEST(TransferDirectoryTest, TheSourceNeedsADirectory) {
  TempDir dir;
  auto absent = DirectorySource::Open(dir.path() + "/absent");
  ASSERT_FALSE(absent.ok());
  EXPECT_NE(absent.status().message().find(dir.path() + "/absent"), std::string::npos);
}

TEST(TransferDirectoryTest, TheSinkWritesWholeFilesAndReplaces) {
  TempDir dir;
  const std::string out = dir.path() + "/corpus/nested";  // created
  auto sink = DirectorySink::Open(out);
  ASSERT_TRUE(sink.ok()) << sink.status().message();
  ASSERT_TRUE((*sink)->Commit("a", "first").ok());
  ASSERT_TRUE((*sink)->Commit("empty", "").ok());
  ASSERT_TRUE((*sink)->Commit("a", "second").ok());
  EXPECT_EQ(Read(out + "/a"), "second");
  EXPECT_EQ(Read(out + "/empty"), "");
  EXPECT_EQ(Names(out), (std::vector<std::string>{"a", "empty"}));  // no temporary files left
  EXPECT_EQ((*sink)->last_committed(), "a");
  EXPECT_EQ((*sink)->committed(), 3u);
}

TEST(TransferDirectoryTest, TheSinkTakesOnlySingleComponentNames) {
  TempDir dir;
  auto sink = DirectorySink::Open(dir.path() + "/out", {false, ""});
  ASSERT_TRUE(sink.ok());
  const std::vector<std::string> bad_names = {"a/b",
                                              ".hidden",
                                              ".pollen-tmp-1-0",
                                              ".",
                                              "..",
                                              "/etc/x",
                                              "../x",
                                              std::string("x\0y", 3),
                                              std::string(256, 'n'),
                                              ""};
  for (const std::string& bad : bad_names) {
    Status s = (*sink)->Commit(bad, "data");
    EXPECT_FALSE(s.ok()) << PrintableName(bad);
    EXPECT_NE(s.message().find("invalid record name"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(Names(dir.path() + "/out").empty());
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"out"});  // nothing escaped either
  EXPECT_TRUE((*sink)->Commit(std::string(255, 'n'), "longest name").ok());
}

TEST(TransferDirectoryTest, AFailedWriteLeavesNoFileBehind) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  auto sink = DirectorySink::Open(out);
  ASSERT_TRUE(sink.ok());
  fs::create_directories(out + "/taken/by-a-directory");  // the rename into place fails
  Status s = (*sink)->Commit("taken", "data");
  EXPECT_NE(s.message().find("cannot rename into " + out + "/taken: "), std::string::npos)
      << s.message();
  EXPECT_EQ(Names(out), std::vector<std::string>{"taken"});  // no temporary file left
  EXPECT_TRUE(fs::is_directory(out + "/taken/by-a-directory"));
  EXPECT_EQ((*sink)->committed(), 0u);
}

TEST(TransferDirectoryTest, TheCursorFileFollowsCommitsAndReadsBack) {
  TempDir dir;
  const std::string cursor = dir.path() + "/cursor";
  EXPECT_EQ(ReadResumeCursor(cursor).value(), "");  // absent: from the start
  {
    auto sink = DirectorySink::Open(dir.path() + "/out", {true, cursor});
    ASSERT_TRUE(sink.ok());
    for (int i = 0; i < 64; i++) {
      ASSERT_TRUE((*sink)->Commit("r" + std::to_string(100 + i), "x").ok());
    }
    EXPECT_EQ(ReadResumeCursor(cursor).value(), "r163");  // written every 64 commits
    ASSERT_TRUE((*sink)->Commit("r200", "x").ok());
    EXPECT_EQ(ReadResumeCursor(cursor).value(), "r163");
    ASSERT_TRUE((*sink)->Flush().ok());
    EXPECT_EQ(ReadResumeCursor(cursor).value(), "r200");
    ASSERT_TRUE((*sink)->Commit("r201", "x").ok());
  }  // destroyed: flushed
  EXPECT_EQ(ReadResumeCursor(cursor).value(), "r201");
  Write(cursor, "../bad");
  Result<std::string> damaged = ReadResumeCursor(cursor);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.status().message().find("is damaged"), std::string::npos);
}

}  // namespace
}  // namespace pollen::transfer
