// The controller's data directory (--data):
//   DATA/registry/                      RocksDB: campaigns, nodes, crash states
//   DATA/campaigns/<name>/<build-id>/   one storage/ CorpusStore per campaign build
// A directory is used only when it is absent (created), empty, or already holds a
// registry/: a mistyped path never scatters a controller's files among somebody else's.
#ifndef POLLEN_CONTROLLER_DATA_DIR_H_
#define POLLEN_CONTROLLER_DATA_DIR_H_

#include <string>

#include "base/status.h"

namespace pollen::controller {

struct DataDir {
  std::string root;
  std::string registry;   // root/registry
  std::string campaigns;  // root/campaigns
};

// Creates what is missing of the layout under `root`. Errors name the path: not a
// directory, a non-empty directory without registry/, no permission.
Result<DataDir> PrepareDataDir(const std::string& root);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_DATA_DIR_H_
