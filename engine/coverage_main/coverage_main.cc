// main() for the coverage builds of bench/real (clang -fprofile-instr-generate -fcoverage-mapping).
//
//   LLVM_PROFILE_FILE='DIR/cov-%p.profraw' ./cov [-timeout=S] [-rss_limit_mb=N]
//                                               [-close_fd_mask=M] FILE_OR_DIR...
//
// Runs every regular, non-hidden file of each directory (not recursive; AFL's queue/.state
// is skipped that way), and each file named, through LLVMFuzzerTestOneInput, in name order,
// so that a crash or a hang loses no coverage:
//
// - Inputs run in a forked child, one child for as many inputs as it gets through. Before
//   each input the child records the input's index in memory shared with the parent; after
//   each input it writes its whole profile (the counters are cumulative) to a temporary file
//   and renames it over its own .profraw. A child that dies therefore leaves a complete
//   profile of every input it finished, and never a truncated .profraw.
// - A crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) or a hang (SIGALRM after
//   -timeout seconds) makes the child write its profile once more in the signal handler,
//   which adds the partial coverage of the failing input, then die. If that write itself
//   fails or hangs, only the temporary file is damaged; the last good .profraw stays. The
//   parent kills a child whose input has run 5 s past the timeout.
// - A harness that calls exit() gets its profile written by an atexit handler.
// - The parent then starts a new child at the input after the one that failed.
//
// Each child writes its own file: %p in LLVM_PROFILE_FILE is replaced by the child's pid (by
// this program, not by the profile runtime, which expands %p once at start-up; %% is a
// literal %; other specifiers are refused). Unset, LLVM_PROFILE_FILE defaults to
// default-%p.profraw. The parent itself writes no profile. Merge with
//   llvm-profdata-14 merge -sparse DIR/*.profraw -o cov.profdata
//
// libFuzzer-style flags: -timeout=S (default 25, as FuzzBench), -rss_limit_mb=N (address-space
// limit of a child, default 2560, 0: none), -close_fd_mask=M (1: stdout, 2: stderr of the
// harness to /dev/null, default 0); other -flags are ignored. Prints a summary on stderr;
// exits 0 unless an argument could not be read or a child could not be started.
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
// clang's profile runtime (libclang_rt.profile), linked by -fprofile-instr-generate.
__attribute__((weak)) int __llvm_profile_write_file(void);
__attribute__((weak)) void __llvm_profile_set_filename(const char* name);
}

