#include "storage/corpus_store.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/write_batch.h"
#include "storage/record_codec.h"
#include "storage/rocks_logger.h"
#include "storage/rocks_util.h"
#include "storage/store_path.h"

namespace pollen::storage {
namespace {

namespace fs = std::filesystem;

constexpr char kInputsCf[] = "inputs";
constexpr char kMetaCf[] = "meta";
constexpr char kCrashesCf[] = "crashes";
constexpr char kCampaignCf[] = "campaign";
constexpr char kMergeCf[] = "merge";
constexpr char kSupersededCf[] = "superseded";
constexpr char kFormatVersionKey[] = "format_version";
constexpr char kTargetKey[] = "target";
constexpr char kBuildIdKey[] = "build_id";
constexpr std::string_view kCounterTablePrefix = "counter_table/";  // + decimal id

std::string CounterTableKey(uint64_t id) {
  return std::string(kCounterTablePrefix) + std::to_string(id);
}

// Rewritten entries are written in batches of about this many bytes.
constexpr size_t kRewriteBatchBytes = 4 << 20;

}  // namespace

CorpusStore::CorpusStore(std::string path, CampaignId campaign, StoreOptions options)
    : path_(std::move(path)), campaign_(std::move(campaign)), options_(options) {}

CorpusStore::~CorpusStore() {
  if (Status s = Close(); !s.ok()) std::fprintf(stderr, "pollen: %s\n", s.message().c_str());
}

Result<std::unique_ptr<CorpusStore>> CorpusStore::Open(const std::string& path,
                                                       const CampaignId& campaign,
                                                       const StoreOptions& options) {
  if (campaign.target.empty()) {
    return Status::Error("cannot open corpus store " + path + ": the campaign target is empty");
  }
  Result<StorePathKind> kind = InspectStorePath(path);
  if (!kind.ok()) return kind.status();
  const bool create = *kind == StorePathKind::kAbsentOrEmpty;
  if (create) {
    if (options.read_only || !options.create_if_missing) {
      return Status::Error("no corpus store at " + path + " (absent or empty directory" +
                           (options.read_only ? "; a read-only open never creates one)"
                                              : "; create_if_missing is off)"));
    }
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) {
      return Status::Error("cannot create corpus store directory " + path + ": " + ec.message());
    }
  }
  std::unique_ptr<CorpusStore> store(new CorpusStore(path, campaign, options));
  if (Status s = store->OpenDatabase(create); !s.ok()) return s;
  if (Status s = store->CheckCampaign(); !s.ok()) return s;
  if (Status s = store->LoadCounterTables(); !s.ok()) return s;
  return store;
}

Status CorpusStore::OpenDatabase(bool create) {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = create;
  db_options.create_missing_column_families = create;
  db_options.info_log = NewRocksLogger(path_);
  const std::vector<std::string> ours = {kInputsCf, kMetaCf, kCrashesCf, kCampaignCf};
  std::vector<std::string> names = {rocksdb::kDefaultColumnFamilyName};
  names.insert(names.end(), ours.begin(), ours.end());
  if (!create) {
    std::vector<std::string> existing;
    rocksdb::Status s = rocksdb::DB::ListColumnFamilies(db_options, path_, &existing);
    if (!s.ok()) return FromRocks(s, path_, "reading its column families");
    for (const std::string& name : ours) {
      if (std::find(existing.begin(), existing.end(), name) == existing.end()) {
        return Status::Error(path_ + " is a RocksDB database but not a pollen corpus store " +
                             "(it has no '" + name + "' column family)");
      }
    }
    // A writer must open every column family, including any a newer pollen added; the
    // format version check below then decides whether we may use the store. It creates
    // the auxiliary tables that a store made by an older pollen lacks.
    if (!options_.read_only) {
      names = existing;
      db_options.create_missing_column_families = true;
    }
    for (const char* aux : {kMergeCf, kSupersededCf}) {
      const bool exists = std::find(existing.begin(), existing.end(), aux) != existing.end();
      if (std::find(names.begin(), names.end(), aux) == names.end() &&
          (exists || !options_.read_only)) {
        names.push_back(aux);
      }
    }
  } else {
    names.push_back(kMergeCf);
    names.push_back(kSupersededCf);
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& name : names) {
    if (name == kInputsCf) {
      descriptors.emplace_back(name, DataColumnFamilyOptions(/*bloom_filter=*/false));
    } else if (name == kMetaCf || name == kCrashesCf) {
      descriptors.emplace_back(name, DataColumnFamilyOptions(/*bloom_filter=*/true));
    } else {
      descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions());
    }
  }
  rocksdb::DB* db = nullptr;
  rocksdb::Status s =
      options_.read_only
          ? rocksdb::DB::OpenForReadOnly(db_options, path_, descriptors, &handles_, &db)
          : rocksdb::DB::Open(db_options, path_, descriptors, &handles_, &db);
  if (!s.ok()) return FromRocks(s, path_, "opening");
  db_.reset(db);
  if (!options_.read_only) {
    // Entry files a writer left unfinished or un-ingested (it crashed): their entries were
    // never acknowledged. Only now, under the lock, is no other writer using them.
    std::error_code ec;
    fs::remove_all(EntryFileDir(), ec);
    if (ec) {
      return Status::Error("corpus store " + path_ + ": cannot remove " + EntryFileDir() +
                           " (entry files left by an earlier writer): " + ec.message());
    }
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == kInputsCf) inputs_ = handles_[i];
    if (names[i] == kMetaCf) meta_ = handles_[i];
    if (names[i] == kCrashesCf) crashes_ = handles_[i];
    if (names[i] == kCampaignCf) campaign_cf_ = handles_[i];
    if (names[i] == kMergeCf) merge_cf_ = handles_[i];
    if (names[i] == kSupersededCf) superseded_cf_ = handles_[i];
  }
  POLLEN_CHECK(inputs_ && meta_ && crashes_ && campaign_cf_);
  return Status::Ok();
}

