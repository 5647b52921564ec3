// A file descriptor closed when it goes out of scope, and errno as text: for the code that
// writes files it must not leave half-written (storage/'s corpus formats, transfer/'s
// directory sink).
#ifndef POLLEN_BASE_SCOPED_FD_H_
#define POLLEN_BASE_SCOPED_FD_H_

#include <unistd.h>

#include <string>
#include <system_error>

namespace pollen::base {

class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() {
    if (fd_ >= 0) close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }
  // Closes now, reporting close's error (a delayed write error on some filesystems).
  int Close() {
    const int result = close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

// strerror's text for `error`, thread-safe.
inline std::string ErrnoText(int error) { return std::generic_category().message(error); }

}  // namespace pollen::base

#endif  // POLLEN_BASE_SCOPED_FD_H_
