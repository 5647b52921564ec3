#include "tests/test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/clock.h"

extern char** environ;

namespace pollen::testing {
namespace {

pid_t Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
            int* out_fd) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return -1;
  std::vector<std::string> env;
  for (char** e = environ; *e; e++) env.emplace_back(*e);
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    // Its own process group, so the test's timeout can kill it whole; and stopped when the
    // test process dies first (ctest's timeout), not left fuzzing on the machine.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(out[1], 1);
    dup2(out[1], 2);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    std::vector<char*> args, envp;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    execve(args[0], args.data(), envp.data());
    std::perror("execve");
    _exit(127);
  }
  close(out[1]);
  if (pid > 0) setpgid(pid, pid);
  *out_fd = out[0];
  return pid;
}

// Reads until EOF or the deadline; returns false on the deadline.
bool Drain(int fd, std::string* output, uint64_t deadline_ms) {
  char buf[8192];
  while (true) {
    uint64_t now = base::MonotonicMs();
    if (now >= deadline_ms) return false;
    pollfd p{fd, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min<uint64_t>(deadline_ms - now, 200)));
    if (r <= 0) continue;
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      output->append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      return true;
    } else if (errno != EINTR) {
      return true;
    }
  }
}

CommandResult Finish(pid_t pid, int fd, std::string output, int timeout_s) {
  CommandResult result;
  result.output = std::move(output);
  uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(timeout_s) * 1000;
  bool eof = Drain(fd, &result.output, deadline);
  close(fd);
  if (!eof) {
    result.timed_out = true;
    kill(-pid, SIGKILL);
  }
  int status = 0;
  // After EOF the process is exiting or has exited; bounded wait all the same.
  uint64_t reap_deadline = base::MonotonicMs() + 10000;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (base::MonotonicMs() > reap_deadline) {
      kill(-pid, SIGKILL);
      result.timed_out = true;
    }
    usleep(10000);
  }
  result.exit_code = WIFEXITED(status) && !result.timed_out ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_s,
                         const std::vector<std::string>& extra_env) {
  int fd = -1;
  pid_t pid = Spawn(argv, extra_env, &fd);
  if (pid < 0) return CommandResult{};
  return Finish(pid, fd, "", timeout_s);
}

Background::Background(const std::vector<std::string>& argv,
                       const std::vector<std::string>& extra_env) {
  pid_ = Spawn(argv, extra_env, &out_fd_);
  if (out_fd_ >= 0) fcntl(out_fd_, F_SETFL, O_NONBLOCK);
}

Background::~Background() {
  if (!done_ && pid_ > 0) {
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    close(out_fd_);
  }
}

CommandResult Background::Wait(int timeout_s) {
  done_ = true;
  return Finish(pid_, out_fd_, output_, timeout_s);
}

bool Background::WaitForOutput(const std::string& needle, int timeout_s) {
  uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(timeout_s) * 1000;
  char buf[8192];
  while (output_.find(needle) == std::string::npos) {
    uint64_t now = base::MonotonicMs();
    if (now >= deadline) return false;
    pollfd p{out_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::min<uint64_t>(deadline - now, 200))) <= 0) continue;
    ssize_t n = read(out_fd_, buf, sizeof(buf));
    if (n > 0) {
      output_.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      return output_.find(needle) != std::string::npos;  // exited
    }
  }
  return true;
}

void Background::ReadFor(int timeout_ms) {
  uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(std::max(timeout_ms, 0));
  char buf[8192];
  while (!done_) {
    uint64_t now = base::MonotonicMs();
    pollfd p{out_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(deadline > now ? deadline - now : 0)) <= 0) return;
    ssize_t n = read(out_fd_, buf, sizeof(buf));
    if (n <= 0) return;  // nothing more now, or the process exited
    output_.append(buf, static_cast<size_t>(n));
  }
}

std::string MakeTempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/pollen-test-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back(0);
  if (mkdtemp(buf.data()) == nullptr) std::abort();
  return std::string(buf.data());
}

std::string PollenBin() { return POLLEN_BIN; }
std::string Example(const std::string& name) {
  return std::string(EXAMPLES_DIR) + "/" + name + "_fuzzer";
}
std::string TestTarget(const std::string& name) {
  return std::string(TEST_TARGETS_DIR) + "/" + name + "_fuzzer";
}

std::vector<std::string> ListFiles(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  if (!d) return files;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.rfind(prefix, 0) == 0) files.push_back(dir + "/" + name);
  }
  closedir(d);
  return files;
}

std::vector<std::string> ListVisibleFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const std::string& f : ListFiles(dir, "")) {
    if (f[f.rfind('/') + 1] != '.') files.push_back(f);
  }
  return files;
}

std::vector<std::string> ArtifactInputs(const std::string& crashes_dir, const std::string& prefix) {
  std::vector<std::string> inputs;
  for (const auto& f : ListFiles(crashes_dir, prefix + "-")) {
    if (f.size() < 4 || f.compare(f.size() - 4, 4, ".txt") != 0) inputs.push_back(f);
  }
  return inputs;
}

long NumberAfter(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) return -1;
  return std::stol(m[1].str());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

std::vector<pid_t> ChildrenOf(pid_t pid) {
  std::vector<pid_t> children;
  std::string path = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children";
  std::istringstream in(ReadFile(path));
  pid_t child;
  while (in >> child) children.push_back(child);
  return children;
}

}  // namespace pollen::testing
