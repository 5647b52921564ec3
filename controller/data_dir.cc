#include "controller/data_dir.h"

#include <filesystem>
#include <system_error>

namespace pollen::controller {

Result<DataDir> PrepareDataDir(const std::string& root) {
  namespace fs = std::filesystem;
  DataDir dir{root, root + "/registry", root + "/campaigns"};
  std::error_code ec;
  fs::file_status st = fs::status(root, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::Error("cannot use " + root +
                         " as the controller's data directory: " + ec.message());
  }
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) {
      return Status::Error(root + " is not a directory: --data needs a directory");
    }
    bool empty = fs::is_empty(root, ec);
    if (ec) return Status::Error("cannot read " + root + ": " + ec.message());
    if (!empty && !fs::is_directory(dir.registry, ec)) {
      return Status::Error(root +
                           " holds files but no registry/: it is not a controller's data "
                           "directory (give an empty or new directory)");
    }
  }
  // registry/ first: a directory holding it is recognised as ours even if the controller
  // dies before it has written anything else.
  fs::create_directories(dir.registry, ec);
  if (ec) return Status::Error("cannot create " + dir.registry + ": " + ec.message());
  fs::create_directories(dir.campaigns, ec);
  if (ec) return Status::Error("cannot create " + dir.campaigns + ": " + ec.message());
  return dir;
}

}  // namespace pollen::controller
