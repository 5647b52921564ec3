// NamedByteSequence records from and to a corpus store, for `pollen corpus pull|push` when
// DIR is a store (or a work directory of `pollen fuzz`) rather than a plain directory
// (transfer/directory_records.h for those). Records are named by the SHA-1 of their bytes
// in hex, which is the store's key.
#ifndef POLLEN_CLI_STORE_RECORDS_H_
#define POLLEN_CLI_STORE_RECORDS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/corpus_store.h"
#include "transfer/stream_receiver.h"
#include "transfer/stream_sender.h"

namespace pollen::cli {

// Writes `name` to the file `path` through a temporary file and a rename: the file holds the
// old cursor or the new one, never a part. Errors name the path.
Status WriteCursorFile(const std::string& path, const std::string& name);

// Adds each record to a store (open for writing) as an entry without features, unless the
// store has it: the next `pollen fuzz` runs it. Keeps the last committed name in a cursor
// file (transfer's DirectorySink's format, ReadResumeCursor reads it) when Flush is called.
// Not thread-safe.
class StoreSink : public transfer::RecordSink {
 public:
  // `store` must outlive the sink. `origin`: the entries' origin ("pull:<campaign>").
  StoreSink(storage::CorpusStore* store, std::string origin, std::string cursor_path);
  ~StoreSink() override;  // flushes (errors ignored)

  Status Commit(std::string_view name, std::string_view data) override;
  // Writes the cursor file (the store's own writes are in its write-ahead log first).
  Status Flush();

  uint64_t added() const { return added_; }
  uint64_t present() const { return present_; }

 private:
  storage::CorpusStore* store_;
  std::string origin_;
  std::string cursor_path_;
  std::string last_;
  std::string written_;
  uint64_t added_ = 0;
  uint64_t present_ = 0;
};

// The entries of a store whose hashes follow a cursor, in hash order, read one at a time.
class StoreSource : public transfer::RecordSource {
 public:
  // Lists the store's entries now. `store` must outlive the source. Errors: the store's.
  static Result<std::unique_ptr<StoreSource>> Open(const storage::CorpusStore* store,
                                                   const std::string& resume_after);
  Result<bool> Next(std::string* name, std::string* data) override;
  size_t remaining() const { return hashes_.size() - next_; }

 private:
  StoreSource(const storage::CorpusStore* store, std::vector<std::string> hashes)
      : store_(store), hashes_(std::move(hashes)) {}
  const storage::CorpusStore* store_;
  std::vector<std::string> hashes_;
  size_t next_ = 0;
};

}  // namespace pollen::cli

#endif  // POLLEN_CLI_STORE_RECORDS_H_
