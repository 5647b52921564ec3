// CorpusStore: the live corpus and the crashes of one fuzzing campaign, kept in RocksDB.
//
// Layout: one RocksDB database per store directory, with column families
//   "inputs"   hash      -> input bytes           (zstd; lz4 if this RocksDB lacks zstd)
//   "meta"     hash      -> EntryMeta  (storage/record_codec.h)     (zstd / lz4)
//   "crashes"  signature -> CrashRecord (storage/record_codec.h)    (zstd / lz4)
//   "campaign" "format_version", "target", "build_id" -> decimal / text
//              "counter_table/<id>" -> CounterTable (storage/counter_tables.h): the
//              counters that EntryMeta records are laid out over
//   "merge"      key -> value  (the resumable state of a merge: storage/corpus_merger.h)
//   "superseded" hash -> ""    (entries a merge dropped from the corpus, deleted by
//                               CompactStore; until then they are still entries)
// The last two are auxiliary tables (AuxTable): a writer creates them when it opens a store
// made before they existed; a read-only open of such a store sees them empty.
// An entry is its input plus its metadata, written and deleted together atomically. Its
// metadata is laid out over the store's current counter table (EntryMeta v2) if it has
// one, else written plainly (v1); Compact() chooses the table and rewrites the entries.
//
// Concurrency rule: ONE WRITER PROCESS PER STORE. The writer holds RocksDB's LOCK file for
// as long as the store is open; a second writer fails with "store is locked by another
// pollen process". Other processes (reports, minimisers, the CLI) open the store with
// StoreOptions::read_only: they see a snapshot of what the writer had written (and the OS
// had received) when they opened it, and nothing after. Read-only opens are meant to be
// short-lived while a writer runs (RocksDB gives no guarantee to a long-lived read-only
// instance beside a writer); a follower that must track the writer should reopen, or use
// RocksDB's secondary mode (a future extension). Within one process, a CorpusStore is
// thread-safe: every method may be called concurrently.
//
// Campaign check: a store remembers the target, the build id and the store format version
// it was created with. Opening it for another target is an error; opening it with another
// build id succeeds (unless StoreOptions::accept_build_id_change is false) and
// build_id_changed() says so: the inputs are still good seeds, but the features in the
// metadata were measured on another build and are NOT valid for this one.
#ifndef POLLEN_STORAGE_CORPUS_STORE_H_
#define POLLEN_STORAGE_CORPUS_STORE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "storage/counter_tables.h"
#include "storage/records.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
class WriteBatch;
}  // namespace rocksdb

namespace pollen::storage {

class EntryFile;

// The on-disk format this build writes and reads. Stores with a larger number were written
// by a newer pollen and are refused. Format 2 adds counter tables and EntryMeta v2; a
// format 1 store is read as it is and becomes format 2 when Compact() writes its first
// counter table (a pollen that reads only format 1 then refuses it, instead of failing on
// its first v2 record).
inline constexpr int kStoreFormatVersion = 2;

struct StoreOptions {
  // Open without the writer lock; every mutating method then returns an error.
  bool read_only = false;
  // Create the store when `path` is absent or an empty directory (never for read_only).
  bool create_if_missing = true;
  // fsync the WAL on every write: survives power loss, at a large cost per write. Without
  // it, a write that returned ok survives a crash of the process but not of the machine.
  bool sync_writes = false;
  // Accept a store recorded for another build id of the same target (see build_id_changed).
  // When false, such an Open fails instead.
  bool accept_build_id_change = true;
};

// The auxiliary key-value tables of a store (see the layout above).
enum class AuxTable { kMergeState, kSuperseded };

// One entry to write with CorpusStore::PutEntries. Requires meta->size == data.size().
struct NewEntry {
  std::string_view hash;
  std::span<const uint8_t> data;
  const EntryMeta* meta = nullptr;
};

class CorpusStore {
 public:
  // Store-wide figures, computed on demand (cost: one scan of "meta" and "crashes").
  struct Stats {
    uint64_t entries = 0;           // corpus entries
    uint64_t raw_bytes = 0;         // sum of input sizes
    uint64_t disk_bytes = 0;        // bytes of live SST files, all column families (excludes the
                                    // WAL and memtables: call Flush() first for a settled figure)
    uint64_t input_disk_bytes = 0;  // the part of disk_bytes holding the inputs themselves
    uint64_t crashes = 0;           // distinct crash signatures
  };

