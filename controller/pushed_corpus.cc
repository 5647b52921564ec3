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
  auto store = storage::CorpusStore::Open(path, {target, kPushedBuildId}, storage::StoreOptions{});
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
  return bad;
}

Result<bool> PushedCorpus::Add(std::string_view data, std::string_view origin,
                               int64_t now_unix_ms) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  const Hash hash = engine::Sha1(bytes, data.size());
  if (Contains(hash)) return false;
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
  return true;
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
