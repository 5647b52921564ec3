#include "storage/store_inspect.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "storage/corpus_store_keys.h"
#include "storage/rocks_logger.h"
#include "storage/rocks_util.h"
#include "storage/store_path.h"

namespace pollen::storage {

Result<CampaignId> ReadStoredCampaign(const std::string& path) {
  Result<StorePathKind> kind = InspectStorePath(path);
  if (!kind.ok()) return kind.status();
  if (*kind == StorePathKind::kAbsentOrEmpty) {
    return Status::Error("no corpus store at " + path + " (absent or empty directory)");
  }
  rocksdb::DBOptions db_options;
  db_options.info_log = NewRocksLogger(path);
  std::vector<std::string> existing;
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(db_options, path, &existing);
  if (!s.ok()) return FromRocks(s, path, "reading its column families");
  if (std::find(existing.begin(), existing.end(), kCampaignCf) == existing.end()) {
    return Status::Error(path + " is a RocksDB database but not a pollen corpus store " +
                         "(it has no '" + kCampaignCf + "' column family)");
  }
  // A read-only open may name a subset of the column families: only the small one needed.
  const std::vector<rocksdb::ColumnFamilyDescriptor> descriptors = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {kCampaignCf, rocksdb::ColumnFamilyOptions()}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw_db = nullptr;
  s = rocksdb::DB::OpenForReadOnly(db_options, path, descriptors, &handles, &raw_db);
  if (!s.ok()) return FromRocks(s, path, "opening read-only");
  std::unique_ptr<rocksdb::DB> db(raw_db);
  std::string target;
  std::string build_id;
  rocksdb::Status got_target = db->Get(rocksdb::ReadOptions(), handles[1], kTargetKey, &target);
  rocksdb::Status got_build = db->Get(rocksdb::ReadOptions(), handles[1], kBuildIdKey, &build_id);
  for (rocksdb::ColumnFamilyHandle* handle : handles) {
    // Destroying a handle of a read-only database cannot fail in a way we could act on.
    (void)db->DestroyColumnFamilyHandle(handle);
  }
  db.reset();
  for (const rocksdb::Status* got : {&got_target, &got_build}) {
    if (got->IsNotFound()) {
      return Status::Error("corpus store " + path + " is incomplete: no target or build id");
    }
    if (!got->ok()) return FromRocks(*got, path, "reading its campaign");
  }
  return CampaignId{target, build_id};
}

}  // namespace pollen::storage
