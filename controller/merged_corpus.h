// The merged global corpus of one campaign build: every input the nodes publish that adds a
// feature, kept in a storage/ CorpusStore and periodically reduced to a set cover.
//
// Insert is the cheap path, for every NewInputs message: an input whose hash the corpus
// holds is a duplicate; one whose features are all in the union of the corpus's features
// adds nothing and is dropped; the others are written (one atomic write per message) with
// their features, which join the union. The union and an index of hashes and sizes live in
// memory, built by one scan of the store's metadata when it opens (cost: docs/controller.md).
//
// Maintain is the slow path, every --merge-every seconds and on demand: storage/'s merge
// (CorpusMerger over the store alone: greedy set cover of its entries, the rest marked
// superseded) and CompactStore (superseded entries deleted, counter table rebuilt, RocksDB
// compaction). The union is the same before and after: a set cover keeps every feature.
//
// Thread safety: Insert and info() run on the service thread, Maintain on the maintenance
// thread, concurrently: the in-memory state has its own mutex, the store is thread-safe,
// and an input inserted during a merge is simply not part of that merge's cover (it is never
// marked superseded, so it stays). While CorpusStore::Compact rewrites the metadata,
// Insert waits for it (storage/corpus_store.h). Two Maintain calls must not overlap.
#ifndef POLLEN_CONTROLLER_MERGED_CORPUS_H_
#define POLLEN_CONTROLLER_MERGED_CORPUS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_message.h"
#include "storage/corpus_store.h"

namespace pollen::controller {

struct InsertReport {
  uint32_t added = 0;
  uint32_t duplicates = 0;
  uint32_t not_needed = 0;
};

struct MaintainReport {
  uint64_t entries_before = 0;
  uint64_t entries_after = 0;
  uint64_t removed = 0;  // superseded by the cover and deleted
  uint64_t features = 0;
  uint64_t duration_ms = 0;
  uint64_t disk_bytes_after = 0;
};

class MergedCorpus {
 public:
  struct Info {
    uint64_t entries = 0;
    uint64_t bytes = 0;     // sum of input sizes
    uint64_t features = 0;  // in the union
    uint64_t inserted_since_maintain = 0;
    int64_t last_maintain_unix_ms = 0;  // 0: not since it was opened
  };

  // Opens (creating) the store at `path` for `campaign` and reads its metadata once. Errors:
  // those of CorpusStore::Open (another target, another build, locked, corrupted), an
  // unreadable entry.
  static Result<std::unique_ptr<MergedCorpus>> Open(const std::string& path,
                                                    const storage::CampaignId& campaign);

  // Adds what adds a feature (see the file comment); `origin` becomes the entries' origin.
  // Errors: storage (nothing of this call was written then).
  Result<InsertReport> Insert(std::span<const InputEntry> entries, std::string_view origin,
                              int64_t now_unix_ms);

  // Merges and compacts (see the file comment). Errors: storage; the store stays readable
  // and the next Maintain finishes the job.
  Result<MaintainReport> Maintain(int64_t now_unix_ms);

  Info info() const;

  // The hashes of the entries whose hex form is greater than `after` ("" for all), in
  // ascending order: what a pull of this corpus sends (20 bytes per entry, copied under the
  // lock; the entries themselves are read from the store one at a time).
  std::vector<base::Digest> HashesAfter(std::string_view after) const;

  // True when the corpus holds an entry with this hash.
  bool Contains(const base::Digest& hash) const;

  storage::CorpusStore& store() { return *store_; }

 private:
  explicit MergedCorpus(std::unique_ptr<storage::CorpusStore> store) : store_(std::move(store)) {}
  Status Load();

  std::unique_ptr<storage::CorpusStore> store_;
  mutable std::mutex mu_;  // guards what follows
  std::unordered_map<base::Digest, uint64_t, base::DigestHasher>
      sizes_;                              // every entry: its input size
  std::unordered_set<uint32_t> features_;  // union of every entry's features
  uint64_t bytes_ = 0;
  uint64_t inserted_since_maintain_ = 0;
  int64_t last_maintain_unix_ms_ = 0;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_MERGED_CORPUS_H_
