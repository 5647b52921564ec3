// main() for the coverage builds of bench/real (clang -fprofile-instr-generate -fcoverage-mapping).
//
//   LLVM_PROFILE_FILE='DIR/cov-%p.profraw' ./cov [-timeout=S] [-rss_limit_mb=N]
//                                               [-close_fd_mask=M] FILE_OR_DIR...
//
// Runs every regular, non-hidden file of each directory (not recursive; AFL's queue/.state
// is skipped that way), and each file named, through LLVMFuzzerTestOneInput, in name order,
// each input in a fresh process, so that neither a crash, nor a hang, nor what an earlier
// input left behind in the target's global state changes what an input covers:
//
// - The parent runs LLVMFuzzerInitialize once, then forks one child per input, as a fork
//   server does. Inputs do not see each other: a SQL input that lowers a process-wide memory
//   limit (sqlite3's PRAGMA soft_heap_limit) would otherwise leave every later input of one
//   process covering a fraction of what it covers alone, and the measured coverage would
//   depend on the names of the files.
// - A child adds what its input covered (its profile counters minus the parent's, which
//   it started from) to counters in memory shared with the parent, then exits. A crash
//   (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP), a hang (SIGALRM after -timeout
//   seconds) or an exit() in the harness adds them from a signal or atexit handler first, so
//   the failing input's partial coverage counts too. The parent kills a child whose input has
//   run 5 s past the timeout (its coverage is then lost).
// - The parent writes one profile: its own counters plus the children's sums, to a
//   temporary file renamed to LLVM_PROFILE_FILE with %p replaced by its pid (other %
//   specifiers are refused; unset, default-%p.profraw). It writes it after
//   LLVMFuzzerInitialize, every 30 s, and at the end, so a run killed from outside keeps most
//   of what it measured. SIGTERM or SIGINT stops the run early (the running child is killed,
//   the profile written, the exit code 1). Merge as usual:
//     llvm-profdata-14 merge -sparse DIR/*.profraw -o cov.profdata
//
// A harness whose LLVMFuzzerInitialize starts threads gets them in the parent only (fork
// keeps the calling thread): as with AFL++'s fork server.
//
// libFuzzer-style flags: -timeout=S (default 25, as FuzzBench), -rss_limit_mb=N (address-space
// limit of a child, default 2560, 0: none), -close_fd_mask=M (1: stdout, 2: stderr of the
// harness to /dev/null, default 0); other -flags are ignored. Prints a summary on stderr;
// exits 0 unless an argument could not be read, a child could not be started, the profile
// could not be written, or a signal stopped it.
//
// This file is compiled without coverage instrumentation, so it does not show in reports.

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);
// clang's profile runtime (libclang_rt.profile), linked by -fprofile-instr-generate. In clang
// 14 the counters are 64-bit, one array for the whole program.
__attribute__((weak)) int __llvm_profile_write_file(void);
__attribute__((weak)) void __llvm_profile_set_filename(const char* name);
__attribute__((weak)) uint64_t* __llvm_profile_begin_counters(void);
__attribute__((weak)) uint64_t* __llvm_profile_end_counters(void);
}

