// The controller's registry: one small RocksDB database (DATA/registry/) of what is not a
// corpus — campaigns, nodes' last known state, what the crash tables do not hold. Keys are
// prefixed by kind ("c/", "n/", "x/"); values are Cap'n Proto records
// (schema/controller.capnp, "Records", controller/registry_records.h).
//
// Durability: every write is in RocksDB's write-ahead log before Put returns, so it
// survives a kill of the process (not a power loss: no fsync per write, as storage/'s
// stores). Thread safety: RocksDB's; the controller uses it from its service thread.
#ifndef POLLEN_CONTROLLER_REGISTRY_DB_H_
#define POLLEN_CONTROLLER_REGISTRY_DB_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace rocksdb {
class DB;
}

namespace pollen::controller {

class RegistryDb {
 public:
  // Opens the database in directory `path`, creating it when absent or empty. Errors name
  // the path: not a database (a file, or a directory holding other things: never reset),
  // corruption, or the lock held by another controller.
  static Result<std::unique_ptr<RegistryDb>> Open(const std::string& path);
  ~RegistryDb();
  RegistryDb(const RegistryDb&) = delete;
  RegistryDb& operator=(const RegistryDb&) = delete;

  Status Put(std::string_view key, std::string_view value);
  Status Delete(std::string_view key);
  // Deletes and puts in one atomic write: all of them or none survive a crash.
  Status Write(const std::vector<std::string>& deletes,
               const std::vector<std::pair<std::string, std::string>>& puts);
  // The value under `key`, nullopt if none.
  Result<std::optional<std::string>> Get(std::string_view key) const;
  // Calls fn(key, value) for every key that starts with `prefix`, in key order, until it
  // returns false.
  Status ForEach(std::string_view prefix,
                 const std::function<bool(std::string_view key, std::string_view value)>& fn) const;

  const std::string& path() const { return path_; }

 private:
  RegistryDb(std::string path, std::unique_ptr<rocksdb::DB> db);
  std::string path_;
  std::unique_ptr<rocksdb::DB> db_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_REGISTRY_DB_H_
