// Helpers shared by the storage tests (header-only: never linked into pollen_storage).
#ifndef POLLEN_STORAGE_STORE_TEST_UTIL_H_
#define POLLEN_STORAGE_STORE_TEST_UTIL_H_

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
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

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_STORE_TEST_UTIL_H_
