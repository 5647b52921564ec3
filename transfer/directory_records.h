// Records from and to a libFuzzer-style corpus directory: one file per record, named by the
// record's name (docs/transfer.md, "Directories").
//
// DirectorySource streams the regular files directly in a directory in ascending name
// order, starting after a resume cursor: what `pollen corpus push` sends. DirectorySink
// writes each record to a temporary dot-file and renames it into place, so a file with a
// record's name is always a whole record: what `pollen corpus pull` receives into. Both
// skip or refuse dot-names, which is where temporary files live (as storage/ does).
#ifndef POLLEN_TRANSFER_DIRECTORY_RECORDS_H_
#define POLLEN_TRANSFER_DIRECTORY_RECORDS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "transfer/record_codec.h"
#include "transfer/stream_receiver.h"
#include "transfer/stream_sender.h"

namespace pollen::transfer {

// Reads the files of one directory. Not thread-safe.
class DirectorySource : public RecordSource {
 public:
  // Lists `dir` now: the regular files directly in it (symbolic links to regular files
  // followed), dotfiles and subdirectories skipped, whose names are greater than
  // `resume_after` ("" for all), in ascending byte order. Files are read one at a time by
  // Next. Errors name `dir`: absent, not a directory, unreadable.
  static Result<std::unique_ptr<DirectorySource>> Open(const std::string& dir,
                                                       const std::string& resume_after = "",
                                                       const StreamLimits& limits = {});

  // The next file as (its name, its contents). A file removed since Open is skipped. Errors
  // name the file: unreadable, or larger than limits.max_record_bytes (not read).
  Result<bool> Next(std::string* name, std::string* data) override;

  // Files listed and not yet returned.
  size_t remaining() const { return names_.size() - next_; }

 private:
  DirectorySource(std::string dir, std::vector<std::string> names, const StreamLimits& limits);

  std::string dir_;
  std::vector<std::string> names_;
  size_t next_ = 0;
  StreamLimits limits_;
};

struct DirectorySinkOptions {
  // fsync each file before it is renamed into place, and the directory before the cursor
  // is written: a committed record survives a power loss, not only a crash of the process.
  bool sync = true;
  // When set, a file outside the corpus directory where the sink keeps the last committed
  // name (ReadResumeCursor reads it back), so that a pull repeated after this process died
  // resumes. Written every 64 commits and by Flush; never ahead of the records on disk.
  std::string cursor_path;
};

// Writes records as files of one directory. Not thread-safe.
class DirectorySink : public RecordSink {
 public:
  // Creates `dir` (and its parents) if absent. Errors name `dir`.
  static Result<std::unique_ptr<DirectorySink>> Open(const std::string& dir,
                                                     DirectorySinkOptions options = {});
  // Flushes the cursor (errors ignored: call Flush to see them).
  ~DirectorySink() override;

  // Writes `data` as file `name`, replacing a file of that name. The name must be valid
  // (ValidateRecordName) and one path component: no '/', and not starting with '.'. When
  // it returns ok, the file is whole; on error no file of that name was changed. Errors
  // name the file and what failed.
  Status Commit(std::string_view name, std::string_view data) override;

  // Writes the cursor file now (when options.cursor_path is set).
  Status Flush();

  const std::string& last_committed() const { return last_committed_; }
  uint64_t committed() const { return committed_; }

 private:
  DirectorySink(std::string dir, int dir_fd, DirectorySinkOptions options);

  std::string dir_;
  int dir_fd_;
  DirectorySinkOptions options_;
  std::string last_committed_;
  std::string cursor_written_;  // the cursor the file holds
  uint64_t committed_ = 0;
  uint64_t temp_counter_ = 0;
};

// The cursor a DirectorySink left in `cursor_path`: "" when the file does not exist. Errors:
// unreadable, or not a valid record name.
Result<std::string> ReadResumeCursor(const std::string& cursor_path);

}  // namespace pollen::transfer

#endif  // POLLEN_TRANSFER_DIRECTORY_RECORDS_H_
