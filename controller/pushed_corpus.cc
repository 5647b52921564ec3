#include "controller/pushed_corpus.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "base/sha1.h"
#include "controller/client/record_names.h"

namespace pollen::controller {
namespace {

// The store's build id: pushed inputs belong to no build (features are never recorded).
constexpr char kPushedBuildId[] = "pushed";

}  // namespace

Result<std::unique_ptr<PushedCorpus>> PushedCorpus::Open(const std::string& path,
                                                         const std::string& target,
                                                         uint64_t seal_bytes) {
  auto store = storage::CorpusStore::Open(path, {target, kPushedBuildId}, storage::StoreOptions());
  if (!store.ok()) return store.status();
  std::unique_ptr<PushedCorpus> corpus(new PushedCorpus(std::move(store).value(), seal_bytes));
  if (Status s = corpus->Load(); !s.ok()) return s;
  return corpus;
}

Status PushedCorpus::Load() {
  Status bad;
  Status s = store_->ForEachEntry([&](std::string_view key, const storage::EntryMeta& meta) {
    uint64_t seq;
    base::Digest hash;
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
  durable_bytes_ = bytes_;
  return bad;
}

PushedCorpus::~PushedCorpus() {
  if (Status s = MakeDurable(); !s.ok()) spdlog::error("controller: {}", s.message());
}

Result<PushedCorpus::Added> PushedCorpus::Add(std::string_view data, std::string_view origin,
                                              int64_t now_unix_ms) {
  SettleFailure();
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  const base::Digest hash = base::Sha1(bytes, data.size());
  if (auto it = seq_of_.find(hash); it != seq_of_.end()) return Added{it->second, false};
  const uint64_t seq = hashes_.size() + 1;
  storage::EntryMeta meta;
  meta.size = data.size();
  meta.origin = std::string(origin);
  meta.first_seen_unix_ms = now_unix_ms;
  if (file_ == nullptr) {
    Result<std::unique_ptr<storage::EntryFile>> file = store_->StartEntryFile();
    if (!file.ok()) return file.status();  // no entry is waiting: none was open
    file_ = std::move(file).value();
  }
  if (Status s = file_->Add(PushedRecordName(seq, hash), {bytes, data.size()}, meta); !s.ok()) {
    DropNotDurable();
    return s;
  }
  hashes_.push_back(hash);
  seq_of_.emplace(hash, seq);
  bytes_ += data.size();
  if (file_->bytes() >= seal_bytes_) Seal();
  return Added{seq, true};
}

void PushedCorpus::Seal() {
  if (file_ == nullptr) return;
  if (ingesting_.size() >= kMaxIngesting) ingesting_.front().done.wait();
  std::shared_future<Status> before;
  if (!ingesting_.empty()) before = ingesting_.back().done;
  storage::CorpusStore* store = store_.get();
  std::future<Status> done =
      std::async(std::launch::async, [store, before, file = std::move(file_)]() mutable -> Status {
        if (before.valid() && !before.get().ok()) {
          return Status::Error("pushed corpus " + store->path() +
                               ": an entry file not ingested, since one before it failed");
        }
        return store->IngestEntryFile(std::move(file));
      });
  ingesting_.push_back({last_seq(), bytes_, done.share()});
}

void PushedCorpus::WaitForIngestions() const {
  for (const Ingesting& ingesting : ingesting_) ingesting.done.wait();
}

uint64_t PushedCorpus::durable_seq() const {
  TakeIngested();
  return durable_seq_;
}

void PushedCorpus::TakeIngested() const {
  while (!ingesting_.empty()) {
    const Ingesting& front = ingesting_.front();
    if (front.done.wait_for(std::chrono::seconds(0)) != std::future_status::ready ||
        !front.done.get().ok()) {
      return;
    }
    durable_seq_ = front.last_seq;
    durable_bytes_ = front.bytes;
    ingesting_.pop_front();
  }
}

void PushedCorpus::SettleFailure() {
  TakeIngested();
  if (ingesting_.empty()) return;
  const std::shared_future<Status>& front = ingesting_.front().done;
  if (front.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  spdlog::error("controller: {} (the pushes that sent its entries fail; they resume)",
                front.get().message());
  DropNotDurable();
}

Status PushedCorpus::MakeDurable() {
  SettleFailure();
  Seal();
  WaitForIngestions();
  TakeIngested();
  if (ingesting_.empty()) return Status::Ok();
  Status failed = ingesting_.front().done.get();
  DropNotDurable();
  return failed;
}

void PushedCorpus::DropNotDurable() {
  file_.reset();
  WaitForIngestions();
  TakeIngested();  // those before a failure count
  ingesting_.clear();
  for (uint64_t seq = durable_seq_ + 1; seq <= last_seq(); seq++) seq_of_.erase(HashAt(seq));
  hashes_.resize(durable_seq_);
  bytes_ = durable_bytes_;
  failures_.push_back(durable_seq_);
}

uint64_t PushedCorpus::LossSince(uint64_t* seen) const {
  uint64_t lowest = UINT64_MAX;
  for (uint64_t i = *seen; i < failures_.size(); i++) lowest = std::min(lowest, failures_[i]);
  *seen = failures_.size();
  return lowest;
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

std::vector<std::pair<base::Digest, uint64_t>> PushedCorpus::ByHashAfter(
    std::string_view after) const {
  std::vector<std::pair<base::Digest, uint64_t>> out;
  out.reserve(durable_seq());
  for (uint64_t seq = 1; seq <= durable_seq(); seq++) out.emplace_back(HashAt(seq), seq);
  std::sort(out.begin(), out.end());
  if (!after.empty()) {
    out.erase(out.begin(), std::partition_point(out.begin(), out.end(), [&](const auto& e) {
                return base::DigestHex(e.first) <= after;
              }));
  }
  return out;
}

}  // namespace pollen::controller