namespace {

struct Shared {                 // parent <-> child, in a MAP_SHARED page
  volatile int64_t started_ns;  // CLOCK_MONOTONIC when the child's input started
  volatile int32_t timed_out;   // the child's SIGALRM fired
  volatile int32_t finished;    // the child's input returned
};

Shared* g_shared = nullptr;
uint64_t* g_counters = nullptr;  // the profile runtime's counters
size_t g_num_counters = 0;
uint64_t* g_base = nullptr;             // the parent's counters when it forked (a copy per fork)
uint64_t* g_added = nullptr;            // shared: what the children covered, summed
volatile sig_atomic_t g_accounted = 0;  // this child has added its counters
pid_t g_child = 0;                      // the child's pid, in the child (not its own children's)
volatile sig_atomic_t g_stop = 0;       // SIGTERM or SIGINT in the parent

int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Expands %p of the LLVM_PROFILE_FILE pattern for this pid; any other % is refused.
bool Expand(const char* pattern, long pid, char* out, size_t cap) {
  char pidbuf[32];
  int n = 0;
  long p = pid;
  char rev[32];
  do {
    rev[n++] = char('0' + p % 10);
    p /= 10;
  } while (p > 0 && n < 31);
  for (int i = 0; i < n; i++) pidbuf[i] = rev[n - 1 - i];
  pidbuf[n] = 0;
  size_t o = 0;
  for (const char* c = pattern; *c; c++) {
    const char* add = nullptr;
    char one[2] = {*c, 0};
    if (*c == '%') {
      c++;
      if (*c == 'p')
        add = pidbuf;
      else
        return false;  // %% too: the runtime would read a literal % in the name again
    } else {
      add = one;
    }
    for (; *add; add++) {
      if (o + 1 >= cap) return false;
      out[o++] = *add;
    }
  }
  out[o] = 0;
  return true;
}

// In a child: adds what this process covered since the fork to the shared sums, once.
// Async-signal-safe (plain memory arithmetic); children run one at a time, so the sums
// need no atomics.
void AddOwnCounters() {
  // A process the harness forked inherits these handlers: only the child itself adds.
  if (g_accounted || getpid() != g_child) return;
  g_accounted = 1;
  for (size_t i = 0; i < g_num_counters; i++) g_added[i] += g_counters[i] - g_base[i];
}

void OnFatalSignal(int sig) {
  alarm(0);  // a hang's alarm must not cut the adding short
  if (sig == SIGALRM) g_shared->timed_out = 1;
  AddOwnCounters();
  if (sig == SIGALRM) _exit(70);
  signal(sig, SIG_DFL);
  sigset_t own;  // blocked by sa_mask while the handler runs
  sigemptyset(&own);
  sigaddset(&own, sig);
  sigprocmask(SIG_UNBLOCK, &own, nullptr);
  raise(sig);
  _exit(128 + sig);
}

void OnExit() {  // the harness called exit()
  alarm(0);
  AddOwnCounters();
  _exit(0);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define POLLEN_SHADOW_MEMORY 1
#endif
#endif
#ifdef POLLEN_SHADOW_MEMORY
constexpr bool kShadowMemory = true;
#else
constexpr bool kShadowMemory = false;
#endif

[[noreturn]] void Child(const std::vector<uint8_t>& input, int timeout_s, long rss_limit_mb) {
  g_child = getpid();
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);  // the parent blocks SIGCHLD
  // A sanitizer's shadow memory takes terabytes of address space, so under one the limit
  // would stop the child before its first allocation. Such a build runs with no memory
  // limit here (ASan's own rss_limit_mb, off by default, is the way to set one).
  if (rss_limit_mb > 0 && !kShadowMemory) {
    rlimit rl;
    rl.rlim_cur = rl.rlim_max = rlim_t(rss_limit_mb) << 20;
    setrlimit(RLIMIT_AS, &rl);
  }
  static char altstack[1 << 20];
  stack_t ss{};
  ss.ss_sp = altstack;
  ss.ss_size = sizeof altstack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = OnFatalSignal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  sigfillset(&sa.sa_mask);  // one handler at a time
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGALRM})
    sigaction(sig, &sa, nullptr);
  atexit(OnExit);
  // Like libFuzzer: the harness gets a heap copy of exactly `size` bytes.
  uint8_t* data = new uint8_t[input.size() ? input.size() : 1];
  if (!input.empty()) memcpy(data, input.data(), input.size());
  g_shared->started_ns = NowNs();
  alarm(unsigned(timeout_s));
  LLVMFuzzerTestOneInput(data, input.size());
  alarm(0);
  g_shared->finished = 1;
  AddOwnCounters();
  _exit(0);
}

bool ReadFile(const std::string& path, std::vector<uint8_t>* out) {
  out->clear();
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return false;
  uint8_t chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) out->insert(out->end(), chunk, chunk + n);
  bool ok = !ferror(f);
  fclose(f);
  return ok;
}

bool Collect(const std::string& arg, std::vector<std::string>* files) {
  struct stat st;
  if (stat(arg.c_str(), &st) != 0) {
    fprintf(stderr, "coverage_main: %s: %s\n", arg.c_str(), strerror(errno));
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    files->push_back(arg);
    return true;
  }
  DIR* d = opendir(arg.c_str());
  if (!d) {
    fprintf(stderr, "coverage_main: %s: %s\n", arg.c_str(), strerror(errno));
    return false;
  }
  std::vector<std::string> here;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::string path = arg + "/" + e->d_name;
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) here.push_back(path);
  }
  closedir(d);
  std::sort(here.begin(), here.end());
  files->insert(files->end(), here.begin(), here.end());
  return true;
}

