#include "storage/corpus_formats.h"

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/go_corpus.h"
#include "base/sha1.h"
#include "gtest/gtest.h"
#include "storage/store_test_util.h"

namespace pollen::storage {
namespace {

namespace fs = std::filesystem;

using NamedInputs = std::vector<std::pair<std::string, std::vector<uint8_t>>>;

constexpr CorpusFormat kAllFormats[] = {CorpusFormat::kLibFuzzer, CorpusFormat::kAfl,
                                        CorpusFormat::kGo};

Result<NamedInputs> ReadAll(const std::string& dir, CorpusFormat format) {
  NamedInputs inputs;
  Status status = ReadCorpusDir(dir, format, [&](std::string_view name, std::vector<uint8_t> data) {
    inputs.emplace_back(std::string(name), std::move(data));
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return inputs;
}

std::vector<std::vector<uint8_t>> SortedData(const NamedInputs& inputs) {
  std::vector<std::vector<uint8_t>> data;
  for (const auto& [name, bytes] : inputs) data.push_back(bytes);
  std::sort(data.begin(), data.end());
  return data;
}

std::vector<std::string> Names(const NamedInputs& inputs) {
  std::vector<std::string> names;
  for (const auto& [name, bytes] : inputs) names.push_back(name);
  return names;
}

// Every entry of `dir` (dotfiles included), sorted.
std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

void WriteText(const std::string& path, std::string_view text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string FileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Writes `inputs` in `format`, with sequence numbers 0, 1, ...
void Export(const std::string& dir, CorpusFormat format,
            const std::vector<std::vector<uint8_t>>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    Status s = WriteCorpusFile(dir, format, inputs[i].data(), inputs[i].size(), i);
    ASSERT_TRUE(s.ok()) << s.message();
  }
}

TEST(CorpusFormatTest, ParsesAndNamesFormats) {
  for (CorpusFormat format : kAllFormats) {
    Result<CorpusFormat> parsed = ParseCorpusFormat(CorpusFormatName(format));
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(*parsed, format);
  }
  EXPECT_EQ(CorpusFormatName(CorpusFormat::kLibFuzzer), "libfuzzer");
  Result<CorpusFormat> afl = ParseCorpusFormat("afl++");
  ASSERT_TRUE(afl.ok());
  EXPECT_EQ(*afl, CorpusFormat::kAfl);
  ExpectErrorMentions(ParseCorpusFormat("honggfuzz").status(), {"honggfuzz", "libfuzzer"});
}

// 500 random inputs (with repeats, an empty one and a 1 MiB one) written then read in each
// format come back as the same multiset; content-named formats keep one copy of a repeat.
TEST(CorpusFormatTest, RoundTripsRandomInputsInEveryFormat) {
  ScratchDir scratch;
  std::mt19937_64 rng(42);
  std::vector<std::vector<uint8_t>> inputs = {{}, std::vector<uint8_t>(1 << 20, 0xab)};
  while (inputs.size() < 500) {
    if (rng() % 20 == 0) {
      inputs.push_back(inputs[rng() % inputs.size()]);
      continue;
    }
    std::vector<uint8_t> input(rng() % 256);
    for (uint8_t& byte : input) byte = static_cast<uint8_t>(rng());
    inputs.push_back(std::move(input));
  }
  std::vector<std::vector<uint8_t>> all = inputs;
  std::sort(all.begin(), all.end());
  std::vector<std::vector<uint8_t>> distinct = all;
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  ASSERT_LT(distinct.size(), all.size());  // the test does cover repeats

  for (CorpusFormat format : kAllFormats) {
    SCOPED_TRACE(CorpusFormatName(format));
    const std::string dir = scratch.Sub(CorpusFormatName(format));
    // AFL++ is exported into the queue of an output directory and read back from it.
    Export(format == CorpusFormat::kAfl ? dir + "/queue" : dir, format, inputs);
    Result<CorpusFormat> detected = DetectCorpusFormat(dir);
    ASSERT_TRUE(detected.ok()) << detected.status().message();
    EXPECT_EQ(*detected, format);
    Result<NamedInputs> read = ReadAll(dir, format);
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_TRUE(SortedData(*read) == (format == CorpusFormat::kAfl ? all : distinct));
  }
}

TEST(CorpusFormatTest, LibFuzzerFilesAreRawAndNamedBySha1) {
  ScratchDir scratch;
  const std::vector<std::vector<uint8_t>> inputs = {Bytes("hello"), Bytes(""), {0, 255, 10}};
  Export(scratch.path(), CorpusFormat::kLibFuzzer, inputs);
  std::vector<std::string> expected;
  for (const std::vector<uint8_t>& input : inputs) {
    const std::string name = base::Sha1Hex(input.data(), input.size());
    expected.push_back(name);
    EXPECT_EQ(FileText(scratch.Sub(name)), std::string(input.begin(), input.end()));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ListDir(scratch.path()), expected);  // no temporary file left behind
}

TEST(CorpusFormatTest, GoFilesAreGoSyntaxNamedBySha1Prefix) {
  ScratchDir scratch;
  const std::vector<uint8_t> input = Bytes("a\nb");
  Export(scratch.path(), CorpusFormat::kGo, {input});
  const std::string text = base::FormatGoCorpusFile(input.data(), input.size());
  ASSERT_EQ(ListDir(scratch.path()), std::vector<std::string>{base::GoCorpusFileName(text)});
  EXPECT_EQ(FileText(scratch.Sub(base::GoCorpusFileName(text))),
            "go test fuzz v1\n[]byte(\"a\\nb\")\n");
}

TEST(CorpusFormatTest, ReExportAddsNoDuplicatesAndKeepsExistingFiles) {
  ScratchDir scratch;
  const std::vector<std::vector<uint8_t>> inputs = {Bytes("one"), Bytes("two"), Bytes("one")};
  for (CorpusFormat format : kAllFormats) {
    SCOPED_TRACE(CorpusFormatName(format));
    const std::string dir = scratch.Sub(CorpusFormatName(format));
    Export(dir, format, inputs);
    const std::vector<std::string> first = ListDir(dir);
    EXPECT_EQ(first.size(), format == CorpusFormat::kAfl ? 3u : 2u);
    Export(dir, format, inputs);
    EXPECT_EQ(ListDir(dir), first);
  }
  // An AFL++ id that exists already is left alone, whatever the new content.
  const std::string queue = scratch.Sub("afl");
  const std::vector<uint8_t> other = Bytes("other");
  ASSERT_TRUE(WriteCorpusFile(queue, CorpusFormat::kAfl, other.data(), other.size(), 0).ok());
  EXPECT_EQ(FileText(queue + "/id:000000,src:pollen"), "one");
}

TEST(CorpusFormatTest, AflReadsQueueOfOutputDirsAndSkipsTheRest) {
  ScratchDir scratch;
  const std::string out = scratch.Sub("out");
  WriteText(out + "/default/queue/id:000000,time:0,execs:0,orig:seed", "first");
  WriteText(out + "/default/queue/id:000001,src:000000,op:havoc", "second");
  WriteText(out + "/default/queue/.state/auto_extras/auto_000000", "state");
  WriteText(out + "/default/queue/README.txt", "readme");
  WriteText(out + "/default/crashes/id:000000,sig:11", "crash");
  WriteText(out + "/default/fuzzer_stats", "stats");
  WriteText(out + "/secondary/queue/id:000000,orig:x", "third");

  const std::vector<std::string> queue_names = {"id:000000,time:0,execs:0,orig:seed",
                                                "id:000001,src:000000,op:havoc"};
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {out,
       {"default/queue/" + queue_names[0], "default/queue/" + queue_names[1],
        "secondary/queue/id:000000,orig:x"}},
      {out + "/default", {"queue/" + queue_names[0], "queue/" + queue_names[1]}},
      {out + "/default/queue", queue_names},
  };
  for (const auto& [dir, names] : cases) {
    SCOPED_TRACE(dir);
    Result<CorpusFormat> detected = DetectCorpusFormat(dir);
    ASSERT_TRUE(detected.ok()) << detected.status().message();
    EXPECT_EQ(*detected, CorpusFormat::kAfl);
    Result<NamedInputs> read = ReadAll(dir, CorpusFormat::kAfl);
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(Names(*read), names);
  }
  Result<NamedInputs> read = ReadAll(out + "/default", CorpusFormat::kAfl);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(SortedData(*read),
            (std::vector<std::vector<uint8_t>>{Bytes("first"), Bytes("second")}));
}

TEST(CorpusFormatTest, DetectsGoAndLibFuzzerAndSkipsDotfilesAndSubdirs) {
  ScratchDir scratch;
  const std::string go = scratch.Sub("go");
  WriteText(go + "/582528ddfad69eb5", "go test fuzz v1\nstring(\"x\")\n");
  WriteText(go + "/.DS_Store", "junk");
  Result<CorpusFormat> detected = DetectCorpusFormat(go);
  ASSERT_TRUE(detected.ok()) << detected.status().message();
  EXPECT_EQ(*detected, CorpusFormat::kGo);

  const std::string lib = scratch.Sub("lib");
  WriteText(lib + "/seed", "go test fuzz");  // a prefix of the header is not a Go file
  WriteText(lib + "/.hidden", "hidden");
  WriteText(lib + "/sub/nested", "nested");
  detected = DetectCorpusFormat(lib);
  ASSERT_TRUE(detected.ok()) << detected.status().message();
  EXPECT_EQ(*detected, CorpusFormat::kLibFuzzer);
  Result<NamedInputs> read = ReadAll(lib, CorpusFormat::kLibFuzzer);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(Names(*read), std::vector<std::string>{"seed"});

  fs::create_directories(scratch.Sub("empty"));
  detected = DetectCorpusFormat(scratch.Sub("empty"));
  ASSERT_TRUE(detected.ok()) << detected.status().message();
  EXPECT_EQ(*detected, CorpusFormat::kLibFuzzer);
}

TEST(CorpusFormatTest, ReportsMissingDirsFilesAndUnparsableGoFiles) {
  ScratchDir scratch;
  const std::string missing = scratch.Sub("missing");
  for (CorpusFormat format : kAllFormats) {
    ExpectErrorMentions(ReadAll(missing, format).status(), {missing, "does not exist"});
  }
  ExpectErrorMentions(DetectCorpusFormat(missing).status(), {missing, "does not exist"});

  const std::string file = scratch.Sub("file");
  WriteText(file, "not a dir");
  ExpectErrorMentions(ReadAll(file, CorpusFormat::kLibFuzzer).status(), {file, "not a directory"});
  ExpectErrorMentions(DetectCorpusFormat(file).status(), {file, "not a directory"});
  const std::vector<uint8_t> input = Bytes("x");
  ExpectErrorMentions(
      WriteCorpusFile(file + "/sub", CorpusFormat::kLibFuzzer, input.data(), input.size(), 0),
      {file + "/sub"});

  const std::string go = scratch.Sub("go");
  WriteText(go + "/a_good", "go test fuzz v1\n[]byte(\"ok\")\n");
  WriteText(go + "/b_bad", "go test fuzz v1\n[]byte(\"\\q\")\n");
  ExpectErrorMentions(ReadAll(go, CorpusFormat::kGo).status(),
                      {go + "/b_bad:2:9:", "unknown escape"});
  WriteText(go + "/b_bad", "go test fuzz v1\n[]byte(\"trunc");
  ExpectErrorMentions(ReadAll(go, CorpusFormat::kGo).status(), {go + "/b_bad:2", "unterminated"});
}

TEST(CorpusFormatTest, SinkErrorStopsTheRead) {
  ScratchDir scratch;
  Export(scratch.path(), CorpusFormat::kLibFuzzer, {Bytes("a"), Bytes("b"), Bytes("c")});
  int calls = 0;
  Status status = ReadCorpusDir(scratch.path(), CorpusFormat::kLibFuzzer,
                                [&](std::string_view, std::vector<uint8_t>) {
                                  return ++calls == 2 ? Status::Error("store full") : Status::Ok();
                                });
  ExpectErrorMentions(status, {"store full"});
  EXPECT_EQ(calls, 2);
}

// The error for a file that cannot be opened. Root opens any file whatever its mode, and the
// tests run as root here: then the read runs in a child that first becomes user nobody
// (65534) and sends the error back through a pipe.
TEST(CorpusFormatTest, ReportsUnreadableFile) {
  ScratchDir scratch;
  const std::string path = scratch.Sub("locked");
  WriteText(path, "secret");
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  if (geteuid() != 0) {
    ExpectErrorMentions(ReadAll(scratch.path(), CorpusFormat::kLibFuzzer).status(),
                        {path, "cannot open"});
    return;
  }
  struct stat parent;
  ASSERT_EQ(stat(testing::TempDir().c_str(), &parent), 0);
  if ((parent.st_mode & S_IXOTH) == 0) {
    GTEST_SKIP() << testing::TempDir()
                 << " is closed to other users, so nobody cannot reach the file";
  }
  ASSERT_EQ(chmod(scratch.path().c_str(), 0755), 0);  // nobody may list the directory
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
    Result<NamedInputs> read = ReadAll(scratch.path(), CorpusFormat::kLibFuzzer);
    const std::string message = read.ok() ? "read the file" : read.status().message();
    _exit(write(fds[1], message.data(), message.size()) == static_cast<ssize_t>(message.size())
              ? 0
              : 4);
  }
  close(fds[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;)
    message.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 3) {
    GTEST_SKIP() << "root here cannot become user nobody (no CAP_SETUID, or 65534 not mapped)";
  }
  ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
      << "the child could not become nobody or report (status " << wstatus << ")";
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("cannot open"), std::string::npos) << message;
}

}  // namespace
}  // namespace pollen::storage