Status CorpusStore::CheckCampaign() {
  Result<std::optional<std::string>> version = Get(campaign_cf_, kFormatVersionKey);
  if (!version.ok()) return version.status();
  if (!version->has_value()) {
    // Just created, or creation was interrupted before the campaign was recorded.
    Result<bool> empty = IsEmpty();
    if (!empty.ok()) return empty.status();
    if (!options_.read_only && *empty) return RecordCampaign();
    return Status::Error("corpus store " + path_ + " is incomplete: it has no format version");
  }
  const std::string& text = **version;
  int format = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), format);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::Error("corpus store " + path_ + " has an unreadable format version " +
                         PrintableKey(text));
  }
  if (format < 1 || format > kStoreFormatVersion) {
    return Status::Error("corpus store " + path_ +
                         " was written by an incompatible version of pollen (format " + text +
                         "); this pollen reads formats 1 to " +
                         std::to_string(kStoreFormatVersion) +
                         ": open it with a matching pollen, or use another store path");
  }
  stored_format_ = format;
  Result<std::optional<std::string>> target = Get(campaign_cf_, kTargetKey);
  if (!target.ok()) return target.status();
  Result<std::optional<std::string>> build_id = Get(campaign_cf_, kBuildIdKey);
  if (!build_id.ok()) return build_id.status();
  if (!target->has_value() || !build_id->has_value()) {
    return Status::Error("corpus store " + path_ + " is incomplete: no target or build id");
  }
  if (**target != campaign_.target) {
    return Status::Error("corpus store " + path_ + " belongs to target " + PrintableKey(**target) +
                         ", not " + PrintableKey(campaign_.target) +
                         "; use a separate store path per target");
  }
  stored_build_id_ = **build_id;
  if (build_id_changed() && !options_.accept_build_id_change) {
    return Status::Error("corpus store " + path_ + " was recorded for build " +
                         PrintableKey(stored_build_id_) + " of target " +
                         PrintableKey(campaign_.target) + ", not build " +
                         PrintableKey(campaign_.build_id) +
                         ": its features are not valid for this build (accept the build id "
                         "change to open it, then re-run the corpus)");
  }
  return Status::Ok();
}

Status CorpusStore::RecordCampaign() {
  rocksdb::WriteBatch batch;
  for (const auto& [key, value] :
       {std::pair<std::string, std::string>{kFormatVersionKey, std::to_string(kStoreFormatVersion)},
        {kTargetKey, campaign_.target},
        {kBuildIdKey, campaign_.build_id}}) {
    rocksdb::Status s = batch.Put(campaign_cf_, key, value);
    if (!s.ok()) return FromRocks(s, path_, "recording the campaign");
  }
  if (Status s = Write("recording the campaign", &batch, /*sync=*/true); !s.ok()) return s;
  stored_build_id_ = campaign_.build_id;
  return Status::Ok();
}

Status CorpusStore::Close() {
  if (!db_) return Status::Ok();
  Status result;
  for (rocksdb::ColumnFamilyHandle* handle : handles_) {
    rocksdb::Status s = db_->DestroyColumnFamilyHandle(handle);
    if (!s.ok() && result.ok()) result = FromRocks(s, path_, "closing a column family");
  }
  handles_.clear();
  rocksdb::Status s = db_->Close();
  // NotSupported means "cleaned up by the destructor instead".
  if (!s.ok() && !s.IsNotSupported() && result.ok()) result = FromRocks(s, path_, "closing");
  db_.reset();
  return result;
}

Status CorpusStore::CheckWritable(std::string_view operation) const {
  if (!options_.read_only) return Status::Ok();
  return Status::Error("corpus store " + path_ + " is open read-only: cannot " +
                       std::string(operation));
}

