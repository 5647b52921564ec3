// EntryFile, and CorpusStore's two methods that make and ingest one (kept here, beside the
// file they manage, so that corpus_store.cc stays about the write paths through the log).
#include "storage/entry_file.h"

#include <filesystem>
#include <mutex>
#include <shared_mutex>
#include <system_error>
#include <utility>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "storage/corpus_store.h"
#include "storage/entry_file_writer.h"
#include "storage/rocks_util.h"

namespace pollen::storage {
namespace {

namespace fs = std::filesystem;

// The options a file of a data column family is written with: the column family's own, but
// with the compression of its flushes (zstd level 1). A file writer counts as the last
// level, whose zstd 9 with a dictionary took the load from 1,557 to 219 MB/s (one-off
// program, 10,000 x 100 KB); a compaction into the last level recompresses later.
rocksdb::Options EntryFileOptions(bool bloom_filter) {
  rocksdb::Options options(rocksdb::DBOptions(), DataColumnFamilyOptions(bloom_filter));
  options.bottommost_compression = rocksdb::kDisableCompressionOption;
  options.bottommost_compression_opts.enabled = false;
  return options;
}

}  // namespace

EntryFile::EntryFile(CorpusStore* store, std::string inputs_path, std::string meta_path,
                     uint64_t table_id)
    : store_(store),
      inputs_path_(std::move(inputs_path)),
      meta_path_(std::move(meta_path)),
      table_id_(table_id) {}

EntryFile::~EntryFile() {
  writer_.reset();  // stops its thread and closes the files first
  // Gone already when ingested (moved into the store), unless the move fell back to a copy.
  std::error_code ec;
  fs::remove(inputs_path_, ec);
  fs::remove(meta_path_, ec);  // on an error, the store's next open deletes them
}

Status EntryFile::Add(std::string_view key, std::span<const uint8_t> data, const EntryMeta& meta) {
  const std::string& path = store_->path();
  if (failed_) {
    return Status::Error("corpus store " + path + ": entry file " + inputs_path_ +
                         " failed earlier; its entries are lost");
  }
  if (Status s = store_->CheckNewEntry(key, data.size(), meta); !s.ok()) return s;
  if (entries_ > 0 && key <= last_key_) {
    return Status::Error("corpus store " + path + ": cannot add entry " + PrintableKey(key) +
                         " to an entry file after " + PrintableKey(last_key_) +
                         ": keys must ascend");
  }
  std::string encoded;
  {
    std::shared_lock<std::shared_mutex> lock(store_->entries_mutex_);
    if (store_->CurrentTableId() != table_id_) {
      return Status::Error("corpus store " + path +
                           ": its counter table changed (a compaction) while an entry file was "
                           "open; start another file");
    }
    encoded = store_->tables_.Encode(meta);
  }
  const std::string_view bytes(reinterpret_cast<const char*>(data.data()), data.size());
  if (Status s = writer_->Put(key, bytes, encoded); !s.ok()) {
    failed_ = true;
    return s;
  }
  last_key_.assign(key);
  entries_++;
  bytes_ += data.size();
  return Status::Ok();
}

Result<std::unique_ptr<EntryFile>> CorpusStore::StartEntryFile() {
  if (Status s = CheckWritable("start an entry file"); !s.ok()) return s;
  std::error_code ec;
  fs::create_directories(EntryFileDir(), ec);
  if (ec) {
    return Status::Error("corpus store " + path_ + ": cannot create " + EntryFileDir() + ": " +
                         ec.message());
  }
  const std::string stem = EntryFileDir() + "/" + std::to_string(++entry_files_);
  uint64_t table_id;
  {
    std::shared_lock<std::shared_mutex> lock(entries_mutex_);
    table_id = CurrentTableId();
  }
  std::unique_ptr<EntryFile> file(
      new EntryFile(this, stem + ".inputs.sst", stem + ".meta.sst", table_id));
  Result<std::unique_ptr<EntryFileWriter>> writer = EntryFileWriter::Open(
      path_, {file->inputs_path_, EntryFileOptions(/*bloom_filter=*/false), inputs_},
      {file->meta_path_, EntryFileOptions(/*bloom_filter=*/true), meta_});
  if (!writer.ok()) return writer.status();
  file->writer_ = std::move(writer).value();
  return file;
}

Status CorpusStore::IngestEntryFile(std::unique_ptr<EntryFile> file) {
  POLLEN_CHECK(file != nullptr && file->store_ == this);
  if (file->failed_) {
    return Status::Error("corpus store " + path_ + ": entry file " + file->inputs_path_ +
                         " failed earlier; its entries are lost");
  }
  if (file->entries_ == 0) return Status::Ok();
  if (Status s = file->writer_->Finish(); !s.ok()) return s;
  // Shared: no compaction may choose another counter table between the check and the
  // ingestion (RebuildCounterTable holds the lock exclusively).
  std::shared_lock<std::shared_mutex> lock(entries_mutex_);
  if (CurrentTableId() != file->table_id_) {
    return Status::Error("corpus store " + path_ +
                         ": its counter table changed (a compaction) "
                         "while entry file " +
                         file->inputs_path_ + " was open; its " + std::to_string(file->entries_) +
                         " entries are not added");
  }
  rocksdb::IngestExternalFileOptions options;
  options.move_files = true;           // a link: the bytes are not written again
  options.write_global_seqno = false;  // nor is the file rewritten to stamp its number
  std::vector<rocksdb::IngestExternalFileArg> args(2);
  args[0].column_family = inputs_;
  args[0].external_files = {file->inputs_path_};
  args[0].options = options;
  args[1].column_family = meta_;
  args[1].external_files = {file->meta_path_};
  args[1].options = options;
  rocksdb::Status s = db_->IngestExternalFiles(args);
  if (!s.ok()) return FromRocks(s, path_, "ingesting entry file " + file->inputs_path_);
  return Status::Ok();
}

uint64_t CorpusStore::CurrentTableId() const {
  const std::shared_ptr<const CounterTable> table = tables_.current();
  return table == nullptr ? 0 : table->id;
}

}  // namespace pollen::storage
