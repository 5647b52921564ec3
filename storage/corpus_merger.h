// CorpusMerger: merges corpora into one store, keeping every feature of their union with as
// few and as small inputs as possible (libFuzzer's -set_cover_merge=1, afl-cmin), and
// CompactStore, which then drops what a merge superseded.
//
// Sources: other stores (opened read-only, same target) and raw inputs (any producer of
// name + bytes: libFuzzer, AFL++ queue or Go corpus directories, through InputSource). The
// destination's own entries take part too: an existing entry may lose its place to a
// smaller input covering the same features.
//
// Which features are trusted: those of the destination (its build id must be the
// campaign's), and those of a source store's entry whose meta has features and whose store
// was recorded for the destination's build id. Every other input is executed exactly once,
// through InputExecutor. A failing input (crash, hang, OOM) is skipped and reported.
//
// Steps of Run():
//   1. gather:  read every source; deduplicate by hash (the destination first, then trusted
//               store entries, then the rest in the order the sources were added; an input
//               source's hash is base::Sha1Hex of its bytes, a store's is its key). An
//               input that needs execution and has no record in the merge state gets a
//               "pending" record holding its bytes.
//   2. execute: run every pending input; its result (features, or the failure kind) replaces
//               the pending record at once, with the bytes.
//   3. cover:   GreedySetCover (storage/set_cover.h) over the destination's entries and every
//               candidate with features.
//   4. write:   PutEntries for the selected inputs not yet in the destination (batched);
//               the auxiliary table "superseded" becomes exactly the destination's entries
//               that were not selected; then the merge state is cleared.
//
// Merge state (AuxTable::kMergeState, in the destination): "b" -> build id of the results,
// "t" -> the merge's start time (first_seen of the inputs it adds), "r/<hash>" -> a record
// (version, state pending|ok|failed, exec µs, features or failure kind, input bytes).
// A merge killed at any point and re-run with the same sources resumes: recorded results are
// reused (no input is executed twice, bar one killed mid-execution), entries already written
// are part of the destination with the same features, and the greedy outcome depends only
// on the set of (hash, size, features): the destination ends byte-identical to a merge run
// once. Records left by a merge with other sources are reused only for inputs offered again,
// and are cleared by the next completed merge; records of another build id are discarded.
//
// Superseded entries stay ordinary entries (ForEachEntry, GetInput see them) until
// CompactStore deletes them; a later merge may select them again, which unmarks them.
//
// Thread safety: a CorpusMerger is used by one thread. The destination must be open for
// writing; nothing else should write to it during Run().
#ifndef POLLEN_STORAGE_CORPUS_MERGER_H_
#define POLLEN_STORAGE_CORPUS_MERGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/corpus_store.h"
#include "storage/input_executor.h"

namespace pollen::storage {

// Receives one raw input; an error stops the producer, which returns it.
using InputSink = std::function<Status(std::string_view name, std::span<const uint8_t> data)>;
// Produces raw inputs: calls `sink` for each (in a stable order) and returns the first error.
using InputSource = std::function<Status(const InputSink& sink)>;

enum class MergePhase { kGather, kExecute, kCover, kWrite };
const char* MergePhaseName(MergePhase phase);

struct MergeOptions {
  // EntryMeta::first_seen_unix_ms of inputs added from input sources or executed store
  // entries; 0: the wall clock when the merge first started (kept in the merge state, so a
  // resumed merge writes the same value).
  int64_t now_unix_ms = 0;
  // Called now and then: `done` of `total` items of `phase` (total is 0 while gathering:
  // unknown).
  std::function<void(uint64_t done, uint64_t total, MergePhase phase)> progress;
};

struct MergeFailure {
  std::string hash;
  std::string kind;  // ExecutionResult::failure_kind
};

struct MergeReport {
  uint64_t inputs_seen = 0;     // offered by the sources (the destination excluded)
  uint64_t duplicates = 0;      // ...whose hash was already seen or in the destination
  uint64_t executed = 0;        // executions made by this run
  uint64_t results_reused = 0;  // execution results found in the merge state
  uint64_t failed = 0;          // inputs that failed, in this run or an interrupted one
  std::map<std::string, uint64_t> failures_by_kind;
  std::vector<MergeFailure> failures;  // sorted by hash
  uint64_t features = 0;               // in the union of everything
  uint64_t entries_selected = 0;       // in the cover (destination entries included)
  uint64_t bytes_selected = 0;
  uint64_t entries_added = 0;       // selected and newly written to the destination
  uint64_t entries_superseded = 0;  // destination entries marked superseded
};

class CorpusMerger {
 public:
  // `destination` (open for writing) receives the merge; `executor` runs the inputs without
  // trusted features and may be null when there are none (Run() fails otherwise). Both must
  // outlive the merger.
  CorpusMerger(CorpusStore* destination, InputExecutor* executor, MergeOptions options = {});

  // Adds a source store (read-only is enough; same target as the destination). It must
  // outlive Run().
  void AddStore(const CorpusStore* source);

  // Adds raw inputs; `origin` becomes EntryMeta::origin of the inputs it adds.
  void AddInputs(std::string origin, InputSource source);

  // Merges (see the file comment). An error (storage, a source, the executor) stops the
  // merge; what it did so far is kept, and running the same merge again resumes it.
  Result<MergeReport> Run();

 private:
  struct Candidate;
  struct State;
  Status Gather(State& st);
  Status GatherStores(State& st);
  Status AddPending(State& st, std::string hash, std::span<const uint8_t> data, int origin);
  Status Execute(State& st);
  Status Write(State& st, const std::vector<size_t>& chosen);
  void Progress(uint64_t done, uint64_t total, MergePhase phase) const;

  CorpusStore* const destination_;
  InputExecutor* const executor_;
  const MergeOptions options_;
  std::vector<const CorpusStore*> stores_;
  std::vector<std::pair<std::string, InputSource>> inputs_;
};

struct CompactReport {
  CorpusStore::Stats before;  // after a Flush, so disk_bytes is settled
  CorpusStore::Stats after;
  uint64_t entries_removed = 0;
};

// Deletes the entries a merge marked superseded, clears the marks, and compacts every
// column family (slow: a full rewrite of the store). Writer only.
Result<CompactReport> CompactStore(CorpusStore& store);

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_CORPUS_MERGER_H_