Status CorpusStore::Write(std::string_view operation, rocksdb::WriteBatch* batch, bool sync) {
  rocksdb::WriteOptions write_options;
  write_options.sync = sync;
  rocksdb::Status s = db_->Write(write_options, batch);
  if (!s.ok()) return FromRocks(s, path_, operation);
  return Status::Ok();
}

Result<std::optional<std::string>> CorpusStore::Get(rocksdb::ColumnFamilyHandle* cf,
                                                    std::string_view key) const {
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), cf, ToSlice(key), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return FromRocks(s, path_, "reading key " + PrintableKey(key));
  return std::optional<std::string>(std::move(value));
}

Status CorpusStore::Scan(
    rocksdb::ColumnFamilyHandle* cf,
    const std::function<Result<bool>(std::string_view, std::string_view)>& fn) const {
  rocksdb::ReadOptions read_options;
  read_options.fill_cache = false;  // a full scan would evict the hot blocks
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options, cf));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    Result<bool> more = fn(ToView(it->key()), ToView(it->value()));
    if (!more.ok()) return more.status();
    if (!*more) break;
  }
  if (!it->status().ok()) return FromRocks(it->status(), path_, "scanning " + cf->GetName());
  return Status::Ok();
}

Result<bool> CorpusStore::IsEmpty() const {
  bool empty = true;
  for (rocksdb::ColumnFamilyHandle* cf : {inputs_, meta_, crashes_}) {
    Status s = Scan(cf, [&](std::string_view, std::string_view) -> Result<bool> {
      empty = false;
      return false;
    });
    if (!s.ok()) return s;
  }
  return empty;
}

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
    rocksdb::Status s = batch.Put(
        inputs_, ToSlice(e.hash),
        rocksdb::Slice(reinterpret_cast<const char*>(e.data.data()), e.data.size()));
    if (s.ok()) s = batch.Put(meta_, ToSlice(e.hash), tables_.Encode(*e.meta));
    if (!s.ok()) return FromRocks(s, path_, "putting entry " + PrintableKey(e.hash));
  }
  const std::string doing = entries.size() == 1 ? "putting entry " + PrintableKey(entries[0].hash)
                                                : "putting entries";
  return Write(doing, &batch, options_.sync_writes);
}

