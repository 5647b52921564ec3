#include "storage/corpus_formats.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

#include "base/go_corpus.h"
#include "base/scoped_fd.h"
#include "base/sha1.h"

namespace pollen::storage {
namespace {

namespace fs = std::filesystem;

using base::ErrnoText;
using base::ScopedFd;

// Ok when `dir` is an existing directory; otherwise an error naming it.
Status CheckDirectory(const std::string& dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (status.type() == fs::file_type::not_found) {
    return Status::Error("corpus directory " + dir + " does not exist");
  }
  if (ec) return Status::Error("cannot inspect corpus directory " + dir + ": " + ec.message());
  if (!fs::is_directory(status)) return Status::Error(dir + " is not a directory");
  return Status::Ok();
}

bool IsDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

}  // namespace

Result<std::vector<DirEntry>> ListDirectory(const std::string& dir) {
  if (Status s = CheckDirectory(dir); !s.ok()) return s;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  std::vector<DirEntry> entries;
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    DirEntry entry;
    entry.name = it->path().filename().string();
    if (entry.name.empty() || entry.name[0] == '.') continue;
    std::error_code status_ec;  // a dangling link is neither kind: skipped
    const fs::file_status status = it->status(status_ec);
    entry.is_regular = fs::is_regular_file(status);
    entry.is_directory = fs::is_directory(status);
    entries.push_back(std::move(entry));
  }
  if (ec) return Status::Error("cannot list corpus directory " + dir + ": " + ec.message());
  std::sort(entries.begin(), entries.end(),
            [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return entries;
}

namespace {

// At most `limit` bytes from the start of file `path`.
Result<std::vector<uint8_t>> ReadFile(const std::string& path, size_t limit = SIZE_MAX) {
  ScopedFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    return Status::Error("cannot open corpus file " + path + ": " + ErrnoText(errno));
  struct stat st;
  std::vector<uint8_t> data;
  if (fstat(fd.get(), &st) == 0 && st.st_size > 0) {
    data.reserve(std::min(static_cast<size_t>(st.st_size), limit));
  }
  uint8_t buffer[1 << 16];
  while (data.size() < limit) {
    const ssize_t n = read(fd.get(), buffer, std::min(sizeof(buffer), limit - data.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Error("cannot read corpus file " + path + ": " + ErrnoText(errno));
    if (n == 0) break;
    data.insert(data.end(), buffer, buffer + n);
  }
  return data;
}

bool IsAflQueueFileName(std::string_view name) { return name.substr(0, 3) == "id:"; }

// The queue directories (relative to `dir`, "" for `dir` itself) of an AFL++ directory.
Result<std::vector<std::string>> AflQueueDirs(const std::string& dir) {
  if (IsDirectory(dir + "/queue")) return std::vector<std::string>{"queue"};
  Result<std::vector<DirEntry>> entries = ListDirectory(dir);
  if (!entries.ok()) return entries.status();
  std::vector<std::string> queues;
  for (const DirEntry& entry : *entries) {
    if (entry.is_directory && IsDirectory(dir + "/" + entry.name + "/queue")) {
      queues.push_back(entry.name + "/queue");
    }
  }
  if (queues.empty()) queues.push_back("");
  return queues;
}

// Passes the inputs in `dir`/`relative` (`dir` itself when empty) to `sink`, in name order.
Status ReadFiles(const std::string& dir, const std::string& relative, CorpusFormat format,
                 const CorpusSink& sink) {
  const std::string prefix = relative.empty() ? "" : relative + "/";
  Result<std::vector<DirEntry>> entries =
      ListDirectory(relative.empty() ? dir : dir + "/" + relative);
  if (!entries.ok()) return entries.status();
  for (const DirEntry& entry : *entries) {
    if (!entry.is_regular) continue;
    if (format == CorpusFormat::kAfl && !IsAflQueueFileName(entry.name)) continue;
    const std::string name = prefix + entry.name;
    const std::string path = dir + "/" + name;
    Result<std::vector<uint8_t>> data = ReadFile(path);
    if (!data.ok()) return data.status();
    std::vector<uint8_t> input = std::move(data).value();
    if (format == CorpusFormat::kGo) {
      const std::string_view text(reinterpret_cast<const char*>(input.data()), input.size());
      Result<std::vector<uint8_t>> parsed = base::ParseGoCorpusFile(text, path);
      if (!parsed.ok()) return parsed.status();
      input = std::move(parsed).value();
    }
    if (Status s = sink(name, std::move(input)); !s.ok()) return s;
  }
  return Status::Ok();
}

// Writes `contents` to `dir`/`name` unless that file exists, through a temporary dot-file.
Status WriteAtomically(const std::string& dir, const std::string& name, const uint8_t* contents,
                       size_t size) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (Status s = CheckDirectory(dir); !s.ok()) {
    return Status::Error("cannot create corpus directory " + dir + ": " +
                         (ec ? ec.message() : s.message()));
  }
  const std::string final_path = dir + "/" + name;
  struct stat st;
  if (lstat(final_path.c_str(), &st) == 0) return Status::Ok();  // same name, same content
  static std::atomic<uint64_t> counter{0};
  const std::string temp_path = dir + "/.pollen-tmp-" + std::to_string(getpid()) + "-" +
                                std::to_string(counter.fetch_add(1)) + "-" + name;
  const auto fail = [&](const std::string& what, int error) {
    unlink(temp_path.c_str());
    return Status::Error("cannot " + what + " corpus file " + final_path + ": " + ErrnoText(error));
  };
  ScopedFd fd(open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return fail("create a temporary file for", errno);
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(fd.get(), contents + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write", errno);
    done += static_cast<size_t>(n);
  }
  if (fsync(fd.get()) != 0) return fail("fsync", errno);
  if (fd.Close() != 0) return fail("close", errno);
  if (rename(temp_path.c_str(), final_path.c_str()) != 0) return fail("rename into", errno);
  return Status::Ok();
}

}  // namespace

std::string_view CorpusFormatName(CorpusFormat format) {
  switch (format) {
    case CorpusFormat::kLibFuzzer:
      return "libfuzzer";
    case CorpusFormat::kAfl:
      return "afl";
    case CorpusFormat::kGo:
      return "go";
  }
  POLLEN_CHECK(false);
  return "";
}

Result<CorpusFormat> ParseCorpusFormat(std::string_view name) {
  for (CorpusFormat format : {CorpusFormat::kLibFuzzer, CorpusFormat::kAfl, CorpusFormat::kGo}) {
    if (name == CorpusFormatName(format)) return format;
  }
  if (name == "afl++") return CorpusFormat::kAfl;
  return Status::Error("unknown corpus format '" + std::string(name) +
                       "': expected libfuzzer, afl or go");
}

Result<CorpusFormat> DetectCorpusFormat(const std::string& dir) {
  Result<std::vector<DirEntry>> entries = ListDirectory(dir);
  if (!entries.ok()) return entries.status();
  if (IsDirectory(dir + "/queue")) return CorpusFormat::kAfl;
  for (const DirEntry& entry : *entries) {
    if (entry.is_directory && IsDirectory(dir + "/" + entry.name + "/queue")) {
      return CorpusFormat::kAfl;
    }
    if (entry.is_regular && IsAflQueueFileName(entry.name) && entry.name.size() > 3 &&
        entry.name[3] >= '0' && entry.name[3] <= '9') {
      return CorpusFormat::kAfl;
    }
  }
  for (const DirEntry& entry : *entries) {
    if (!entry.is_regular) continue;
    Result<std::vector<uint8_t>> head =
        ReadFile(dir + "/" + entry.name, base::kGoCorpusHeader.size());
    if (!head.ok()) return head.status();
    if (std::string_view(reinterpret_cast<const char*>(head->data()), head->size()) ==
        base::kGoCorpusHeader) {
      return CorpusFormat::kGo;
    }
  }
  return CorpusFormat::kLibFuzzer;
}

Status ReadCorpusDir(const std::string& dir, CorpusFormat format, const CorpusSink& sink) {
  if (Status s = CheckDirectory(dir); !s.ok()) return s;
  if (format != CorpusFormat::kAfl) return ReadFiles(dir, "", format, sink);
  Result<std::vector<std::string>> queues = AflQueueDirs(dir);
  if (!queues.ok()) return queues.status();
  for (const std::string& queue : *queues) {
    if (Status s = ReadFiles(dir, queue, format, sink); !s.ok()) return s;
  }
  return Status::Ok();
}

std::string CorpusFileName(CorpusFormat format, const uint8_t* data, size_t size,
                           uint64_t sequence) {
  switch (format) {
    case CorpusFormat::kLibFuzzer:
      return base::Sha1Hex(data, size);
    case CorpusFormat::kAfl: {
      char name[64];
      std::snprintf(name, sizeof(name), "id:%06llu,src:pollen",
                    static_cast<unsigned long long>(sequence));
      return name;
    }
    case CorpusFormat::kGo:
      return base::GoCorpusFileName(base::FormatGoCorpusFile(data, size));
  }
  POLLEN_CHECK(false);
  return "";
}

Status WriteCorpusFile(const std::string& dir, CorpusFormat format, const uint8_t* data,
                       size_t size, uint64_t sequence) {
  if (format != CorpusFormat::kGo) {
    return WriteAtomically(dir, CorpusFileName(format, data, size, sequence), data, size);
  }
  const std::string text = base::FormatGoCorpusFile(data, size);
  return WriteAtomically(dir, base::GoCorpusFileName(text),
                         reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

}  // namespace pollen::storage
