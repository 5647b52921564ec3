// CorpusStore durability: a writer killed with SIGKILL in the middle of a load loses no
// entry whose PutEntry had returned ok, and, for entries written as entry files
// (storage/entry_file.h), none whose file IngestEntryFile had added.
//
// A child process opens the store and puts entries 0, 1, 2, ... ; after each PutEntry that
// returned ok (each ingestion, for entry files: all of the file's entries) it writes the
// entry's index (4 bytes) to a pipe. The parent reads these
// acknowledgements, sends SIGKILL after a fixed (seeded) number of them, reaps the child,
// collects the acknowledgements still in the pipe, reopens the store and checks every
// acknowledged entry, bytes and metadata. Entries are computed from their index.
//
// The child is this test binary run again (posix_spawn, so a fresh process: a fork() of a
// process that has used RocksDB inherits its background thread pool without its threads,
// and would never flush) as the helper test CorpusStoreDurabilityChild.Writer, told what to
// do through environment variables; it writes to the pipe it inherits, then _exit()s. The
// parent never waits without a time limit: a child that stops making progress fails the
// test instead of hanging it.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "storage/corpus_store.h"
#include "storage/entry_file.h"
#include "storage/store_test_util.h"

namespace pollen::storage {
namespace {

const CampaignId kCampaign{"durability_target", "build-1"};

// What the parent tells the writer child.
constexpr char kStoreEnv[] = "POLLEN_DURABILITY_STORE";
constexpr char kAckFdEnv[] = "POLLEN_DURABILITY_ACK_FD";
constexpr char kTotalEnv[] = "POLLEN_DURABILITY_TOTAL";
constexpr char kSyncEnv[] = "POLLEN_DURABILITY_SYNC";
constexpr char kEntryFilesEnv[] = "POLLEN_DURABILITY_ENTRY_FILES";

// How long the parent waits for the next acknowledgement before declaring the child stuck.
constexpr int kAckTimeoutMs = 30000;

std::string HashOf(uint32_t index) {
  char hash[32];
  std::snprintf(hash, sizeof(hash), "entry-%08u", index);
  return hash;
}

// splitmix64: a deterministic stream of bits from an index.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Entries of 1-256 bytes, or of 32-33 KB with `large` (the bulk loads entry files are for).
std::vector<uint8_t> InputOf(uint32_t index, bool large = false) {
  const size_t size = (large ? 32768 : 1) + Mix(index) % 256;
  std::vector<uint8_t> input(size);
  uint64_t bits = Mix(index + 1000003);
  for (size_t i = 0; i < size; ++i) {
    if (i % 8 == 0) bits = Mix(bits);
    input[i] = static_cast<uint8_t>(bits >> (8 * (i % 8)));
  }
  return input;
}

EntryMeta MetaOf(uint32_t index, size_t size) {
  EntryMeta meta;
  meta.size = size;
  const uint64_t count = 1 + Mix(index * 7 + 1) % 12;
  for (uint64_t k = 0; k < count; ++k) {
    meta.features.push_back(static_cast<uint32_t>(Mix(index * 31 + k) % 1000000));
  }
  std::sort(meta.features.begin(), meta.features.end());
  meta.features.erase(std::unique(meta.features.begin(), meta.features.end()), meta.features.end());
  meta.exec_time_us = index % 977;
  meta.origin = "mutator-" + std::to_string(index % 5);
  meta.first_seen_unix_ms = 1700000000000 + index;
  return meta;
}

// Entries per entry file in the writer child.
constexpr uint32_t kEntriesPerFile = 50;

[[noreturn]] void Fail(int code, const Status& s) {
  std::fprintf(stderr, "durability writer: %s\n", s.message().c_str());
  _exit(code);
}

// Acknowledges entries *next .. until-1 on the pipe.
void Acknowledge(int ack_fd, uint32_t until, uint32_t* next) {
  for (; *next < until; ++*next) {
    // 4 bytes <= PIPE_BUF: the write is atomic, never partial.
    ssize_t written;
    do {
      written = write(ack_fd, next, sizeof(*next));
    } while (written < 0 && errno == EINTR);
    if (written != static_cast<ssize_t>(sizeof(*next))) _exit(5);
  }
}

// The child: never returns. Exit codes: 0 all entries written (the parent should have killed
// it before), 3 open failed, 4 a put failed, 5 the pipe broke. With `entry_files`, large
// entries (see InputOf) go through entry files of kEntriesPerFile, acknowledged when the
// file is ingested.
[[noreturn]] void RunWriter(const std::string& path, const StoreOptions& options, uint32_t total,
                            bool entry_files, int ack_fd) {
  Result<std::unique_ptr<CorpusStore>> store = CorpusStore::Open(path, kCampaign, options);
  if (!store.ok()) Fail(3, store.status());
  uint32_t next_ack = 0;
  std::unique_ptr<EntryFile> file;
  for (uint32_t index = 0; index < total; ++index) {
    const std::vector<uint8_t> input = InputOf(index, entry_files);
    const EntryMeta meta = MetaOf(index, input.size());
    if (!entry_files) {
      const Status put = store.value()->PutEntry(HashOf(index), input.data(), input.size(), meta);
      if (!put.ok()) Fail(4, put);
      Acknowledge(ack_fd, index + 1, &next_ack);
      continue;
    }
    if (file == nullptr) {
      Result<std::unique_ptr<EntryFile>> started = store.value()->StartEntryFile();
      if (!started.ok()) Fail(4, started.status());
      file = std::move(started).value();
    }
    if (Status s = file->Add(HashOf(index), input, meta); !s.ok()) Fail(4, s);
    if (file->entries() == kEntriesPerFile) {
      if (Status s = store.value()->IngestEntryFile(std::move(file)); !s.ok()) Fail(4, s);
      Acknowledge(ack_fd, index + 1, &next_ack);
    }
  }
  _exit(0);
}

// Reads acknowledgements into *acked (which must arrive in order 0, 1, 2, ...) until
// `until` of them have arrived, or until end of file when `until` is 0. Returns an error
// message, or "" when done.
std::string ReadAcks(int fd, uint32_t until, uint32_t* acked) {
  uint8_t buffer[4096];
  size_t carry = 0;  // bytes of an incomplete index at the start of buffer
  while (until == 0 || *acked < until) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, kAckTimeoutMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return std::string("poll: ") + std::strerror(errno);
    if (ready == 0) {
      return "no acknowledgement for " + std::to_string(kAckTimeoutMs / 1000) + " s after " +
             std::to_string(*acked);
    }
    // Never read past the `until`-th index: acknowledgements after it are counted only
    // after the kill (they are acknowledged too, but the kill point must stay fixed).
    size_t want = sizeof(buffer) - carry;
    if (until != 0) want = std::min<size_t>(want, (until - *acked) * 4 - carry);
    const ssize_t got = read(fd, buffer + carry, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::string("read: ") + std::strerror(errno);
    if (got == 0) {
      if (until != 0) return "the writer closed the pipe after " + std::to_string(*acked);
      return carry == 0 ? "" : "a partial acknowledgement at end of file";
    }
    const size_t have = carry + static_cast<size_t>(got);
    size_t pos = 0;
    for (; pos + 4 <= have; pos += 4) {
      uint32_t index;
      std::memcpy(&index, buffer + pos, 4);
      if (index != *acked) {
        return "acknowledgement " + std::to_string(index) + " arrived when " +
               std::to_string(*acked) + " was expected";
      }
      ++*acked;
    }
    carry = have - pos;
    std::memmove(buffer, buffer + pos, carry);
  }
  return "";
}

// Runs the writer child with `options` over `total` entries, kills it after `kill_after`
// acknowledgements and sets *acked to how many entries were acknowledged in all (entries
// 0 .. *acked-1).
void LoadAndKill(const std::string& path, const StoreOptions& options, bool entry_files,
                 uint32_t total, uint32_t kill_after, uint32_t* acked) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0) << std::strerror(errno);
  posix_spawn_file_actions_t actions;
  ASSERT_EQ(posix_spawn_file_actions_init(&actions), 0);
  // The write end without O_CLOEXEC in the child only (dup2 onto itself clears the flag).
  ASSERT_EQ(posix_spawn_file_actions_adddup2(&actions, fds[1], fds[1]), 0);
  ASSERT_EQ(posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0), 0);
  pid_t pid = 0;
  const int spawned = SpawnThisTest(
      "CorpusStoreDurabilityChild.Writer",
      {std::string(kStoreEnv) + "=" + path, std::string(kAckFdEnv) + "=" + std::to_string(fds[1]),
       std::string(kTotalEnv) + "=" + std::to_string(total),
       std::string(kSyncEnv) + "=" + (options.sync_writes ? "1" : "0"),
       std::string(kEntryFilesEnv) + "=" + (entry_files ? "1" : "0")},
      &actions, &pid);
  posix_spawn_file_actions_destroy(&actions);
  ASSERT_EQ(spawned, 0) << std::strerror(spawned);
  close(fds[1]);
  const std::string before = ReadAcks(fds[0], kill_after, acked);
  ASSERT_EQ(kill(pid, SIGKILL), 0) << std::strerror(errno);
  // The pipe reaches end of file once the child is dead; what it still holds was
  // acknowledged before the kill.
  const std::string after = before.empty() ? ReadAcks(fds[0], 0, acked) : "";
  close(fds[0]);
  int wait_status = 0;
  ASSERT_EQ(waitpid(pid, &wait_status, 0), pid) << std::strerror(errno);
  ASSERT_EQ(before, "") << "before the kill";
  ASSERT_EQ(after, "") << "after the kill";
  ASSERT_TRUE(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL)
      << "the writer was not killed by SIGKILL: wait status " << wait_status;
  ASSERT_GE(*acked, kill_after);
  ASSERT_LT(*acked, total) << "the writer finished before the kill: the test proves nothing";
}