  // Opens (or creates, see StoreOptions) the store in directory `path` for `campaign`.
  // Errors name `path` and say what is wrong: not a store (a regular file, or a non-empty
  // directory that is not a RocksDB database: never reset), another target, another build
  // (only if !accept_build_id_change), a newer format version, corruption (with RocksDB's
  // message), or the lock held by another writer.
  static Result<std::unique_ptr<CorpusStore>> Open(const std::string& path,
                                                   const CampaignId& campaign,
                                                   const StoreOptions& options);

  // Closes the database (every write is in the WAL already). Entry files must be gone.
  ~CorpusStore();
  CorpusStore(const CorpusStore&) = delete;
  CorpusStore& operator=(const CorpusStore&) = delete;

  // Stores input `data[0, size)` and its metadata under `hash` (non-empty; overwrites an
  // existing entry). Requires meta.size == size and meta.features sorted. The input and
  // the metadata are written atomically; when this returns ok the write is in the WAL (and
  // fsynced if StoreOptions::sync_writes).
  Status PutEntry(std::string_view hash, const uint8_t* data, size_t size, const EntryMeta& meta);

  // PutEntry for many entries in one atomic write (cheaper per entry than PutEntry).
  // Checks every entry first: on an error, nothing was written.
  Status PutEntries(std::span<const NewEntry> entries);

  // True when an entry `hash` exists. A read error counts as absent.
  bool HasEntry(std::string_view hash) const;

  // The input stored under `hash`; an error if absent or unreadable.
  Result<std::vector<uint8_t>> GetInput(std::string_view hash) const;

  // GetInput into *out (its memory reused), copied once from the database: for readers of
  // many inputs in a row (the controller's streams). Errors as GetInput's.
  Status ReadInput(std::string_view hash, std::string* out) const;

  // The metadata stored under `hash`; an error if absent or undecodable.
  Result<EntryMeta> GetMeta(std::string_view hash) const;

  // Calls `fn` for every entry in hash order until it returns false. Sees a consistent
  // snapshot taken at the call. Stops with an error on undecodable metadata (naming the
  // hash) or a read error.
  Status ForEachEntry(
      const std::function<bool(std::string_view hash, const EntryMeta& meta)>& fn) const;

  // Removes the entry `hash` (input and metadata, atomically). Ok if it was absent.
  Status DeleteEntry(std::string_view hash);

  // DeleteEntry for many entries in one atomic write.
  Status DeleteEntries(std::span<const std::string> hashes);

  // Writes `records` (key, value) into auxiliary table `table` in one atomic write
  // (writer only; overwrites existing keys).
  Status PutAux(AuxTable table, std::span<const std::pair<std::string, std::string>> records);

  // The value under `key` in `table`, nullopt if none.
  Result<std::optional<std::string>> GetAux(AuxTable table, std::string_view key) const;

  // Calls `fn` for every record of `table` in key order until it returns false.
  Status ForEachAux(
      AuxTable table,
      const std::function<bool(std::string_view key, std::string_view value)>& fn) const;

  // Deletes every record of `table` (writer only).
  Status ClearAux(AuxTable table);

  // Records crash `r` under `signature` (non-empty). If the signature is known, merges:
  // count += r.count, first_seen = min, last_seen = max, and r.input (with r.report)
  // replaces the stored one only if it is strictly smaller; the kind is kept.
  Status PutCrash(std::string_view signature, const CrashRecord& r);

  // The crash stored under `signature`, nullopt if none, an error if unreadable.
  Result<std::optional<CrashRecord>> GetCrash(std::string_view signature) const;

  // Calls `fn` for every crash in signature order until it returns false.
  Status ForEachCrash(
      const std::function<bool(std::string_view signature, const CrashRecord& r)>& fn) const;

  // See Stats.
  Result<Stats> GetStats() const;

  // The campaign given to Open (its build id may differ from stored_build_id()).
  const CampaignId& campaign() const { return campaign_; }

