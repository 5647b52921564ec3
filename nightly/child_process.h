// Programs the nightly runs: `pollen node`s, the coverage build, llvm-profdata and llvm-cov.
// Each child gets its output in a file (never a pipe that nobody reads), its own process
// group (so that a signal reaches what it started too), and every wait is bounded.
//
// Thread safety: none; one thread owns a ChildProcess.
#ifndef POLLEN_NIGHTLY_CHILD_PROCESS_H_
#define POLLEN_NIGHTLY_CHILD_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace pollen::nightly {

struct ChildSpec {
  std::vector<std::string> argv;       // argv[0]: a path, or a name looked up in $PATH
  std::vector<std::string> extra_env;  // "NAME=value": added to this process's, replacing
                                       // an inherited NAME
  std::string output_path;             // stdout and stderr go here (appended); "": /dev/null
  std::string error_path;              // when set, stderr goes here instead (appended)
};

// How a child ended.
struct ChildExit {
  int exit_code = -1;  // -1 when a signal ended it
  int signal = 0;      // the signal that ended it, or 0
  bool timed_out = false;
  std::string Describe() const;  // "exit code 2", "killed by signal 9", "timed out"
};

class ChildProcess {
 public:
  // Starts the child. Errors: the program cannot be started (not found, not executable),
  // the output file cannot be opened.
  static Result<ChildProcess> Start(const ChildSpec& spec);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ~ChildProcess();  // kills the group with SIGKILL and reaps it if it still runs

  pid_t pid() const { return pid_; }

  // Sends `sig` to the child's process group.
  void Signal(int sig);

  // The exit if the child has ended, without waiting.
  std::optional<ChildExit> Poll();

  // Waits up to timeout_ms (then SIGKILL to the group and timed_out set).
  ChildExit Wait(uint64_t timeout_ms);

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
  std::optional<ChildExit> exit_;
};

// Starts the child and waits for it up to timeout_ms.
Result<ChildExit> RunChild(const ChildSpec& spec, uint64_t timeout_ms);

// The first of `names` found as an executable in $PATH (a name with a '/' is taken as it
// is); "" when none is.
std::string FindProgram(const std::vector<std::string>& names);

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_CHILD_PROCESS_H_