// Reopens the store and checks that entries 0 .. acked-1 are present and intact, and that
// at most `more` others are there.
void ExpectAcknowledgedEntries(const std::string& path, uint32_t acked, bool large, uint32_t more) {
  std::unique_ptr<CorpusStore> store = OpenOrFail(path, kCampaign);
  ASSERT_NE(store, nullptr);
  uint32_t missing = 0;
  uint32_t wrong = 0;
  for (uint32_t index = 0; index < acked; ++index) {
    const std::string hash = HashOf(index);
    const std::vector<uint8_t> input = InputOf(index, large);
    const EntryMeta expected = MetaOf(index, input.size());
    Result<std::vector<uint8_t>> got = store->GetInput(hash);
    Result<EntryMeta> meta = store->GetMeta(hash);
    if (!got.ok() || !meta.ok()) {
      if (++missing <= 5) ADD_FAILURE() << "acknowledged entry " << index << " is missing";
      continue;
    }
    const bool same =
        *got == input && meta->size == expected.size && meta->features == expected.features &&
        meta->exec_time_us == expected.exec_time_us && meta->origin == expected.origin &&
        meta->first_seen_unix_ms == expected.first_seen_unix_ms;
    if (!same && ++wrong <= 5) ADD_FAILURE() << "acknowledged entry " << index << " differs";
  }
  EXPECT_EQ(missing, 0u) << "of " << acked << " acknowledged entries";
  EXPECT_EQ(wrong, 0u) << "of " << acked << " acknowledged entries";
  Result<CorpusStore::Stats> stats = store->GetStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  // An entry written but not yet acknowledged when the kill came may be there as well.
  EXPECT_GE(stats->entries, acked);
  EXPECT_LE(stats->entries, acked + more);
}

