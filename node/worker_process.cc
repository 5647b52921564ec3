#include "node/worker_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/clock.h"
#include "node/symbolizer.h"

extern char** environ;

namespace pollen::node {
namespace {

constexpr size_t kStderrKeep = 256 * 1024;

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Sanitizer settings a worker needs, unless the user chose their own.
void AddDefault(std::vector<std::string>* env, const char* name, const char* value) {
  if (std::getenv(name) == nullptr) env->push_back(std::string(name) + "=" + value);
}

}  // namespace

Result<std::unique_ptr<WorkerProcess>> WorkerProcess::Start(const WorkerSpawnOptions& options) {
  std::unique_ptr<WorkerProcess> w(new WorkerProcess());
  auto layout = engine::WorkerShmLayout::For(options.max_input, options.max_features);
  w->shm_fd_ = memfd_create("pollen-worker", MFD_CLOEXEC);
  if (w->shm_fd_ < 0) return Status::Error(Errno("memfd_create"));
  if (ftruncate(w->shm_fd_, static_cast<off_t>(layout.total_size)) != 0) {
    return Status::Error(Errno("ftruncate of the worker's shared memory"));
  }
  w->shm_size_ = layout.total_size;
  w->shm_base_ =
      mmap(nullptr, layout.total_size, PROT_READ | PROT_WRITE, MAP_SHARED, w->shm_fd_, 0);
  if (w->shm_base_ == MAP_FAILED) {
    w->shm_base_ = nullptr;
    return Status::Error(Errno("mmap of the worker's shared memory"));
  }
  w->shm_ = engine::WorkerShmView(w->shm_base_, layout);
  engine::WorkerShmHeader* h = w->shm_.header();
  h->magic = engine::WorkerShmHeader::kMagic;
  h->version = engine::WorkerShmHeader::kVersion;
  h->max_input = options.max_input;
  h->max_features = options.max_features;
  h->value_profile = options.value_profile ? 1 : 0;  // the coordinator may switch it per request

  int to_worker[2], from_worker[2], err[2];
  if (pipe2(to_worker, O_CLOEXEC) != 0 || pipe2(from_worker, O_CLOEXEC) != 0 ||
      pipe2(err, O_CLOEXEC) != 0) {
    return Status::Error(Errno("pipe"));
  }

  std::vector<std::string> env_strings;
  for (char** e = environ; *e; e++) env_strings.emplace_back(*e);
  env_strings.push_back(std::string(engine::kEnvWorkerFds) + "=" + std::to_string(to_worker[0]) +
                        "," + std::to_string(from_worker[1]) + "," + std::to_string(w->shm_fd_) +
                        "," + std::to_string(options.coverage_fd));
  env_strings.push_back(std::string(engine::kEnvWorkerShmSize) + "=" +
                        std::to_string(options.max_input) + "," +
                        std::to_string(options.max_features));
  if (options.value_profile) env_strings.push_back(std::string(engine::kEnvValueProfile) + "=1");
  if (options.malloc_limit_mb != 0) {
    env_strings.push_back(std::string(engine::kEnvMallocLimitMb) + "=" +
                          std::to_string(options.malloc_limit_mb));
  }
  // Leaks are not failures by default (as with libFuzzer's -detect_leaks=0 in fork mode);
  // UBSan findings are.
  // The sanitizers symbolize with the symbolizer Pollen found (node/symbolizer.h): on a
  // machine with addr2line only (Pollen's image) they would find none, and crash signatures
  // would differ from a developer's. They run addr2line with -i: inlined frames included.
  const Symbolizer& symbolizer = FindSymbolizer();
  const std::string symbolizer_option =
      symbolizer.path.empty() ? "" : ":external_symbolizer_path=" + symbolizer.path;
  AddDefault(
      &env_strings, "ASAN_OPTIONS",
      ("detect_leaks=0:allocator_may_return_null=1:handle_abort=0:symbolize=1" + symbolizer_option)
          .c_str());
  AddDefault(&env_strings, "UBSAN_OPTIONS",
             ("halt_on_error=1:print_stacktrace=1:symbolize=1" + symbolizer_option).c_str());

  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings{options.target};
  arg_strings.insert(arg_strings.end(), options.args.begin(), options.args.end());
  std::vector<char*> argv;
  for (auto& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  // The exec error, if any, comes back through this pipe (closed on a successful exec).
  int exec_status[2];
  if (pipe2(exec_status, O_CLOEXEC) != 0) return Status::Error(Errno("pipe"));

  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return Status::Error(Errno("fork"));
  if (pid == 0) {
    // Child: its own process group, so the terminal's Ctrl-C reaches the coordinator only,
    // and death with the coordinator.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int keep[] = {to_worker[0], from_worker[1], w->shm_fd_, options.coverage_fd};
    for (int fd : keep) fcntl(fd, F_SETFD, 0);
    dup2(err[1], 2);
    if (!options.keep_stdout) {
      int devnull = open("/dev/null", O_WRONLY);
      if (devnull >= 0) dup2(devnull, 1);
    }
    execve(options.target.c_str(), argv.data(), envp.data());
    int e = errno;
    ssize_t ignored = write(exec_status[1], &e, sizeof(e));
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);  // also here: no window in which a signal to the group misses it
  close(exec_status[1]);
  close(to_worker[0]);
  close(from_worker[1]);
  close(err[1]);
  w->pid_ = pid;
  w->to_worker_ = to_worker[1];
  w->from_worker_ = from_worker[0];
  w->stderr_fd_ = err[0];
  fcntl(w->from_worker_, F_SETFL, O_NONBLOCK);
  fcntl(w->stderr_fd_, F_SETFL, O_NONBLOCK);

  int exec_errno = 0;
  ssize_t r;
  do {
    r = read(exec_status[0], &exec_errno, sizeof(exec_errno));
  } while (r < 0 && errno == EINTR);
  close(exec_status[0]);
  if (r == sizeof(exec_errno)) {
    return Status::Error("cannot execute " + options.target + ": " + std::strerror(exec_errno));
  }
  return w;
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0 && !reaped_) {
    Kill();
    WaitExit();
  }
  for (int fd : {to_worker_, from_worker_, stderr_fd_, shm_fd_}) {
    if (fd >= 0) close(fd);
  }
  if (shm_base_) munmap(shm_base_, shm_size_);
}

Status WorkerProcess::Send(capnp::MessageBuilder& message) {
  // A worker that died leaves a broken pipe: EPIPE, not SIGPIPE (ignored by the coordinator).
  return engine::WriteFrame(to_worker_, message);
}

WorkerProcess::Receive WorkerProcess::TryReceive(engine::FrameWords* words) {
  std::string error;
  while (true) {
    switch (decoder_.Pop(words, &error)) {
      case engine::FrameDecoder::Next::kFrame:
        return Receive::kMessage;
      case engine::FrameDecoder::Next::kError:
        last_error_ = error;
        return Receive::kError;
      case engine::FrameDecoder::Next::kNeedMore:
        break;
    }
    uint8_t buf[8192];
    ssize_t r = read(from_worker_, buf, sizeof(buf));
    if (r > 0) {
      decoder_.Append(buf, static_cast<size_t>(r));
      continue;
    }
    if (r == 0) return Receive::kClosed;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Receive::kNone;
    last_error_ = Errno("read");
    return Receive::kError;
  }
}

WorkerProcess::Receive WorkerProcess::WaitReceive(engine::FrameWords* words, int timeout_ms) {
  // Polls in short slices so that stderr keeps draining (a chatty target must not block).
  int waited = 0;
  while (true) {
    Receive r = TryReceive(words);
    if (r != Receive::kNone) return r;
    if (waited >= timeout_ms) return Receive::kNone;
    pollfd fds[2] = {{from_worker_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};
    int slice = std::min(50, timeout_ms - waited);
    poll(fds, 2, slice);
    waited += slice;
    DrainStderr();
  }
}

void WorkerProcess::DrainStderr() {
  char buf[16384];
  while (true) {
    ssize_t r = read(stderr_fd_, buf, sizeof(buf));
    if (r > 0) {
      stderr_.append(buf, static_cast<size_t>(r));
      if (stderr_.size() > 2 * kStderrKeep) stderr_.erase(0, stderr_.size() - kStderrKeep);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    return;
  }
}

void WorkerProcess::Kill() {
  if (pid_ > 0 && !reaped_) {
    kill(-pid_, SIGKILL);  // the process group
    kill(pid_, SIGKILL);
  }
}

bool WorkerProcess::WaitExitFor(int timeout_ms) {
  if (reaped_ || pid_ <= 0) return true;
  // waitid's WNOWAIT leaves the process a zombie: its group id stays valid for Kill(). A
  // loop, not a pidfd: valgrind 3.19 (under which bench/exec_instructions.sh runs this)
  // has no pidfd_open. The worker's stderr is drained meanwhile: a full pipe would block it.
  const uint64_t deadline_ms = base::MonotonicMs() + static_cast<uint64_t>(std::max(0, timeout_ms));
  while (true) {
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid_) {
      return true;
    }
    const uint64_t now_ms = base::MonotonicMs();
    if (now_ms >= deadline_ms) return false;
    const int slice_ms = static_cast<int>(std::min<uint64_t>(10, deadline_ms - now_ms));
    pollfd p{stderr_fd_, POLLIN, 0};
    // A stderr the target closed polls as hung up at once: wait the slice out instead.
    if (poll(&p, 1, slice_ms) > 0 && (p.revents & POLLIN) == 0) poll(nullptr, 0, slice_ms);
    DrainStderr();
  }
}

int WorkerProcess::WaitExit() {
  if (reaped_ || pid_ <= 0) return wait_status_;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) break;
  }
  reaped_ = true;
  wait_status_ = status;
  // Whatever it wrote before dying is part of the report.
  DrainStderr();
  return status;
}

uint64_t WorkerProcess::RssMb() const {
  if (pid_ <= 0 || reaped_) return 0;
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/statm", static_cast<int>(pid_));
  FILE* f = std::fopen(path, "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  return static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) /
         (1024 * 1024);
}

}  // namespace pollen::node
