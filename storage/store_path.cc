#include "storage/store_path.h"

#include <filesystem>
#include <system_error>

namespace pollen::storage {

namespace fs = std::filesystem;

Result<StorePathKind> InspectStorePath(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return StorePathKind::kAbsentOrEmpty;
  if (ec) return Status::Error("cannot inspect corpus store path " + path + ": " + ec.message());
  if (!fs::is_directory(status)) {
    return Status::Error(path +
                         " exists but is not a directory, so it is not a pollen "
                         "corpus store; give a directory path that is absent, empty, or a store");
  }
  fs::directory_iterator it(path, ec);
  if (ec) return Status::Error("cannot list corpus store directory " + path + ": " + ec.message());
  if (it == fs::directory_iterator()) return StorePathKind::kAbsentOrEmpty;
  if (fs::exists(fs::path(path) / "CURRENT", ec)) return StorePathKind::kDatabase;
  if (ec) return Status::Error("cannot inspect corpus store path " + path + ": " + ec.message());
  return Status::Error(path +
                       " is a non-empty directory without a RocksDB database (no "
                       "CURRENT file), so it is not a pollen corpus store; refusing to create "
                       "one among its files: give an absent or empty directory");
}

}  // namespace pollen::storage
