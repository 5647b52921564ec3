#include "controller/build_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/sha1.h"

namespace pollen::controller {
namespace {

namespace fs = std::filesystem;

Status Errno(const std::string& what, const std::string& path) {
  return Status::Error("cannot " + what + " " + path + ": " + std::strerror(errno));
}

// Writes `bytes` to `path` through `path`.tmp: written, fsynced, renamed, the directory
// fsynced.
Status WriteDurably(const fs::path& path, std::string_view bytes) {
  const std::string tmp = path.string() + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("create", tmp);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status st = Errno("write", tmp);
      ::close(fd);
      return st;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Status st = Errno("fsync", tmp);
    ::close(fd);
    return st;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Errno("rename", tmp);
  int dir = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
  return Status::Ok();
}

}  // namespace

std::string BuildStore::PathOf(const std::string& campaign, const std::string& build_id,
                               const std::string& target) const {
  return (fs::path(root_) / campaign / "_builds" / build_id / target).string();
}

Status BuildStore::Put(const std::string& campaign, const std::string& target,
                       const std::string& build_id, std::string_view bytes,
                       const std::string& keep) {
  const std::string actual =
      base::BuildIdOf(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (actual != build_id) {
    return Status::Error("the pushed executable's bytes are build " + actual + ", not " + build_id +
                         " (" + std::to_string(bytes.size()) +
                         " bytes): it changed "
                         "during the push, or the push is damaged");
  }
  const fs::path path = PathOf(campaign, build_id, target);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    return Status::Error("cannot create " + path.parent_path().string() + ": " + ec.message());
  if (Status st = WriteDurably(path, bytes); !st.ok()) return st;
  const fs::path campaign_dir = fs::path(root_) / campaign / "_builds";
  for (fs::directory_iterator it(campaign_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name != build_id && name != keep) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
  return Status::Ok();
}

Result<std::string> BuildStore::Read(const std::string& campaign, const std::string& build_id,
                                     const std::string& target) const {
  const std::string path = PathOf(campaign, build_id, target);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::Error("build " + build_id + " of campaign '" + campaign + "' is not stored (" +
                         path + ")");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in.good() && !in.eof()) return Status::Error("cannot read " + path);
  return std::move(bytes).str();
}

}  // namespace pollen::controller
