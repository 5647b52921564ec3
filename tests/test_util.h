// Helpers for the multi-process integration tests: run a command with a time limit and
// capture its output, unique temporary directories, paths of the built targets.
#ifndef POLLEN_TESTS_TEST_UTIL_H_
#define POLLEN_TESTS_TEST_UTIL_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace pollen::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when killed for the time limit or by a signal
  bool timed_out = false;
  std::string output;  // stdout and stderr, interleaved
};

// Runs argv (argv[0] a path) with extra "NAME=value" environment entries; kills the whole
// process group after timeout_s. Every wait is bounded.
CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_s,
                         const std::vector<std::string>& extra_env = {});

// A command running in the background, in its own process group.
class Background {
 public:
  Background(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {});
  ~Background();  // kills the group if still running
  pid_t pid() const { return pid_; }
  // Waits for the exit (at most timeout_s), collecting output.
  CommandResult Wait(int timeout_s);
  // Reads output as it comes until it contains `needle` (true) or timeout_s passes.
  bool WaitForOutput(const std::string& needle, int timeout_s);
  // Reads the output that comes within timeout_ms (0: only what is there already), so that
  // a process whose output is not awaited never blocks on a full pipe.
  void ReadFor(int timeout_ms);
  const std::string& output() const { return output_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool done_ = false;
  std::string output_;
};

std::string MakeTempDir();
std::string PollenBin();
std::string Example(const std::string& name);     // EXAMPLES_DIR/<name>_fuzzer
std::string TestTarget(const std::string& name);  // TEST_TARGETS_DIR/<name>_fuzzer
std::vector<std::string> ListFiles(const std::string& dir, const std::string& prefix);
// The entries of `dir` (full paths) whose names do not start with a dot.
std::vector<std::string> ListVisibleFiles(const std::string& dir);
// The failure artifacts of a work directory's crashes/ named PREFIX-<sha1>, without their
// .txt reports.
std::vector<std::string> ArtifactInputs(const std::string& crashes_dir, const std::string& prefix);
std::string ReadFile(const std::string& path);
// The number captured by the first group of `pattern` in `text`, or -1 when it is absent.
long NumberAfter(const std::string& text, const std::string& pattern);
void WriteFile(const std::string& path, const std::string& data);
// The children of `pid` (from /proc).
std::vector<pid_t> ChildrenOf(pid_t pid);

}  // namespace pollen::testing

#endif  // POLLEN_TESTS_TEST_UTIL_H_