Status CorpusStore::CheckNewEntry(std::string_view hash, size_t size,
                                  const EntryMeta& meta) const {
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

Result<std::optional<std::string>> CorpusStore::GetAux(AuxTable table,
                                                       std::string_view key) const {
  if (AuxHandle(table) == nullptr) return std::optional<std::string>();
  return Get(AuxHandle(table), key);
}

Status CorpusStore::ForEachAux(
    AuxTable table,
    const std::function<bool(std::string_view key, std::string_view value)>& fn) const {
  if (AuxHandle(table) == nullptr) return Status::Ok();
  return Scan(AuxHandle(table),
              [&](std::string_view key, std::string_view value) -> Result<bool> {
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

Result<CorpusStore::Stats> CorpusStore::GetStats() const {
  Stats stats;
  Status s = ForEachEntry([&](std::string_view, const EntryMeta& meta) {
    ++stats.entries;
    stats.raw_bytes += meta.size;
    return true;
  });
  if (!s.ok()) return s;
  s = Scan(crashes_, [&](std::string_view, std::string_view) -> Result<bool> {
    ++stats.crashes;
    return true;
  });
  if (!s.ok()) return s;
  for (rocksdb::ColumnFamilyHandle* cf : handles_) {
    uint64_t bytes = 0;
    if (!db_->GetIntProperty(cf, rocksdb::DB::Properties::kLiveSstFilesSize, &bytes)) {
      return Status::Error("corpus store " + path_ + ": cannot read the SST size of " +
                           cf->GetName());
    }
    stats.disk_bytes += bytes;
    if (cf == inputs_) stats.input_disk_bytes = bytes;
  }
  return stats;
}

Status CorpusStore::AdoptBuildId() {
  if (Status s = CheckWritable("adopt a build id"); !s.ok()) return s;
  rocksdb::WriteBatch batch;
  rocksdb::Status s = batch.Put(campaign_cf_, kBuildIdKey, campaign_.build_id);
  if (!s.ok()) return FromRocks(s, path_, "recording the build id");
  if (Status w = Write("recording the build id", &batch, /*sync=*/true); !w.ok()) return w;
  stored_build_id_ = campaign_.build_id;
  return Status::Ok();
}

Status CorpusStore::Flush() {
  if (Status s = CheckWritable("flush"); !s.ok()) return s;
  rocksdb::FlushOptions flush_options;
  flush_options.wait = true;
  rocksdb::Status s = db_->Flush(flush_options, handles_);
  if (!s.ok()) return FromRocks(s, path_, "flushing");
  return Status::Ok();
}

Status CorpusStore::Compact() {
  if (Status s = Flush(); !s.ok()) return s;
  if (Status s = RebuildCounterTable(); !s.ok()) return s;
  // Rewrites the last level too (RocksDB skips it by default), so that files written under
  // older options (block size, compression) take the current ones.
  rocksdb::CompactRangeOptions options;
  options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
  for (rocksdb::ColumnFamilyHandle* cf : handles_) {
    rocksdb::Status s = db_->CompactRange(options, cf, nullptr, nullptr);
    if (!s.ok()) return FromRocks(s, path_, "compacting " + cf->GetName());
  }
  return Status::Ok();
}

Status CorpusStore::LoadCounterTables() {
  uint64_t current = 0;
  Status s = Scan(campaign_cf_, [&](std::string_view key, std::string_view value) -> Result<bool> {
    if (!key.starts_with(kCounterTablePrefix)) return true;
    Result<CounterTable> table = DecodeCounterTable(value);
    if (!table.ok() || key != CounterTableKey(table->id)) {
      return Status::Error("corpus store " + path_ + " is corrupted: " + PrintableKey(key) +
                           (table.ok() ? " holds counter table " + std::to_string(table->id)
                                       : ": " + table.status().message()));
    }
    current = std::max(current, table->id);
    tables_.Add(std::move(table).value());
    return true;
  });
  if (!s.ok()) return s;
  tables_.SetCurrent(current);  // the newest: the one the last Compact chose
  return Status::Ok();
}

Status CorpusStore::RebuildCounterTable() {
  std::unique_lock<std::shared_mutex> lock(entries_mutex_);
  CounterTableChooser chooser;
  Status s = ForEachEntry([&](std::string_view, const EntryMeta& meta) {
    chooser.Add(meta.features);
    return true;
  });
  if (!s.ok()) return s;
  std::vector<uint32_t> counters = chooser.Counters();
  const std::shared_ptr<const CounterTable> previous = tables_.current();
  uint64_t chosen = 0;
  if (previous != nullptr && previous->counters == counters) {
    chosen = previous->id;
  } else if (!counters.empty()) {
    CounterTable table{tables_.max_id() + 1, std::move(counters)};
    rocksdb::WriteBatch batch;
    rocksdb::Status put =
        batch.Put(campaign_cf_, CounterTableKey(table.id), EncodeCounterTable(table));
    if (put.ok() && stored_format_ < kStoreFormatVersion) {
      put = batch.Put(campaign_cf_, kFormatVersionKey, std::to_string(kStoreFormatVersion));
    }
    if (!put.ok()) return FromRocks(put, path_, "writing a counter table");
    if (Status w = Write("writing a counter table", &batch, /*sync=*/true); !w.ok()) return w;
    stored_format_ = kStoreFormatVersion;
    chosen = table.id;
    tables_.Add(std::move(table));
  }
  tables_.SetCurrent(chosen);

  // Every entry over the chosen table (or v1 without one). Nothing else writes entries
  // meanwhile, so the scan's snapshot is the store's current state.
  rocksdb::WriteBatch batch;
  auto write = [&]() -> Status {
    Status w = Write("rewriting entry metadata", &batch, options_.sync_writes);
    batch.Clear();
    return w;
  };
  s = Scan(meta_, [&](std::string_view hash, std::string_view value) -> Result<bool> {
    Result<EntryMeta> meta = tables_.Decode(value);
    if (!meta.ok()) {
      return Status::Error("corpus store " + path_ + ": entry " + PrintableKey(hash) + ": " +
                           meta.status().message());
    }
    const std::string encoded = tables_.Encode(*meta);
    if (encoded == value) return true;
    rocksdb::Status put = batch.Put(meta_, ToSlice(hash), encoded);
    if (!put.ok()) return FromRocks(put, path_, "rewriting entry " + PrintableKey(hash));
    if (batch.GetDataSize() >= kRewriteBatchBytes) {
      if (Status w = write(); !w.ok()) return w;
    }
    return true;
  });
  if (!s.ok()) return s;
  if (Status w = write(); !w.ok()) return w;

  // No entry refers to another table now.
  s = Scan(campaign_cf_, [&](std::string_view key, std::string_view) -> Result<bool> {
    if (key.starts_with(kCounterTablePrefix) && key != CounterTableKey(chosen)) {
      rocksdb::Status del = batch.Delete(campaign_cf_, ToSlice(key));
      if (!del.ok()) return FromRocks(del, path_, "deleting counter table " + PrintableKey(key));
    }
    return true;
  });
  if (!s.ok()) return s;
  return Write("deleting old counter tables", &batch, /*sync=*/true);
}

}  // namespace pollen::storage
