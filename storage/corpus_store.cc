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
#include "storage/corpus_store_keys.h"
#include "storage/record_codec.h"
#include "storage/rocks_logger.h"
#include "storage/rocks_util.h"
#include "storage/store_path.h"

namespace pollen::storage {
namespace {

namespace fs = std::filesystem;

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
    return Status::Error(
        "corpus store " + path_ + " was written by an incompatible version of pollen (format " +
        text + "); this pollen reads formats 1 to " + std::to_string(kStoreFormatVersion) +
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

}  // namespace pollen::storage
