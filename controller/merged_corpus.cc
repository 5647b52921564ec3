#include "controller/merged_corpus.h"

#include <algorithm>
#include <vector>

#include "base/clock.h"
#include "controller/client/record_names.h"
#include "storage/corpus_merger.h"

namespace pollen::controller {

Result<std::unique_ptr<MergedCorpus>> MergedCorpus::Open(const std::string& path,
                                                         const storage::CampaignId& campaign) {
  storage::StoreOptions options;
  // One store per build: features of another build would be wrong here.
  options.accept_build_id_change = false;
  auto store = storage::CorpusStore::Open(path, campaign, options);
  if (!store.ok()) return store.status();
  std::unique_ptr<MergedCorpus> corpus(new MergedCorpus(std::move(store).value()));
  if (Status s = corpus->Load(); !s.ok()) return s;
  return corpus;
}

Status MergedCorpus::Load() {
  std::lock_guard<std::mutex> lock(mu_);
  Status bad_key;
  Status s = store_->ForEachEntry([&](std::string_view key, const storage::EntryMeta& meta) {
    const std::optional<base::Digest> hash = base::ParseDigestHex(key);
    if (!hash) {
      bad_key = Status::Error("merged corpus " + store_->path() + ": entry key '" +
                              std::string(key.substr(0, 64)) + "' is not a SHA-1");
      return false;
    }
    sizes_.emplace(*hash, meta.size);
    bytes_ += meta.size;
    features_.insert(meta.features.begin(), meta.features.end());
    return true;
  });
  if (!s.ok()) return s;
  return bad_key;
}

Result<InsertReport> MergedCorpus::Insert(std::span<const InputEntry> entries,
                                          std::string_view origin, int64_t now_unix_ms) {
  InsertReport report;
  std::lock_guard<std::mutex> lock(mu_);
  // What this call adds, kept apart until the write succeeds.
  std::vector<const InputEntry*> kept;
  std::vector<uint32_t> new_features;
  std::unordered_set<uint32_t> batch_features;
  std::unordered_set<base::Digest, base::DigestHasher> batch_hashes;
  for (const InputEntry& e : entries) {
    if (sizes_.count(e.hash) != 0 || batch_hashes.count(e.hash) != 0) {
      report.duplicates++;
      continue;
    }
    bool adds = false;
    for (uint32_t f : e.features) {
      if (features_.count(f) == 0 && batch_features.insert(f).second) {
        new_features.push_back(f);
        adds = true;
      }
    }
    if (!adds) {
      report.not_needed++;
      continue;
    }
    batch_hashes.insert(e.hash);
    kept.push_back(&e);
  }
  if (kept.empty()) return report;

  std::vector<std::string> keys;
  std::vector<storage::EntryMeta> metas;
  std::vector<storage::NewEntry> batch;
  keys.reserve(kept.size());
  metas.reserve(kept.size());
  for (const InputEntry* e : kept) {
    keys.push_back(base::DigestHex(e->hash));
    storage::EntryMeta meta;
    meta.size = e->bytes.size();
    meta.features = e->features;  // ascending, checked by the codec
    meta.origin = std::string(origin);
    meta.first_seen_unix_ms = now_unix_ms;
    metas.push_back(std::move(meta));
  }
  for (size_t i = 0; i < kept.size(); i++) batch.push_back({keys[i], kept[i]->bytes, &metas[i]});
  if (Status s = store_->PutEntries(batch); !s.ok()) return s;

  for (const InputEntry* e : kept) {
    sizes_.emplace(e->hash, e->bytes.size());
    bytes_ += e->bytes.size();
  }
  features_.insert(new_features.begin(), new_features.end());
  report.added = static_cast<uint32_t>(kept.size());
  inserted_since_maintain_ += kept.size();
  return report;
}

Result<MaintainReport> MergedCorpus::Maintain(int64_t now_unix_ms) {
  const uint64_t start_ms = base::MonotonicMs();
  MaintainReport report;
  uint64_t inserted_before;
  {
    std::lock_guard<std::mutex> lock(mu_);
    report.entries_before = sizes_.size();
    inserted_before = inserted_since_maintain_;
  }
  // Every entry has trusted features (this store's build, never featureless), so the merge
  // executes nothing: it needs no executor.
  storage::MergeOptions options;
  options.now_unix_ms = now_unix_ms;
  storage::CorpusMerger merger(store_.get(), nullptr, options);
  Result<storage::MergeReport> merged = merger.Run();
  if (!merged.ok()) return merged.status();
  std::vector<base::Digest> superseded;
  Status bad_key;
  Status s = store_->ForEachAux(storage::AuxTable::kSuperseded,
                                [&](std::string_view key, std::string_view) {
                                  if (auto hash = base::ParseDigestHex(key)) {
                                    superseded.push_back(*hash);
                                  }
                                  return true;
                                });
  if (!s.ok()) return s;
  Result<storage::CompactReport> compacted = storage::CompactStore(*store_);
  if (!compacted.ok()) return compacted.status();

  std::lock_guard<std::mutex> lock(mu_);
  for (const base::Digest& h : superseded) {
    auto it = sizes_.find(h);
    if (it == sizes_.end()) continue;
    bytes_ -= it->second;
    sizes_.erase(it);
  }
  report.removed = superseded.size();
  report.entries_after = sizes_.size();
  report.features = features_.size();
  report.disk_bytes_after = compacted->after.disk_bytes;
  report.duration_ms = base::MonotonicMs() - start_ms;
  inserted_since_maintain_ -= inserted_before;
  last_maintain_unix_ms_ = now_unix_ms;
  return report;
}

std::vector<base::Digest> MergedCorpus::HashesAfter(std::string_view after) const {
  std::vector<base::Digest> hashes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hashes.reserve(sizes_.size());
    for (const auto& [hash, size] : sizes_) hashes.push_back(hash);
  }
  std::sort(hashes.begin(), hashes.end());  // bytes in order: the order of their hex forms
  if (!after.empty()) {
    auto first = std::partition_point(hashes.begin(), hashes.end(), [&](const base::Digest& h) {
      return base::DigestHex(h) <= after;
    });
    hashes.erase(hashes.begin(), first);
  }
  return hashes;
}

bool MergedCorpus::Contains(const base::Digest& hash) const {
  std::lock_guard<std::mutex> lock(mu_);
  return sizes_.count(hash) != 0;
}

MergedCorpus::Info MergedCorpus::info() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Info{sizes_.size(), bytes_, features_.size(), inserted_since_maintain_,
              last_maintain_unix_ms_};
}

}  // namespace pollen::controller