// A kill point in [low, high], the same on every run.
uint32_t KillPoint(uint32_t seed, uint32_t low, uint32_t high) {
  std::mt19937 rng(seed);
  return std::uniform_int_distribution<uint32_t>(low, high)(rng);
}

// Loads `total` entries with `options`, kills the writer after a seeded number of
// acknowledgements in [low, high], and checks them all.
void KillAndCheck(const StoreOptions& options, bool entry_files, uint32_t seed, uint32_t low,
                  uint32_t high, uint32_t total) {
  ScratchDir dir;
  const std::string path = dir.Sub("store");
  uint32_t acked = 0;
  ASSERT_NO_FATAL_FAILURE(
      LoadAndKill(path, options, entry_files, total, KillPoint(seed, low, high), &acked));
  // The entry being written when the kill came may be there too; for entry files, those of
  // a file whose ingestion returned before its acknowledgements were written.
  // (That the files of a file left open are deleted: EntryFileTest.)
  ExpectAcknowledgedEntries(path, acked, entry_files, entry_files ? kEntriesPerFile : 1);
}

TEST(CorpusStoreDurabilityTest, KillDuringLoadLosesNoAcknowledgedEntry) {
  KillAndCheck(StoreOptions(), /*entry_files=*/false, 20240611, 30000, 60000, 100000);
}

TEST(CorpusStoreDurabilityTest, KillDuringSyncedLoadLosesNoAcknowledgedEntry) {
  StoreOptions options;
  options.sync_writes = true;
  KillAndCheck(options, /*entry_files=*/false, 20240612, 3000, 6000, 10000);
}

// Entries of entry files are acknowledged a file (an ingestion) at a time.
TEST(CorpusStoreDurabilityTest, KillDuringEntryFileLoadLosesNoIngestedEntry) {
  KillAndCheck(StoreOptions(), /*entry_files=*/true, 20261121, 500, 1500, 6000);
}

// The writer child of LoadAndKill (skipped when run by hand).
TEST(CorpusStoreDurabilityChild, Writer) {
  const char* path = std::getenv(kStoreEnv);
  const char* fd = std::getenv(kAckFdEnv);
  const char* total = std::getenv(kTotalEnv);
  const char* sync = std::getenv(kSyncEnv);
  const char* entry_files = std::getenv(kEntryFilesEnv);
  if (path == nullptr || fd == nullptr || total == nullptr || sync == nullptr ||
      entry_files == nullptr) {
    GTEST_SKIP() << "helper process of the CorpusStoreDurabilityTest kill tests";
  }
  StoreOptions options;
  options.sync_writes = std::string(sync) == "1";
  RunWriter(path, options, static_cast<uint32_t>(std::stoul(total)),
            std::string(entry_files) == "1", std::stoi(fd));
}

}  // namespace
}  // namespace pollen::storage