  // True when the store was recorded for another build id than campaign().build_id: the
  // features in every EntryMeta belong to that build and must not be trusted; re-execute
  // the corpus, rewrite the metadata, then call AdoptBuildId().
  bool build_id_changed() const { return stored_build_id_ != campaign_.build_id; }

  // The build id the store's metadata was recorded for.
  const std::string& stored_build_id() const { return stored_build_id_; }

  // Records campaign().build_id as the store's build id (writer only). Afterwards
  // build_id_changed() is false, here and in later opens with this build. Must not run
  // concurrently with build_id_changed() or stored_build_id().
  Status AdoptBuildId();

  // Writes every memtable to SST files (writer only).
  Status Flush();

  // Begins a file of new entries, to be added by IngestEntryFile (storage/entry_file.h;
  // writer only): for bulk loads, written once and without the log. Errors: I/O.
  Result<std::unique_ptr<EntryFile>> StartEntryFile();

  // Adds the entries of `file` to the store (writer only): atomically, synced, visible at
  // once; an empty file adds nothing. Errors: an earlier failed EntryFile::Add, Compact()
  // having chosen another counter table since the file began (its metadata is laid out
  // over the old one), RocksDB's. The entries are then not added; the files are deleted.
  Status IngestEntryFile(std::unique_ptr<EntryFile> file);

  // Flush(), then chooses the counter table for the entries now in the store
  // (CounterTableChooser), rewrites every entry's metadata over it, deletes the tables no
  // entry refers to any more, and compacts every column family fully (writer only). Slow:
  // for tests, tools and idle moments. Entries put meanwhile wait until the rewrite is
  // done; reads do not. An interrupted Compact leaves a readable store (entries laid out
  // over the old or the new table; both are kept until the rewrite is complete).
  Status Compact();

  const std::string& path() const { return path_; }

 private:
  CorpusStore(std::string path, CampaignId campaign, StoreOptions options);
  Status OpenDatabase(bool create);
  Status CheckCampaign();
  Status Close();
  Status CheckWritable(std::string_view operation) const;
  Status Write(std::string_view operation, rocksdb::WriteBatch* batch, bool sync);
  // The error for an entry that breaks PutEntry's rules, ok when it keeps them.
  Status CheckNewEntry(std::string_view hash, size_t size, const EntryMeta& meta) const;
  // The id of the counter table entries are laid out over now (0: none).
  uint64_t CurrentTableId() const;
  std::string EntryFileDir() const { return path_ + "/ingest"; }
  // Calls fn(key, value) over `cf` in key order while it returns true.
  Status Scan(rocksdb::ColumnFamilyHandle* cf,
              const std::function<Result<bool>(std::string_view, std::string_view)>& fn) const;
  Result<bool> IsEmpty() const;  // no input, metadata or crash at all
  Status RecordCampaign();
  Status LoadCounterTables();
  // Compact()'s first part: a new counter table, every entry rewritten over it.
  Status RebuildCounterTable();
  Result<std::optional<std::string>> Get(rocksdb::ColumnFamilyHandle* cf,
                                         std::string_view key) const;
  // The handle of `table`; null for a read-only store made before the table existed.
  rocksdb::ColumnFamilyHandle* AuxHandle(AuxTable table) const;

  const std::string path_;
  const CampaignId campaign_;
  const StoreOptions options_;
  std::string stored_build_id_;
  int stored_format_ = kStoreFormatVersion;  // the store's format_version
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // owned; destroyed in Close()
  rocksdb::ColumnFamilyHandle* inputs_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;
  rocksdb::ColumnFamilyHandle* crashes_ = nullptr;
  rocksdb::ColumnFamilyHandle* campaign_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* merge_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* superseded_cf_ = nullptr;
  std::mutex crash_mutex_;  // serialises PutCrash's read-modify-write
  CounterTables tables_;
  // Shared by the writes of entries, exclusive for RebuildCounterTable (so that no entry is
  // written over a table it is about to delete, nor overwritten with an older value).
  std::shared_mutex entries_mutex_;
  std::atomic<uint64_t> entry_files_ = 0;  // entry files begun: names them

  friend class EntryFile;  // writes entries over tables_, under entries_mutex_
};

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_CORPUS_STORE_H_
