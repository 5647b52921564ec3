#include "ops/process_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "base/proc_stat.h"

namespace pollen::ops {
namespace {

// Seconds since the epoch at which the machine booted, from /proc/stat's btime.
bool BootTime(double* seconds) {
  std::ifstream in("/proc/stat");
  std::string key;
  while (in >> key) {
    if (key == "btime") return static_cast<bool>(in >> *seconds);
    in.ignore(1 << 20, '\n');
  }
  return false;
}

// /proc is the kernel's, but a parse never throws: garbage reads as 0.
double Number(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

double OpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  double n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the directory's own descriptor
}

}  // namespace

void AddProcessMetrics(MetricSet& metrics) {
  const std::vector<std::string> f = base::ProcSelfStatFields();
  if (f.size() >= 22) {
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    // Fields 14 utime, 15 stime, 22 starttime (ticks since boot), 23 vsize, 24 rss (pages).
    const double cpu = (Number(f[11]) + Number(f[12])) / ticks;
    metrics.Counter("process_cpu_seconds_total", "User and system CPU time spent, seconds.", cpu);
    metrics.Gauge("process_resident_memory_bytes", "Resident memory size, bytes.",
                  Number(f[21]) * page);
    metrics.Gauge("process_virtual_memory_bytes", "Virtual memory size, bytes.", Number(f[20]));
    double boot = 0;
    if (BootTime(&boot)) {
      metrics.Gauge("process_start_time_seconds",
                    "Start time of the process since the Unix epoch, seconds.",
                    boot + Number(f[19]) / ticks);
    }
  }
  if (double fds = OpenFds(); fds >= 0) {
    metrics.Gauge("process_open_fds", "Open file descriptors.", fds);
  }
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    metrics.Gauge("process_max_fds", "Limit on open file descriptors.",
                  static_cast<double>(limit.rlim_cur));
  }
}

}  // namespace pollen::ops
