#include "node/live_corpus.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "base/clock.h"
#include "base/digest.h"
#include "base/sha1.h"

namespace pollen::node {
namespace {

storage::EntryMeta NewMeta(size_t size, const std::vector<uint32_t>& features,
                           uint64_t exec_time_us, const std::string& origin) {
  storage::EntryMeta meta;
  meta.size = size;
  meta.features = features;
  meta.exec_time_us = exec_time_us;
  meta.origin = origin;
  meta.first_seen_unix_ms = base::UnixMs();
  return meta;
}

}  // namespace

LiveCorpus::LiveCorpus(storage::CorpusStore* store, std::string origin)
    : store_(store), origin_(std::move(origin)) {}

void LiveCorpus::Insert(CorpusEntry entry) {
  index_.emplace(entry.hash, entries_.size());
  total_bytes_ += entry.data.size();
  scheduler_.Add(entry.features);
  owners_.Add(static_cast<uint32_t>(entries_.size()), static_cast<uint32_t>(entry.data.size()),
              entry.features);
  entries_.push_back(std::move(entry));
}

Status LiveCorpus::Load(bool trust_features, std::vector<std::vector<uint32_t>>* known,
                        std::vector<StartupInput>* to_execute) {
  if (store_ == nullptr) return Status::Ok();
  std::vector<std::pair<std::string, storage::EntryMeta>> metas;
  Status st = store_->ForEachEntry([&](std::string_view hash, const storage::EntryMeta& meta) {
    metas.emplace_back(std::string(hash), meta);
    return true;
  });
  if (!st.ok()) return st;
  for (auto& [hex, meta] : metas) {
    auto input = store_->GetInput(hex);
    if (!input.ok()) return input.status();
    if (trust_features && !meta.features.empty()) {
      // The stores name entries by the hex of their SHA-1 (storage/corpus_store.h).
      std::optional<base::Digest> hash = base::ParseDigestHex(hex);
      if (!hash) {
        return Status::Error(
            StatusCode::kInvalid,
            "the corpus store has an entry not named by a SHA-1: '" + hex.substr(0, 64) + "'");
      }
      known->push_back(meta.features);
      CorpusEntry e{*hash, std::move(input).value(), std::move(meta.features),
                    std::move(meta.origin)};
      Insert(std::move(e));
    } else {
      const bool own = meta.origin.empty() || meta.origin == origin_;
      to_execute->push_back({std::move(input).value(), own});
    }
  }
  return Status::Ok();
}

const CorpusEntry* LiveCorpus::Find(const base::Digest& hash) const {
  auto it = index_.find(hash);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

Status LiveCorpus::Add(std::vector<uint8_t> data, std::vector<uint32_t> features,
                       uint64_t exec_time_us, std::string origin) {
  const base::Digest hash = base::Sha1(data.data(), data.size());
  if (Contains(hash)) return Status::Ok();
  if (origin.empty()) origin = origin_;
  std::sort(features.begin(), features.end());
  features.erase(std::unique(features.begin(), features.end()), features.end());
  if (store_ != nullptr) {
    Status st = store_->PutEntry(base::DigestHex(hash), data.data(), data.size(),
                                 NewMeta(data.size(), features, exec_time_us, origin));
    if (!st.ok()) return st;
  }
  Insert(CorpusEntry{hash, std::move(data), std::move(features), std::move(origin)});
  return Status::Ok();
}

Status LiveCorpus::Replace(size_t i, std::vector<uint8_t> data, std::vector<uint32_t> features,
                           bool* replaced) {
  *replaced = false;
  CorpusEntry& old = entries_[i];
  if (data.size() >= old.data.size()) return Status::Ok();
  const base::Digest hash = base::Sha1(data.data(), data.size());
  if (Contains(hash)) return Status::Ok();
  std::sort(features.begin(), features.end());
  features.erase(std::unique(features.begin(), features.end()), features.end());
  // Checked before anything is written: the store must not gain an input the corpus refuses.
  for (uint32_t f : Owned(i)) {
    if (!std::binary_search(features.begin(), features.end(), f)) return Status::Ok();
  }
  if (store_ != nullptr) {
    Status st = store_->PutEntry(base::DigestHex(hash), data.data(), data.size(),
                                 NewMeta(data.size(), features, 0, old.origin));
    if (!st.ok()) return st;
    st = store_->DeleteEntry(base::DigestHex(old.hash));
    if (!st.ok()) return st;
  }
  bool owned_kept = owners_.Replace(static_cast<uint32_t>(i), static_cast<uint32_t>(data.size()),
                                    features, old.features);
  POLLEN_CHECK(owned_kept);  // checked above
  scheduler_.Replace(i, features);
  index_.erase(old.hash);
  index_.emplace(hash, i);
  total_bytes_ -= old.data.size();
  total_bytes_ += data.size();
  old.hash = hash;
  old.data = std::move(data);
  old.features = std::move(features);
  *replaced = true;
  return Status::Ok();
}

Status LiveCorpus::Flush() { return store_ ? store_->Flush() : Status::Ok(); }

}  // namespace pollen::node
