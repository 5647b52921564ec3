// EntryFile: new corpus entries written straight into table files of the store's own format,
// then added to the store all at once (RocksDB's external file ingestion,
// CorpusStore::IngestEntryFile). For bulk loads of large inputs by a writer that can have
// them sent again: the bytes are written once, on the caller's thread, without the
// write-ahead log, the memtable or a flush (docs/decisions.md, "Pushed inputs are written as
// files and ingested").
//
// Until ingested, the entries are in two files under <store>/ingest/ (inputs, metadata) and
// no reader sees them; a crash loses them (the store deletes the files when it next opens).
// An ingestion that returned ok has put them on disk, synced, inputs and metadata together,
// visible at once.
//
// Keys must ascend strictly within a file. They may lie anywhere among the store's keys, but
// a file whose keys are all above the store's (the pushed corpus: its keys start with the
// push's sequence number) goes into the last level as it is, without a compaction.
//
// Made by CorpusStore::StartEntryFile; must not outlive its store. Thread safety: one
// thread per file (it has a writer thread of its own); the store's other methods may run
// meanwhile.
#ifndef POLLEN_STORAGE_ENTRY_FILE_H_
#define POLLEN_STORAGE_ENTRY_FILE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "storage/records.h"

namespace pollen::storage {

class CorpusStore;
class EntryFileWriter;

class EntryFile {
 public:
  // Deletes the files (ingested ones are in the store, under other names).
  ~EntryFile();
  EntryFile(const EntryFile&) = delete;
  EntryFile& operator=(const EntryFile&) = delete;

  // Adds entry `key` (non-empty, greater than the previous key): input `data`, metadata
  // `meta` (meta.size == data.size(), features sorted). The bytes are copied and written
  // by a thread of the file's own (storage/entry_file_writer.h). Errors say which rule was
  // broken (the file is unchanged), or that a write failed, this one or an earlier one
  // (the file must be dropped: its entries are lost).
  Status Add(std::string_view key, std::span<const uint8_t> data, const EntryMeta& meta);

  uint64_t entries() const { return entries_; }
  // The input bytes added so far.
  uint64_t bytes() const { return bytes_; }

 private:
  friend class CorpusStore;
  EntryFile(CorpusStore* store, std::string inputs_path, std::string meta_path, uint64_t table_id);

  CorpusStore* store_;
  const std::string inputs_path_;
  const std::string meta_path_;
  const uint64_t table_id_;  // the store's counter table when the file began (0: none)
  std::unique_ptr<EntryFileWriter> writer_;
  std::string last_key_;
  uint64_t entries_ = 0;
  uint64_t bytes_ = 0;
  bool failed_ = false;  // a write failed: the files are incomplete
};

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_ENTRY_FILE_H_
