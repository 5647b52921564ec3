#include "controller/registry_db.h"

#include <filesystem>
#include <system_error>

#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/write_batch.h"
#include "storage/rocks_logger.h"
#include "storage/rocks_util.h"
#include "storage/store_path.h"

namespace pollen::controller {
namespace {

using storage::ToSlice;

// As storage::FromRocks, for the registry: the same classes (storage::RocksCode), its own words.
Status FromRocks(const rocksdb::Status& s, const std::string& path, std::string_view doing) {
  const std::string what = s.ToString();
  const StatusCode code = storage::RocksCode(s);
  if (storage::IsLockHeld(s)) {
    return Status::Error(code, "registry " + path +
                                   " is locked by another pollen controller (one controller "
                                   "per --data directory): " +
                                   what);
  }
  if (s.IsCorruption()) {
    return Status::Error(
        code, "registry " + path + " is corrupted (" + std::string(doing) + "): " + what);
  }
  return Status::Error(code, "registry " + path + ": " + std::string(doing) + ": " + what);
}

}  // namespace

RegistryDb::RegistryDb(std::string path, std::unique_ptr<rocksdb::DB> db)
    : path_(std::move(path)), db_(std::move(db)) {}

RegistryDb::~RegistryDb() {
  if (db_) (void)db_->Close();
}

Result<std::unique_ptr<RegistryDb>> RegistryDb::Open(const std::string& path) {
  Result<storage::StorePathKind> kind = storage::InspectStorePath(path);
  if (!kind.ok()) return kind.status();
  rocksdb::Options options;
  options.create_if_missing = *kind == storage::StorePathKind::kAbsentOrEmpty;
  if (options.create_if_missing) {
    std::error_code ec;  // RocksDB creates only the last level, and complains first
    std::filesystem::create_directories(path, ec);
    if (ec) return Status::Error("cannot create registry " + path + ": " + ec.message());
  }
  options.info_log = storage::NewRocksLogger(path);
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, path, &raw);
  if (!s.ok()) return FromRocks(s, path, "opening");
  return std::unique_ptr<RegistryDb>(new RegistryDb(path, std::unique_ptr<rocksdb::DB>(raw)));
}

Status RegistryDb::Put(std::string_view key, std::string_view value) {
  rocksdb::Status s = db_->Put(rocksdb::WriteOptions(), ToSlice(key), ToSlice(value));
  return s.ok() ? Status::Ok() : FromRocks(s, path_, "writing");
}

Status RegistryDb::Write(const std::vector<std::string>& deletes,
                         const std::vector<std::pair<std::string, std::string>>& puts) {
  rocksdb::WriteBatch batch;
  for (const std::string& key : deletes) batch.Delete(ToSlice(key));
  for (const auto& [key, value] : puts) batch.Put(ToSlice(key), ToSlice(value));
  rocksdb::Status s = db_->Write(rocksdb::WriteOptions(), &batch);
  return s.ok() ? Status::Ok() : FromRocks(s, path_, "writing");
}

Status RegistryDb::Delete(std::string_view key) {
  rocksdb::Status s = db_->Delete(rocksdb::WriteOptions(), ToSlice(key));
  return s.ok() ? Status::Ok() : FromRocks(s, path_, "deleting");
}

Result<std::optional<std::string>> RegistryDb::Get(std::string_view key) const {
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), ToSlice(key), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return FromRocks(s, path_, "reading");
  return std::optional<std::string>(std::move(value));
}

Status RegistryDb::ForEach(
    std::string_view prefix,
    const std::function<bool(std::string_view key, std::string_view value)>& fn) const {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(ToSlice(prefix)); it->Valid(); it->Next()) {
    std::string_view key(it->key().data(), it->key().size());
    if (!key.starts_with(prefix)) break;
    if (!fn(key, std::string_view(it->value().data(), it->value().size()))) break;
  }
  return it->status().ok() ? Status::Ok() : FromRocks(it->status(), path_, "scanning");
}

}  // namespace pollen::controller