void OnStop(int) { g_stop = 1; }

// Writes the profile: the parent's own counters plus what the children covered, to `temp`
// renamed to `final_name`, leaving the parent's counters as they were (the next child starts
// from them). True when written.
bool WriteProfile(const char* temp, const char* final_name) {
  std::memcpy(g_base, g_counters, g_num_counters * sizeof(uint64_t));
  for (size_t i = 0; i < g_num_counters; i++) g_counters[i] += g_added[i];
  __llvm_profile_set_filename(temp);
  bool written = __llvm_profile_write_file() == 0 && rename(temp, final_name) == 0;
  std::memcpy(g_counters, g_base, g_num_counters * sizeof(uint64_t));
  if (!written) unlink(temp);
  return written;
}

// Runs one input in a child; returns "" when it returned normally, else what happened.
std::string RunInChild(const std::vector<uint8_t>& input, int timeout_s, long rss_limit_mb) {
  g_shared->started_ns = NowNs();
  g_shared->timed_out = 0;
  g_shared->finished = 0;
  fflush(nullptr);
  // The child's starting point: what it covers is its counters minus these.
  std::memcpy(g_base, g_counters, g_num_counters * sizeof(uint64_t));
  pid_t pid = fork();
  if (pid < 0) return std::string("fork failed: ") + strerror(errno);
  if (pid == 0) Child(input, timeout_s, rss_limit_mb);
  const int64_t kill_after_ns = (int64_t(timeout_s) + 5) * 1000000000;
  int status = 0;
  bool killed = false, alarmed = false;
  // SIGCHLD is blocked in the parent (main): wait for it with a timeout, so that the
  // deadline is checked without a polling delay on the many inputs that take microseconds.
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return std::string("waitpid failed: ") + strerror(errno);
    if (g_stop && !alarmed) {
      kill(pid, SIGALRM);  // as a hang: the child adds what it covered, then exits
      alarmed = true;
      g_shared->started_ns = NowNs() - (int64_t(timeout_s) * 1000000000);  // SIGKILL in 5 s
    }
    if (!killed && NowNs() - g_shared->started_ns > kill_after_ns) {
      kill(pid, SIGKILL);
      killed = true;
    }
    timespec wait{1, 0};
    sigtimedwait(&chld, nullptr, &wait);
  }
  if (g_shared->finished && WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  char how[64];
  if (WIFSIGNALED(status))
    snprintf(how, sizeof how, "signal %d", WTERMSIG(status));
  else
    snprintf(how, sizeof how, "exit code %d", WEXITSTATUS(status));
  const char* what = g_shared->timed_out || killed ? "timeout"
                     : WIFEXITED(status)           ? "exit"
                                                   : "crash";
  return std::string(what) + " (" + how + ")";
}

}  // namespace

