#include "node/text_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "node/artifacts.h"

namespace pollen::node {

Result<std::string> ReadTextFile(const std::string& path) {
  Result<std::vector<uint8_t>> data = ReadWholeFile(path);
  if (!data.ok()) return data.status();
  return std::string(data->begin(), data->end());
}

Status WriteTextFile(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Error("cannot write " + tmp + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = std::strerror(errno);
      close(fd);
      return Status::Error("cannot write " + tmp + ": " + why);
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) return Status::Error("cannot write " + tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::Error("cannot rename " + tmp + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace pollen::node
