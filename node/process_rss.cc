#include "node/process_rss.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace pollen::node {
namespace {

// Resident pages × page size of /proc/<pid>/statm ("self" for this process); 0 if unreadable.
uint64_t StatmRssBytes(const std::string& pid) {
  std::string path = "/proc/" + pid + "/statm";
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  return static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

uint64_t ProcessTreeRssBytes() {
  uint64_t total = StatmRssBytes("self");
  // Children are listed under the thread that started them: read every thread's list.
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return total;
  while (dirent* task = readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    std::string path = std::string("/proc/self/task/") + task->d_name + "/children";
    FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) continue;
    long child = 0;
    while (std::fscanf(f, "%ld", &child) == 1) total += StatmRssBytes(std::to_string(child));
    std::fclose(f);
  }
  closedir(tasks);
  return total;
}

}  // namespace pollen::node
