#include "nightly/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include "base/clock.h"

extern char** environ;

namespace pollen::nightly {
namespace {

ChildExit FromWaitStatus(int status) {
  ChildExit e;
  if (WIFEXITED(status)) e.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

}  // namespace

std::string ChildExit::Describe() const {
  if (timed_out) return "timed out";
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  return "exit code " + std::to_string(exit_code);
}

std::string FindProgram(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (name.find('/') != std::string::npos) {
      if (access(name.c_str(), X_OK) == 0) return name;
      continue;
    }
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      if (end > start) {
        std::string candidate = dirs.substr(start, end - start) + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
      }
      start = end + 1;
    }
  }
  return "";
}

Result<ChildProcess> ChildProcess::Start(const ChildSpec& spec) {
  if (spec.argv.empty()) return Status::Error("no program to start");
  const std::string program = FindProgram({spec.argv[0]});
  if (program.empty())
    return Status::Error("cannot run " + spec.argv[0] + ": not found or not executable");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string out = spec.output_path.empty() ? "/dev/null" : spec.output_path;
  int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    posix_spawn_file_actions_destroy(&actions);
    return Status::Error("cannot open " + out + ": " + std::strerror(errno));
  }
  int err_fd = -1;
  if (!spec.error_path.empty()) {
    err_fd = open(spec.error_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (err_fd < 0) {
      close(fd);
      posix_spawn_file_actions_destroy(&actions);
      return Status::Error("cannot open " + spec.error_path + ": " + std::strerror(errno));
    }
  }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd >= 0 ? err_fd : fd, 2);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  // extra_env replaces inherited variables of the same name (getenv returns the first).
  std::vector<std::string> env;
  for (char** e = environ; e && *e; e++) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& add : spec.extra_env) {
      replaced |= add.size() > name.size() && add.compare(0, name.size(), name) == 0 &&
                  add[name.size()] == '=';
    }
    if (!replaced) env.emplace_back(entry);
  }
  for (const std::string& add : spec.extra_env) env.push_back(add);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = -1;
  int rc = posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(fd);
  if (err_fd >= 0) close(err_fd);
  if (rc != 0) return Status::Error("cannot run " + program + ": " + std::strerror(rc));
  return ChildProcess(pid);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept : pid_(other.pid_), exit_(other.exit_) {
  other.pid_ = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    this->~ChildProcess();
    pid_ = other.pid_;
    exit_ = other.exit_;
    other.pid_ = -1;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exit_) {
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void ChildProcess::Signal(int sig) {
  if (pid_ > 0 && !exit_) kill(-pid_, sig);
}

std::optional<ChildExit> ChildProcess::Poll() {
  if (exit_ || pid_ <= 0) return exit_;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) exit_ = FromWaitStatus(status);
  return exit_;
}

ChildExit ChildProcess::Wait(uint64_t timeout_ms) {
  const uint64_t deadline = base::MonotonicMs() + timeout_ms;
  while (!Poll()) {
    if (base::MonotonicMs() >= deadline) {
      kill(-pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
      exit_ = FromWaitStatus(status);
      exit_->timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling a child's exit
  }
  return *exit_;
}

Result<ChildExit> RunChild(const ChildSpec& spec, uint64_t timeout_ms) {
  Result<ChildProcess> child = ChildProcess::Start(spec);
  if (!child.ok()) return child.status();
  return child->Wait(timeout_ms);
}

}  // namespace pollen::nightly
