// The node's live corpus: the entries being fuzzed, in memory for speed, each persisted in
// the RocksDB store as soon as it is accepted, with the features it covers.
#ifndef POLLEN_NODE_LIVE_CORPUS_H_
#define POLLEN_NODE_LIVE_CORPUS_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/digest.h"
#include "base/status.h"
#include "engine/feature_owners.h"
#include "engine/rng.h"
#include "engine/scheduler.h"
#include "storage/corpus_store.h"

namespace pollen::node {

struct CorpusEntry {
  base::Digest hash{};  // SHA-1 of data
  std::vector<uint8_t> data;
  std::vector<uint32_t> features;  // sorted
  std::string origin;  // who found it (EntryMeta::origin): the corpus's own, or a peer's
};

// An input to run before fuzzing starts: a seed, or a stored entry whose features this build
// has not measured. `own`: a seed, or an entry the corpus's own origin found (not a peer's or
// the controller's): what --keep-seed keeps whatever it covers.
struct StartupInput {
  std::vector<uint8_t> data;
  bool own = true;
};

class LiveCorpus {
 public:
  // `store` may be null (nothing persisted); it must outlive the corpus.
  explicit LiveCorpus(storage::CorpusStore* store, std::string origin);

  // Loads what the store holds. Entries with features recorded for this build join the
  // corpus directly (their features are returned through `known`, to seed the coverage
  // map); the others are returned in `to_execute`.
  Status Load(bool trust_features, std::vector<std::vector<uint32_t>>* known,
              std::vector<StartupInput>* to_execute);

  bool Contains(const base::Digest& hash) const { return index_.count(hash) != 0; }

  // The entry with this hash, or null.
  const CorpusEntry* Find(const base::Digest& hash) const;

  // Adds an entry whose coverage the caller found new, or a start-up input it keeps
  // (--keep-seed); persists it first. `features` need not be sorted. `origin` is recorded
  // with it; empty: the origin the corpus was made with.
  // Duplicates (same content) are ignored and reported as ok.
  Status Add(std::vector<uint8_t> data, std::vector<uint32_t> features, uint64_t exec_time_us,
             std::string origin = "");

  // The features of entry i that no smaller entry has (engine/feature_owners.h): what an
  // input must keep to replace it.
  std::vector<uint32_t> Owned(size_t i) const {
    return owners_.Owned(static_cast<uint32_t>(i), entries_[i].features);
  }

  // Replaces entry i, in place and in the store (the new input is stored before the old
  // one is deleted), by `data` with `features`: libFuzzer's -reduce_inputs. Done only when
  // `data` is shorter, is not in the corpus yet, and has every feature the entry owns;
  // *replaced says whether it was. The entry keeps its origin and its scheduling history.
  Status Replace(size_t i, std::vector<uint8_t> data, std::vector<uint32_t> features,
                 bool* replaced);

  size_t size() const { return entries_.size(); }
  uint64_t total_bytes() const { return total_bytes_; }
  const CorpusEntry& entry(size_t i) const { return entries_[i]; }

  // The next entry to fuzz (rare features first), and what came of fuzzing it.
  size_t Choose(engine::Rng& rng) { return scheduler_.Choose(rng); }
  void RecordFuzzed(size_t i, uint64_t runs, bool found, uint64_t elapsed_us) {
    scheduler_.RecordFuzzed(i, runs, found, elapsed_us);
  }
  // Whether entries whose mutants run fast are chosen more often (engine/scheduler.h).
  void set_speed_weight(bool on) { scheduler_.set_speed_weight(on); }
  void set_unit_us(uint64_t us) { scheduler_.set_unit_us(us); }
  // The time recorded for fuzzing entry i, in microseconds.
  uint64_t fuzzed_us(size_t i) const { return scheduler_.timed_us(i); }

  Status Flush();

 private:
  void Insert(CorpusEntry entry);

  storage::CorpusStore* store_;
  std::string origin_;
  std::vector<CorpusEntry> entries_;
  std::unordered_map<base::Digest, size_t, base::DigestHasher> index_;  // -> place in entries_
  uint64_t total_bytes_ = 0;
  engine::Scheduler scheduler_;
  engine::FeatureOwners owners_;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_LIVE_CORPUS_H_
