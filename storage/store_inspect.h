// Reading what a store records about itself without knowing its campaign first: for tools
// that inspect any store (`pollen corpus stats`), which then open it read-only with the
// campaign found here.
#ifndef POLLEN_STORAGE_STORE_INSPECT_H_
#define POLLEN_STORAGE_STORE_INSPECT_H_

#include <string>

#include "base/status.h"
#include "storage/records.h"

namespace pollen::storage {

// The campaign (target and build id) recorded in the store at `path`, read through a short
// read-only open that takes no lock (safe beside a running writer). Errors name `path`: no
// store there (absent or empty directory), not a store (see InspectStorePath), a RocksDB
// database without a "campaign" column family, a store without a recorded target or build
// id, or RocksDB's own error. Does not check the format version: CorpusStore::Open with the
// returned campaign does. Thread-safe.
Result<CampaignId> ReadStoredCampaign(const std::string& path);

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_STORE_INSPECT_H_
