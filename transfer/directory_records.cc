#include "transfer/directory_records.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/scoped_fd.h"
#include "transfer/record_name.h"

namespace pollen::transfer {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kCursorEveryCommits = 64;
constexpr char kTempPrefix[] = ".pollen-tmp-";

using base::ErrnoText;
using base::ScopedFd;

Status WriteAll(int fd, std::string_view data) {
  for (size_t done = 0; done < data.size();) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Error(ErrnoText(errno));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Reads all of `fd` (a file of about `expected` bytes) into *data; more than `limit` bytes
// is an error.
Status ReadAll(int fd, size_t expected, uint64_t limit, std::string* data) {
  data->resize(expected + 1);  // room to see the end of a file of the expected size
  size_t done = 0;
  for (;;) {
    if (done == data->size()) {
      if (done > limit) break;
      data->resize(done + std::max<size_t>(4096, done / 2));  // the file grew
    }
    const ssize_t n = read(fd, data->data() + done, data->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Error(ErrnoText(errno));
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  if (done > limit) {
    return Status::Error("more than the limit of " + std::to_string(limit) + " bytes");
  }
  data->resize(done);
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<DirectorySource>> DirectorySource::Open(const std::string& dir,
                                                               const std::string& resume_after,
                                                               const StreamLimits& limits) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::Error("cannot read directory " + dir + ": " +
                         (ec ? ec.message() : std::string("not a directory")));
  }
  std::vector<std::string> names;
  auto it = fs::directory_iterator(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || name <= resume_after) continue;
    std::error_code status_ec;
    if (!fs::is_regular_file(it->status(status_ec))) continue;  // follows symbolic links
    names.push_back(std::move(name));
  }
  if (ec) return Status::Error("cannot list directory " + dir + ": " + ec.message());
  std::sort(names.begin(), names.end());
  return std::unique_ptr<DirectorySource>(new DirectorySource(dir, std::move(names), limits));
}

DirectorySource::DirectorySource(std::string dir, std::vector<std::string> names,
                                 const StreamLimits& limits)
    : dir_(std::move(dir)), names_(std::move(names)), limits_(limits) {}

Result<bool> DirectorySource::Next(std::string* name, std::string* data) {
  while (next_ < names_.size()) {
    const std::string& file = names_[next_++];
    const std::string path = dir_ + "/" + file;
    ScopedFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0 && errno == ENOENT) continue;  // removed since Open
    if (fd.get() < 0) return Status::Error("cannot open " + path + ": " + ErrnoText(errno));
    struct stat st;
    if (fstat(fd.get(), &st) != 0) {
      return Status::Error("cannot inspect " + path + ": " + ErrnoText(errno));
    }
    if (!S_ISREG(st.st_mode)) continue;  // replaced by something else since Open
    if (static_cast<uint64_t>(st.st_size) > limits_.max_record_bytes) {
      return Status::Error("cannot send " + path + ": " + std::to_string(st.st_size) +
                           " bytes, more than the record limit of " +
                           std::to_string(limits_.max_record_bytes));
    }
    if (Status s =
            ReadAll(fd.get(), static_cast<size_t>(st.st_size), limits_.max_record_bytes, data);
        !s.ok()) {
      return Status::Error("cannot read " + path + ": " + s.message());
    }
    name->assign(file);
    return true;
  }
  return false;
}

Result<std::unique_ptr<DirectorySink>> DirectorySink::Open(const std::string& dir,
                                                           DirectorySinkOptions options) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::Error("cannot create directory " + dir + ": " + ec.message());
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::Error("cannot open directory " + dir + ": " + ErrnoText(errno));
  return std::unique_ptr<DirectorySink>(new DirectorySink(dir, fd, std::move(options)));
}

DirectorySink::DirectorySink(std::string dir, int dir_fd, DirectorySinkOptions options)
    : dir_(std::move(dir)), dir_fd_(dir_fd), options_(std::move(options)) {}

DirectorySink::~DirectorySink() {
  (void)Flush();
  close(dir_fd_);
}

Status DirectorySink::Commit(std::string_view name, std::string_view data) {
  if (Status s = ValidateRecordName(name); !s.ok()) return s;
  if (name.find('/') != std::string_view::npos || name.front() == '.') {
    return Status::Error("invalid record name " + PrintableName(name) + " for directory " + dir_ +
                         ": a file name must be one path component not starting with '.'");
  }
  const std::string final_name(name);
  // The temporary name does not contain the record's: a 255-byte name plus a prefix would
  // exceed the file system's limit on one component.
  const std::string temp_name =
      kTempPrefix + std::to_string(getpid()) + "-" + std::to_string(temp_counter_++);
  const auto fail = [&](const std::string& what, const std::string& why) {
    unlinkat(dir_fd_, temp_name.c_str(), 0);
    return Status::Error("cannot " + what + " " + dir_ + "/" + final_name + ": " + why);
  };
  ScopedFd fd(openat(dir_fd_, temp_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return fail("create a temporary file for", ErrnoText(errno));
  if (Status s = WriteAll(fd.get(), data); !s.ok()) return fail("write", s.message());
  if (options_.sync && fsync(fd.get()) != 0) return fail("fsync", ErrnoText(errno));
  if (fd.Close() != 0) return fail("close", ErrnoText(errno));
  if (renameat(dir_fd_, temp_name.c_str(), dir_fd_, final_name.c_str()) != 0) {
    return fail("rename into", ErrnoText(errno));
  }
  last_committed_ = final_name;
  committed_++;
  if (!options_.cursor_path.empty() && committed_ % kCursorEveryCommits == 0) return Flush();
  return Status::Ok();
}

Status DirectorySink::Flush() {
  if (options_.cursor_path.empty() || last_committed_ == cursor_written_) return Status::Ok();
  const std::string& path = options_.cursor_path;
  // The records first: the cursor must never name a record that a power loss could undo.
  if (options_.sync && fsync(dir_fd_) != 0) {
    return Status::Error("cannot fsync directory " + dir_ + ": " + ErrnoText(errno));
  }
  const std::string temp = path + ".tmp";
  const auto fail = [&](const std::string& what, const std::string& why) {
    unlink(temp.c_str());
    return Status::Error("cannot " + what + " resume cursor " + path + ": " + why);
  };
  ScopedFd fd(open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return fail("create", ErrnoText(errno));
  if (Status s = WriteAll(fd.get(), last_committed_); !s.ok()) return fail("write", s.message());
  if (options_.sync && fsync(fd.get()) != 0) return fail("fsync", ErrnoText(errno));
  if (fd.Close() != 0) return fail("close", ErrnoText(errno));
  if (rename(temp.c_str(), path.c_str()) != 0) return fail("rename", ErrnoText(errno));
  cursor_written_ = last_committed_;
  return Status::Ok();
}

Result<std::string> ReadResumeCursor(const std::string& cursor_path) {
  ScopedFd fd(open(cursor_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0 && errno == ENOENT) return std::string();
  if (fd.get() < 0) {
    return Status::Error("cannot open resume cursor " + cursor_path + ": " + ErrnoText(errno));
  }
  std::string name;
  if (Status s = ReadAll(fd.get(), 0, kMaxRecordNameBytes, &name); !s.ok()) {
    return Status::Error("cannot read resume cursor " + cursor_path + ": " + s.message());
  }
  if (Status s = ValidateRecordName(name); !s.ok()) {
    return Status::Error("resume cursor " + cursor_path + " is damaged: " + s.message());
  }
  return name;
}

}  // namespace pollen::transfer
