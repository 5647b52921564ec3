// A corpus store's tables: entries (inputs and their metadata), the auxiliary tables and
// crashes. Opening, closing and the campaign check are in corpus_store.cc.
#include <algorithm>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/write_batch.h"
#include "storage/corpus_store.h"
#include "storage/record_codec.h"
#include "storage/rocks_util.h"

namespace pollen::storage {

Status CorpusStore::PutEntry(std::string_view hash, const uint8_t* data, size_t size,
                             const EntryMeta& meta) {
  POLLEN_CHECK(data != nullptr || size == 0);
  const NewEntry entry{hash, std::span<const uint8_t>(data, size), &meta};
  return PutEntries(std::span<const NewEntry>(&entry, 1));
}

Status CorpusStore::PutEntries(std::span<const NewEntry> entries) {
  if (Status s = CheckWritable("put an entry"); !s.ok()) return s;
  std::shared_lock<std::shared_mutex> lock(entries_mutex_);
  rocksdb::WriteBatch batch;
  for (const NewEntry& e : entries) {
    POLLEN_CHECK(e.meta != nullptr && (e.data.data() != nullptr || e.data.empty()));
    if (Status s = CheckNewEntry(e.hash, e.data.size(), *e.meta); !s.ok()) return s;
    rocksdb::Status s =
        batch.Put(inputs_, ToSlice(e.hash),
                  rocksdb::Slice(reinterpret_cast<const char*>(e.data.data()), e.data.size()));
    if (s.ok()) s = batch.Put(meta_, ToSlice(e.hash), tables_.Encode(*e.meta));
    if (!s.ok()) return FromRocks(s, path_, "putting entry " + PrintableKey(e.hash));
  }
  const std::string doing =
      entries.size() == 1 ? "putting entry " + PrintableKey(entries[0].hash) : "putting entries";
  return Write(doing, &batch, options_.sync_writes);
}

Status CorpusStore::CheckNewEntry(std::string_view hash, size_t size, const EntryMeta& meta) const {
  const std::string where = "corpus store " + path_ + ": cannot put entry " + PrintableKey(hash);
  if (hash.empty()) return Status::Error(where + ": the hash is empty");
  if (meta.size != size) {
    return Status::Error(where + ": meta.size is " + std::to_string(meta.size) +
                         " but the input has " + std::to_string(size) + " bytes");
  }
  if (!std::is_sorted(meta.features.begin(), meta.features.end())) {
    return Status::Error(where + ": meta.features is not sorted");
  }
  return Status::Ok();
}

bool CorpusStore::HasEntry(std::string_view hash) const {
  Result<std::optional<std::string>> value = Get(meta_, hash);
  return value.ok() && value->has_value();
}

Result<std::vector<uint8_t>> CorpusStore::GetInput(std::string_view hash) const {
  Result<std::optional<std::string>> value = Get(inputs_, hash);
  if (!value.ok()) return value.status();
  if (!value->has_value()) {
    return Status::Error("corpus store " + path_ + " has no entry " + PrintableKey(hash));
  }
  return std::vector<uint8_t>((*value)->begin(), (*value)->end());
}

Status CorpusStore::ReadInput(std::string_view hash, std::string* out) const {
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), inputs_, ToSlice(hash), out);
  if (s.IsNotFound()) {
    return Status::Error("corpus store " + path_ + " has no entry " + PrintableKey(hash));
  }
  if (!s.ok()) return FromRocks(s, path_, "reading key " + PrintableKey(hash));
  return Status::Ok();
}

Result<EntryMeta> CorpusStore::GetMeta(std::string_view hash) const {
  Result<std::optional<std::string>> value = Get(meta_, hash);
  if (!value.ok()) return value.status();
  if (!value->has_value()) {
    return Status::Error("corpus store " + path_ + " has no entry " + PrintableKey(hash));
  }
  Result<EntryMeta> meta = tables_.Decode(**value);
  if (!meta.ok()) {
    return Status::Error("corpus store " + path_ + ": entry " + PrintableKey(hash) + ": " +
                         meta.status().message());
  }
  return meta;
}

Status CorpusStore::ForEachEntry(
    const std::function<bool(std::string_view hash, const EntryMeta& meta)>& fn) const {
  return Scan(meta_, [&](std::string_view hash, std::string_view value) -> Result<bool> {
    Result<EntryMeta> meta = tables_.Decode(value);
    if (!meta.ok()) {
      return Status::Error("corpus store " + path_ + ": entry " + PrintableKey(hash) + ": " +
                           meta.status().message());
    }
    return fn(hash, *meta);
  });
}

Status CorpusStore::DeleteEntry(std::string_view hash) {
  const std::string key(hash);
  return DeleteEntries(std::span<const std::string>(&key, 1));
}

