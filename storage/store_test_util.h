// Helpers shared by the storage tests (header-only: never linked into pollen_storage).
#ifndef POLLEN_STORAGE_STORE_TEST_UTIL_H_
#define POLLEN_STORAGE_STORE_TEST_UTIL_H_

#include <spawn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "rocksdb/db.h"
#include "storage/corpus_store.h"

namespace pollen::storage {

// A fresh directory per test (tests may run in parallel), removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = testing::TempDir() + "pollen_storage_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed: " << pattern;
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Sub(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

inline std::vector<uint8_t> Bytes(std::string_view text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

inline EntryMeta MetaFor(std::string_view input, std::vector<uint32_t> features = {1, 2, 3}) {
  EntryMeta meta;
  meta.size = input.size();
  meta.features = std::move(features);
  meta.exec_time_us = 17;
  meta.origin = "seed";
  meta.first_seen_unix_ms = 1700000000000;
  return meta;
}

// Stores `input` under `hash` with MetaFor(input).
inline Status PutText(CorpusStore& store, std::string_view hash, std::string_view input) {
  const std::vector<uint8_t> bytes = Bytes(input);
  return store.PutEntry(hash, bytes.data(), bytes.size(), MetaFor(input));
}

// Runs this test binary again as the single test `test` ("Suite.Name"), with `env`
// ("NAME=value") added to the environment and `actions` applied in the child: a fresh
// process, unlike fork(), whose child would inherit RocksDB's thread pool without its
// threads. Returns posix_spawn's result (0 on success) and sets *pid.
inline int SpawnThisTest(const std::string& test, std::vector<std::string> env,
                         const posix_spawn_file_actions_t* actions, pid_t* pid) {
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe";
  std::string filter = "--gtest_filter=" + test;
  char* argv[] = {exe.data(), filter.data(), nullptr};
  return posix_spawn(pid, exe.c_str(), actions, nullptr, argv, envp.data());
}

// Opens `path` or records a test failure and returns nullptr.
inline std::unique_ptr<CorpusStore> OpenOrFail(const std::string& path, const CampaignId& campaign,
                                               const StoreOptions& options = {}) {
  Result<std::unique_ptr<CorpusStore>> store = CorpusStore::Open(path, campaign, options);
  if (!store.ok()) {
    ADD_FAILURE() << store.status().message();
    return nullptr;
  }
  return std::move(store).value();
}

// Expects `status` to be an error whose message contains every one of `parts`.
inline void ExpectErrorMentions(const Status& status, const std::vector<std::string>& parts) {
  ASSERT_FALSE(status.ok()) << "expected an error";
  for (const std::string& part : parts) {
    EXPECT_NE(status.message().find(part), std::string::npos)
        << "'" << part << "' missing from: " << status.message();
  }
}

// Opens the closed store at `path` with RocksDB alone, bypassing CorpusStore, and calls
// fn(db, handle of column family `cf`), for tests that plant what CorpusStore never writes.
template <typename Fn>
void WithRawColumnFamily(const std::string& path, const std::string& cf, Fn fn) {
  std::vector<std::string> names;
  ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &names).ok());
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& name : names) {
    descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions());
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(), path, descriptors, &handles, &db).ok());
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == cf) fn(db, handles[i]);
  }
  for (rocksdb::ColumnFamilyHandle* handle : handles) {
    EXPECT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
  }
  EXPECT_TRUE(db->Close().ok());
  delete db;
}

// Puts `value` under `key` in column family `cf` of the closed store at `path`; deletes the
// key when `value` is nullopt.
inline void RawWrite(const std::string& path, const std::string& cf, const std::string& key,
                     const std::optional<std::string>& value) {
  WithRawColumnFamily(path, cf, [&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* handle) {
    EXPECT_TRUE((value ? db->Put(rocksdb::WriteOptions(), handle, key, *value)
                       : db->Delete(rocksdb::WriteOptions(), handle, key))
                    .ok());
  });
}

// The value under `key` in column family `cf` of the closed store at `path`, nullopt if none.
inline std::optional<std::string> RawRead(const std::string& path, const std::string& cf,
                                          const std::string& key) {
  std::optional<std::string> result;
  WithRawColumnFamily(path, cf, [&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* handle) {
    std::string value;
    if (db->Get(rocksdb::ReadOptions(), handle, key, &value).ok()) result = std::move(value);
  });
  return result;
}

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_STORE_TEST_UTIL_H_
