// What the benchmarks share: the machine's description for their headers, the process's CPU
// time, `--name=value` flags, a loopback TCP pair for raw-copy baselines, and warming the
// memory a measurement is about to write.
#ifndef POLLEN_BENCH_BENCH_UTIL_H_
#define POLLEN_BENCH_BENCH_UTIL_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

namespace pollen::bench {

// The CPU's model name from /proc/cpuinfo, or "unknown".
inline std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

// CPU time of the whole process so far (all threads, user and system), in seconds.
inline double ProcessCpuSeconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Touches `bytes` of fresh memory and gives it back, right before a measurement that writes
// that much to memory (files on tmpfs, the page cache, a store). On a VM that returns free
// memory to its host (free page reporting, as Firecracker guests do), the first write to a
// page the guest gave back costs a fault on the host: 1 GB written into tmpfs files took
// 0.44 s on pages used a moment before and 1.6-2.9 s on pages handed back (2026-11-21,
// docs/benchmarks.md). The kernel hands out the pages just freed first, so the measurement
// then writes to memory the host backs, as on a machine without reporting, whatever ran
// before it. Costs nothing on such a machine but the time to touch the pages.
inline void WarmFreeMemory(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                 -1, 0);
  if (p != MAP_FAILED) munmap(p, bytes);
}

// One run: wall-clock and CPU seconds.
struct Timing {
  double seconds = 0;
  double cpu_seconds = 0;
};

// Keeps in *best the shortest wall-clock time and the least CPU time seen (the machine may
// be shared: each is the run least disturbed).
inline void KeepBest(std::optional<Timing>* best, const Timing& t) {
  if (!*best) *best = t;
  (*best)->seconds = std::min((*best)->seconds, t.seconds);
  (*best)->cpu_seconds = std::min((*best)->cpu_seconds, t.cpu_seconds);
}

// The best (KeepBest) of `repeat` runs of measure(), which returns a Timing or nullopt on
// failure (then nullopt).
template <typename Measure>
std::optional<Timing> BestOf(int repeat, const Measure& measure) {
  std::optional<Timing> best;
  for (int r = 0; r < repeat; r++) {
    std::optional<Timing> t = measure();
    if (!t) return std::nullopt;
    KeepBest(&best, *t);
  }
  return best;
}

// True, with *value, when `arg` is --name=value.
inline bool ParseFlag(const std::string& arg, const std::string& name, std::string* value) {
  const std::string prefix = "--" + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  *value = arg.substr(prefix.size());
  return true;
}

// A connected loopback TCP pair (out, in), or -1s.
inline std::pair<int, int> TcpPair() {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (listener >= 0) close(listener);
    return {-1, -1};
  }
  const int out = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (connect(out, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(listener);
    return {-1, -1};
  }
  const int in = accept(listener, nullptr, nullptr);
  close(listener);
  return {out, in};
}

// Writes all n bytes, at most `piece` per write() (as a copy tool's buffer would).
inline bool WriteAll(int fd, const char* p, size_t n, size_t piece = SIZE_MAX) {
  while (n > 0) {
    const ssize_t w = write(fd, p, std::min(n, piece));
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace pollen::bench

#endif  // POLLEN_BENCH_BENCH_UTIL_H_
