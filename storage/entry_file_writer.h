// EntryFileWriter: the thread that writes an entry file's two table files (inputs and
// metadata) while its owner goes on (internal to storage/; storage/entry_file.h).
//
// Writing an SST file costs about as much as hashing the input (a compression attempt, a
// checksum, the copy into the file): done on the controller's service thread, the two made
// one serial chain, and a push ran at the speed of that thread alone (docs/decisions.md,
// "Pushed inputs are written as files and ingested"). Put() copies the entry into a queue
// of at most kMaxQueuedBytes and returns; it blocks only while the queue is full (the disk
// slower than the caller).
//
// Thread safety: Put() and Finish() from one thread (the owner); the writer thread is
// internal.
#ifndef POLLEN_STORAGE_ENTRY_FILE_WRITER_H_
#define POLLEN_STORAGE_ENTRY_FILE_WRITER_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "base/status.h"
#include "rocksdb/options.h"

namespace rocksdb {
class ColumnFamilyHandle;
class SstFileWriter;
}  // namespace rocksdb

namespace pollen::storage {

class EntryFileWriter {
 public:
  // What one side of the file needs: its path, the options it is written with and the
  // column family it is for.
  struct Side {
    std::string path;
    rocksdb::Options options;
    rocksdb::ColumnFamilyHandle* column_family;
  };

  // The queue's limit: the entries copied but not written yet.
  static constexpr size_t kMaxQueuedBytes = 16 << 20;

  // Creates both files and starts the thread. Errors name `store_path` (I/O).
  static Result<std::unique_ptr<EntryFileWriter>> Open(const std::string& store_path, Side inputs,
                                                       Side meta);

  // Stops the thread (the files stay as they are: the owner deletes them).
  ~EntryFileWriter();
  EntryFileWriter(const EntryFileWriter&) = delete;
  EntryFileWriter& operator=(const EntryFileWriter&) = delete;

  // Queues `key` with `data` for the inputs file and `meta` for the metadata file. Keys must
  // ascend (the owner checks). Returns the error of an earlier write, if one failed: the
  // files are incomplete then, and the entry was not queued.
  Status Put(std::string_view key, std::string_view data, std::string_view meta);

  // Writes what is queued and completes both files. Errors: the first failed write.
  Status Finish();

 private:
  struct Entry {
    std::string key, data, meta;
  };

  EntryFileWriter(std::string store_path, std::unique_ptr<rocksdb::SstFileWriter> inputs,
                  std::unique_ptr<rocksdb::SstFileWriter> meta, std::string inputs_path);
  void Run();
  Status Write(const Entry& entry);

  const std::string store_path_;
  const std::string inputs_path_;
  std::unique_ptr<rocksdb::SstFileWriter> inputs_;  // used by the thread only
  std::unique_ptr<rocksdb::SstFileWriter> meta_;

  std::mutex mutex_;
  std::condition_variable changed_;  // the queue, busy_ or stop_ changed
  std::deque<Entry> queue_;
  size_t queued_bytes_ = 0;
  bool busy_ = false;  // the thread is writing an entry it took from the queue
  bool stop_ = false;
  Status error_;  // the first failed write
  std::thread thread_;
};

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_ENTRY_FILE_WRITER_H_
