// The fields of /proc/self/stat, for the process metrics (ops/) and the worker's thread count
// (engine/runtime/hook_sites.h).
#ifndef POLLEN_BASE_PROC_STAT_H_
#define POLLEN_BASE_PROC_STAT_H_

#include <string>
#include <vector>

namespace pollen::base {

// The fields after the command name, which may hold spaces and parentheses (everything up to
// the last ')' is skipped): element 0 is field 3, "state", so field N is element N - 3.
// Empty when the file cannot be read.
std::vector<std::string> ProcSelfStatFields();

}  // namespace pollen::base

#endif  // POLLEN_BASE_PROC_STAT_H_
