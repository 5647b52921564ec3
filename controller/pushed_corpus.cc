#include "controller/pushed_corpus.h"

#include <algorithm>

#include "controller/record_names.h"
#include "engine/sha1.h"

namespace pollen::controller {
namespace {

// The store's build id: pushed inputs belong to no build (features are never recorded).
constexpr char kPushedBuildId[] = "pushed";

}  // namespace

Result<std::unique_ptr<PushedCorpus>> PushedCorpus::Open(const std::string& path,
                                                         const std::string& target) {
  storage::StoreOptions options;
  options.log_entries = false;
  auto store = storage::CorpusStore::Open(path, {target, kPushedBuildId}, options);
  if (!store.ok()) return store.status();
  std::unique_ptr<PushedCorpus> corpus(new PushedCorpus(std::move(store).value()));
  if (Status s = corpus->Load(); !s.ok()) return s;
  return corpus;
}

Status PushedCorpus::Load() {
  Status bad;
  Status s = store_->ForEachEntry([&](std::string_view key, const storage::EntryMeta& meta) {
    uint64_t seq;
    Hash hash;
    if (!ParsePushedRecordName(key, &seq, &hash) || seq != hashes_.size() + 1) {
      bad = Status::Error("pushed corpus " + store_->path() + ": entry '" +
                          std::string(key.substr(0, 80)) + "' is not pushed entry " +
                          std::to_string(hashes_.size() + 1) + ": the store is damaged");
      return false;
    }
    hashes_.push_back(hash);
    seq_of_.emplace(hash, seq);
    bytes_ += meta.size;
    return true;
  });
  if (!s.ok()) return s;
  durable_seq_ = last_seq();  // read from disk
  return bad;
}

Result<PushedCorpus::Added> PushedCorpus::Add(std::string_view data, std::string_view origin,
                                              int64_t now_unix_ms) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  const Hash hash = engine::Sha1(bytes, data.size());
  if (auto it = seq_of_.find(hash); it != seq_of_.end()) return Added{it->second, false};
  const uint64_t seq = hashes_.size() + 1;
  storage::EntryMeta meta;
  meta.size = data.size();
  meta.origin = std::string(origin);
  meta.first_seen_unix_ms = now_unix_ms;
  if (Status s = store_->PutEntry(PushedRecordName(seq, hash), bytes, data.size(), meta); !s.ok()) {
    return s;
  }
  hashes_.push_back(hash);
  seq_of_.emplace(hash, seq);
  bytes_ += data.size();
  pending_.push_back({store_->write_mark(), seq});
  return Added{seq, true};
}

uint64_t PushedCorpus::durable_seq() const {
  if (pending_.empty()) return durable_seq_;
  const uint64_t on_disk = store_->durable_mark();
  while (!pending_.empty() && pending_.front().mark <= on_disk) {
    durable_seq_ = pending_.front().seq;
    pending_.pop_front();
  }
  return durable_seq_;
}

Status PushedCorpus::MakeDurable() {
  if (pending_.empty()) return Status::Ok();
  if (Status s = store_->Flush(); !s.ok()) return s;
  durable_seq_ = pending_.back().seq;
  pending_.clear();
  return Status::Ok();
}

Status PushedCorpus::Read(uint64_t seq, std::string* out) const {
  return store_->ReadInput(PushedRecordName(seq, HashAt(seq)), out);
}

uint64_t PushedCorpus::FirstSeqAfter(std::string_view cursor) const {
  uint64_t low = 1, high = last_seq() + 1;  // the answer is in [low, high]
  while (low < high) {
    const uint64_t mid = low + (high - low) / 2;
    if (PushedRecordName(mid, HashAt(mid)) > cursor) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low;
}

std::vector<std::pair<Hash, uint64_t>> PushedCorpus::ByHashAfter(std::string_view after) const {
  std::vector<std::pair<Hash, uint64_t>> out;
  out.reserve(hashes_.size());
  for (uint64_t seq = 1; seq <= last_seq(); seq++) out.emplace_back(HashAt(seq), seq);
  std::sort(out.begin(), out.end());
  if (!after.empty()) {
    out.erase(out.begin(), std::partition_point(out.begin(), out.end(), [&](const auto& e) {
                return HexOf(e.first) <= after;
              }));
  }
  return out;
}

}  // namespace pollen::controller