int main(int argc, char** argv) {
  if (!__llvm_profile_write_file || !__llvm_profile_set_filename ||
      !__llvm_profile_begin_counters || !__llvm_profile_end_counters) {
    fprintf(stderr, "coverage_main: no profile runtime: link with -fprofile-instr-generate\n");
    return 2;
  }
  int timeout_s = 25;
  long rss_limit_mb = 2560;
  int close_fd_mask = 0;
  std::vector<std::string> files;
  bool ok = true;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (a[0] == '-') {
      if (!strncmp(a, "-timeout=", 9))
        timeout_s = std::max(1, atoi(a + 9));
      else if (!strncmp(a, "-rss_limit_mb=", 14))
        rss_limit_mb = atol(a + 14);
      else if (!strncmp(a, "-close_fd_mask=", 15))
        close_fd_mask = atoi(a + 15);
      continue;  // other libFuzzer flags: ignored
    }
    ok = Collect(a, &files) && ok;
  }
  const char* env = getenv("LLVM_PROFILE_FILE");
  std::string pattern = env && *env ? env : "default-%p.profraw";
  char final_name[4096], temp_name[4096 + 8];
  if (!Expand(pattern.c_str(), long(getpid()), final_name, sizeof final_name)) {
    fprintf(stderr, "coverage_main: LLVM_PROFILE_FILE=%s: only %%p is supported\n",
            pattern.c_str());
    _exit(2);
  }
  snprintf(temp_name, sizeof temp_name, "%s.tmp", final_name);
  // Create the profile's directory.
  std::string dir =
      pattern.substr(0, pattern.rfind('/') == std::string::npos ? 0 : pattern.rfind('/'));
  for (size_t pos = 1; !dir.empty() && pos != std::string::npos;) {
    pos = dir.find('/', pos);
    mkdir(dir.substr(0, pos).c_str(), 0777);
    if (pos != std::string::npos) pos++;
  }

  g_counters = __llvm_profile_begin_counters();
  g_num_counters = size_t(__llvm_profile_end_counters() - g_counters);
  size_t shared_size = sizeof(Shared) + g_num_counters * sizeof(uint64_t);
  void* mem = mmap(nullptr, shared_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    perror("coverage_main: mmap");
    _exit(2);
  }
  g_shared = static_cast<Shared*>(mem);
  g_added = reinterpret_cast<uint64_t*>(static_cast<char*>(mem) + sizeof(Shared));

  // The harness's output goes where -close_fd_mask says; this program's own messages keep
  // the original stderr.
  int own_err = dup(2);
  FILE* log = own_err >= 0 ? fdopen(own_err, "w") : stderr;
  if (close_fd_mask) {
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      fflush(nullptr);
      if (close_fd_mask & 1) dup2(devnull, 1);
      if (close_fd_mask & 2) dup2(devnull, 2);
      close(devnull);
    }
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  signal(SIGCHLD, SIG_DFL);  // inherited as SIG_IGN, waitpid would find no child
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);
  struct sigaction stop {};
  stop.sa_handler = OnStop;  // no SA_RESTART: the wait for a child wakes up
  sigemptyset(&stop.sa_mask);
  sigaction(SIGTERM, &stop, nullptr);
  sigaction(SIGINT, &stop, nullptr);
  std::vector<uint64_t> base(g_num_counters);
  g_base = base.data();

  // A profile from the start (the initialisation's coverage), then every kCheckpointNs: a
  // run killed from outside (a time bound's SIGKILL) keeps most of what it measured, and no
  // empty start-up file is left for llvm-profdata to refuse.
  const int64_t kCheckpointNs = 30 * int64_t{1000000000};
  bool written = WriteProfile(temp_name, final_name);
  int64_t last_write_ns = NowNs();
  size_t crashes = 0, timeouts = 0, unreadable = 0, ran = 0;
  std::vector<uint8_t> input;
  for (const std::string& file : files) {
    if (g_stop) break;
    if (!ReadFile(file, &input)) {
      fprintf(log, "coverage_main: cannot read %s: %s\n", file.c_str(), strerror(errno));
      unreadable++;
      continue;
    }
    std::string failure = RunInChild(input, timeout_s, rss_limit_mb);
    ran++;
    if (!failure.empty()) {
      if (failure.rfind("timeout", 0) == 0)
        timeouts++;
      else if (failure.rfind("crash", 0) == 0)
        crashes++;
      fprintf(log, "coverage_main: %s on %s\n", failure.c_str(), file.c_str());
      if (failure.rfind("fork", 0) == 0 || failure.rfind("waitpid", 0) == 0) {
        ok = false;
        break;
      }
    }
    if (NowNs() - last_write_ns > kCheckpointNs) {
      WriteProfile(temp_name, final_name);
      last_write_ns = NowNs();
    }
  }
  written = WriteProfile(temp_name, final_name);
  if (!written) {
    fprintf(log, "coverage_main: cannot write the profile %s\n", final_name);
    struct stat st;  // the runtime's empty file from start-up must not reach llvm-profdata
    if (stat(final_name, &st) == 0 && st.st_size == 0) unlink(final_name);
  }
  if (g_stop) fprintf(log, "coverage_main: stopped by a signal after %zu inputs\n", ran);
  fprintf(log, "coverage_main: %zu inputs, %zu crashes, %zu timeouts, %zu unreadable\n",
          files.size(), crashes, timeouts, unreadable);
  fflush(nullptr);
  // _exit: the profile runtime's atexit writer would write again.
  _exit(ok && written && !g_stop ? 0 : 1);
}