namespace {

struct Shared {                 // parent <-> child, in a MAP_SHARED page
  volatile int64_t current;     // index of the input running, -1 between inputs
  volatile int64_t done;        // inputs finished (and their profile written)
  volatile int64_t started_ns;  // CLOCK_MONOTONIC when `current` started
  volatile int32_t timed_out;   // the child's SIGALRM fired
};

Shared* g_shared = nullptr;
char g_final[4096];  // this child's .profraw
char g_temp[4096];   // written first, then renamed to g_final
std::string g_pattern;

int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Expands %p (and %%) of the LLVM_PROFILE_FILE pattern for this pid. Async-signal-safe.
bool Expand(const char* pattern, long pid, char* out, size_t cap) {
  char pidbuf[32];
  int n = 0;
  long p = pid;
  char rev[32];
  do { rev[n++] = char('0' + p % 10); p /= 10; } while (p > 0 && n < 31);
  for (int i = 0; i < n; i++) pidbuf[i] = rev[n - 1 - i];
  pidbuf[n] = 0;
  size_t o = 0;
  for (const char* c = pattern; *c; c++) {
    const char* add = nullptr;
    char one[2] = {*c, 0};
    if (*c == '%') {
      c++;
      if (*c == 'p') add = pidbuf;
      else if (*c == '%') add = "%";
      else return false;
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

// Writes the cumulative profile to g_temp, then renames it to g_final.
void SaveProfile() {
  if (__llvm_profile_write_file() == 0) rename(g_temp, g_final);
}

void OnFatalSignal(int sig) {
  if (sig == SIGALRM) g_shared->timed_out = 1;
  SaveProfile();
  if (sig == SIGALRM) _exit(70);
  signal(sig, SIG_DFL);
  raise(sig);
  _exit(128 + sig);
}

void OnExit() {  // the harness called exit()
  SaveProfile();
  _exit(0);
}

[[noreturn]] void Child(const std::vector<std::string>& files, size_t first, int timeout_s,
                        long rss_limit_mb, int close_fd_mask, int* argc, char*** argv) {
  if (!Expand(g_pattern.c_str(), long(getpid()), g_final, sizeof g_final) ||
      snprintf(g_temp, sizeof g_temp, "%s.tmp", g_final) >= int(sizeof g_temp)) {
    fprintf(stderr, "coverage_main: bad LLVM_PROFILE_FILE pattern\n");
    _exit(71);
  }
  __llvm_profile_set_filename(g_temp);  // literal name: the runtime expands nothing more
  if (rss_limit_mb > 0) {
    rlimit rl;
    rl.rlim_cur = rl.rlim_max = rlim_t(rss_limit_mb) << 20;
    setrlimit(RLIMIT_AS, &rl);
  }
  if (close_fd_mask) {
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      if (close_fd_mask & 1) dup2(devnull, 1);
      if (close_fd_mask & 2) dup2(devnull, 2);
    }
  }
  static char altstack[1 << 20];
  stack_t ss{};
  ss.ss_sp = altstack;
  ss.ss_size = sizeof altstack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_handler = OnFatalSignal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGALRM})
    sigaction(sig, &sa, nullptr);
  atexit(OnExit);

  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(argc, argv);
  std::vector<uint8_t> buf;
  for (size_t i = first; i < files.size(); i++) {
    buf.clear();
    if (FILE* f = fopen(files[i].c_str(), "rb")) {
      uint8_t chunk[65536];
      size_t n;
      while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf.insert(buf.end(), chunk, chunk + n);
      fclose(f);
    } else {
      fprintf(stderr, "coverage_main: cannot read %s: %s\n", files[i].c_str(), strerror(errno));
    }
    // Like libFuzzer: the harness gets a heap copy of exactly `size` bytes.
    uint8_t* data = new uint8_t[buf.size() ? buf.size() : 1];
    if (!buf.empty()) memcpy(data, buf.data(), buf.size());
    g_shared->started_ns = NowNs();
    g_shared->current = int64_t(i);
    alarm(unsigned(timeout_s));
    LLVMFuzzerTestOneInput(data, buf.size());
    alarm(0);
    g_shared->current = -1;
    delete[] data;
    SaveProfile();
    g_shared->done = int64_t(i + 1);
  }
  _exit(0);
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

}  // namespace

int main(int argc, char** argv) {
  if (!__llvm_profile_write_file || !__llvm_profile_set_filename) {
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
      if (!strncmp(a, "-timeout=", 9)) timeout_s = std::max(1, atoi(a + 9));
      else if (!strncmp(a, "-rss_limit_mb=", 14)) rss_limit_mb = atol(a + 14);
      else if (!strncmp(a, "-close_fd_mask=", 15)) close_fd_mask = atoi(a + 15);
      continue;  // other libFuzzer flags: ignored
    }
    ok = Collect(a, &files) && ok;
  }
  const char* env = getenv("LLVM_PROFILE_FILE");
  g_pattern = env && *env ? env : "default-%p.profraw";
  char probe[4096];
  if (!Expand(g_pattern.c_str(), 1, probe, sizeof probe)) {
    fprintf(stderr, "coverage_main: LLVM_PROFILE_FILE=%s: only %%p and %%%% are supported\n",
            g_pattern.c_str());
    _exit(2);
  }
  if (g_pattern.find("%p") == std::string::npos)
    fprintf(stderr, "coverage_main: warning: LLVM_PROFILE_FILE has no %%p: each child "
                    "overwrites the previous one's profile\n");
  // The profile runtime creates (truncates) its file for this process's pid at start-up;
  // the parent runs no input, so remove that empty file.
  char own[4096];
  if (Expand(g_pattern.c_str(), long(getpid()), own, sizeof own)) {
    struct stat st;
    if (stat(own, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) unlink(own);
  }
  // Create the profile's directory.
  std::string dir = g_pattern.substr(0, g_pattern.rfind('/') == std::string::npos ? 0 : g_pattern.rfind('/'));
  for (size_t pos = 1; !dir.empty() && pos != std::string::npos;) {
    pos = dir.find('/', pos);
    mkdir(dir.substr(0, pos).c_str(), 0777);
    if (pos != std::string::npos) pos++;
  }

  void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) { perror("coverage_main: mmap"); _exit(2); }
  g_shared = static_cast<Shared*>(mem);

  size_t next = 0, crashes = 0, timeouts = 0, children = 0;
  const int64_t kill_after_ns = (int64_t(timeout_s) + 5) * 1000000000;
  while (next < files.size()) {
    g_shared->current = -1;
    g_shared->done = int64_t(next);
    g_shared->timed_out = 0;
    fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) { perror("coverage_main: fork"); _exit(2); }
    if (pid == 0) Child(files, next, timeout_s, rss_limit_mb, close_fd_mask, &argc, &argv);
    children++;
    int status = 0;
    bool killed = false;
    for (;;) {
      pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid) break;
      if (r < 0 && errno != EINTR) { perror("coverage_main: waitpid"); _exit(2); }
      int64_t cur = g_shared->current;
      if (!killed && cur >= 0 && NowNs() - g_shared->started_ns > kill_after_ns) {
        kill(pid, SIGKILL);
        killed = true;
      }
      usleep(2000);
    }
    int64_t done = g_shared->done;
    if (size_t(done) >= files.size()) break;
    // The child stopped at input `done` (crash, hang, exit(), or killed).
    const char* what = "crash";
    if (g_shared->timed_out || killed) { what = "timeout"; timeouts++; }
    else if (WIFEXITED(status)) what = "exit";
    else crashes++;
    char how[64];
    if (WIFSIGNALED(status)) snprintf(how, sizeof how, "signal %d", WTERMSIG(status));
    else snprintf(how, sizeof how, "exit code %d", WEXITSTATUS(status));
    fprintf(stderr, "coverage_main: %s (%s) on %s\n", what, how, files[size_t(done)].c_str());
    next = size_t(done) + 1;
  }
  fprintf(stderr, "coverage_main: %zu inputs, %zu crashes, %zu timeouts, %zu children\n",
          files.size(), crashes, timeouts, children);
  fflush(nullptr);
  _exit(ok ? 0 : 1);  // _exit: the parent ran no input and writes no profile
}