Status CorpusStore::DeleteEntries(std::span<const std::string> hashes) {
  if (Status s = CheckWritable("delete an entry"); !s.ok()) return s;
  std::shared_lock<std::shared_mutex> lock(entries_mutex_);
  rocksdb::WriteBatch batch;
  for (const std::string& hash : hashes) {
    rocksdb::Status s = batch.Delete(inputs_, ToSlice(hash));
    if (s.ok()) s = batch.Delete(meta_, ToSlice(hash));
    if (!s.ok()) return FromRocks(s, path_, "deleting entry " + PrintableKey(hash));
  }
  const std::string doing =
      hashes.size() == 1 ? "deleting entry " + PrintableKey(hashes[0]) : "deleting entries";
  return Write(doing, &batch, options_.sync_writes);
}

rocksdb::ColumnFamilyHandle* CorpusStore::AuxHandle(AuxTable table) const {
  return table == AuxTable::kMergeState ? merge_cf_ : superseded_cf_;
}

Status CorpusStore::PutAux(AuxTable table,
                           std::span<const std::pair<std::string, std::string>> records) {
  if (Status s = CheckWritable("write an auxiliary table"); !s.ok()) return s;
  rocksdb::WriteBatch batch;
  for (const auto& [key, value] : records) {
    rocksdb::Status s = batch.Put(AuxHandle(table), ToSlice(key), ToSlice(value));
    if (!s.ok()) return FromRocks(s, path_, "putting " + PrintableKey(key));
  }
  return Write("writing " + AuxHandle(table)->GetName(), &batch, options_.sync_writes);
}

Result<std::optional<std::string>> CorpusStore::GetAux(AuxTable table, std::string_view key) const {
  if (AuxHandle(table) == nullptr) return std::optional<std::string>();
  return Get(AuxHandle(table), key);
}

Status CorpusStore::ForEachAux(
    AuxTable table,
    const std::function<bool(std::string_view key, std::string_view value)>& fn) const {
  if (AuxHandle(table) == nullptr) return Status::Ok();
  return Scan(AuxHandle(table), [&](std::string_view key, std::string_view value) -> Result<bool> {
    return fn(key, value);
  });
}

Status CorpusStore::ClearAux(AuxTable table) {
  if (Status s = CheckWritable("clear an auxiliary table"); !s.ok()) return s;
  rocksdb::WriteBatch batch;
  Status scan = Scan(AuxHandle(table), [&](std::string_view key, std::string_view) -> Result<bool> {
    rocksdb::Status s = batch.Delete(AuxHandle(table), ToSlice(key));
    if (!s.ok()) return FromRocks(s, path_, "clearing " + AuxHandle(table)->GetName());
    return true;
  });
  if (!scan.ok()) return scan;
  return Write("clearing " + AuxHandle(table)->GetName(), &batch, options_.sync_writes);
}

Status CorpusStore::PutCrash(std::string_view signature, const CrashRecord& r) {
  if (Status s = CheckWritable("put a crash"); !s.ok()) return s;
  if (signature.empty()) {
    return Status::Error("corpus store " + path_ + ": cannot put a crash with an empty signature");
  }
  std::lock_guard<std::mutex> lock(crash_mutex_);
  Result<std::optional<CrashRecord>> existing = GetCrash(signature);
  if (!existing.ok()) return existing.status();
  CrashRecord merged = r;
  if (existing->has_value()) {
    const CrashRecord& old = **existing;
    merged = old;
    merged.count = old.count + r.count;
    merged.first_seen_unix_ms = std::min(old.first_seen_unix_ms, r.first_seen_unix_ms);
    merged.last_seen_unix_ms = std::max(old.last_seen_unix_ms, r.last_seen_unix_ms);
    if (r.input.size() < old.input.size()) {
      merged.input = r.input;
      merged.report = r.report;
    }
  }
  rocksdb::WriteBatch batch;
  rocksdb::Status s = batch.Put(crashes_, ToSlice(signature), EncodeCrashRecord(merged));
  if (!s.ok()) return FromRocks(s, path_, "putting crash " + PrintableKey(signature));
  return Write("putting crash " + PrintableKey(signature), &batch, options_.sync_writes);
}

Result<std::optional<CrashRecord>> CorpusStore::GetCrash(std::string_view signature) const {
  Result<std::optional<std::string>> value = Get(crashes_, signature);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return std::optional<CrashRecord>();
  Result<CrashRecord> record = DecodeCrashRecord(**value);
  if (!record.ok()) {
    return Status::Error("corpus store " + path_ + ": crash " + PrintableKey(signature) + ": " +
                         record.status().message());
  }
  return std::optional<CrashRecord>(std::move(record).value());
}

Status CorpusStore::ForEachCrash(
    const std::function<bool(std::string_view signature, const CrashRecord& r)>& fn) const {
  return Scan(crashes_, [&](std::string_view signature, std::string_view value) -> Result<bool> {
    Result<CrashRecord> record = DecodeCrashRecord(value);
    if (!record.ok()) {
      return Status::Error("corpus store " + path_ + ": crash " + PrintableKey(signature) + ": " +
                           record.status().message());
    }
    return fn(signature, *record);
  });
}

}  // namespace pollen::storage
