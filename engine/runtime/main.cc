// main() of every Pollen target.
//
// Started by the coordinator (POLLEN_WORKER_FDS set), the target serves as a worker.
// Started by hand, it behaves like a libFuzzer binary:
//   - given only files, it runs each once (-runs=N: N times) in this process, so that
//     `./target crash-…` reproduces a crash even without pollen at hand;
//   - given directories, or no path at all, or -merge=1, -minimize_crash=1 or -help=1, it
//     execs `pollen libfuzzer SELF ARGS...` (cli/libfuzzer_command.cc), which fuzzes with
//     libFuzzer's flags and output. `pollen` is $POLLEN, else the one beside this binary,
//     else the one on PATH. A target cannot carry the coordinator itself: it needs RocksDB
//     and ZeroMQ, which a target does not link (docs/decisions.md, issue 17).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/runtime/crash_handler.h"
#include "engine/runtime/malloc_limit.h"
#include "engine/runtime/pollen_program.h"
#include "engine/runtime/sancov_state.h"
#include "engine/runtime/worker.h"
#include "engine/shm_layout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

// Found by `pollen` in a target file to tell a Pollen target from anything else.
extern "C" __attribute__((used, visibility("default"))) const char pollen_runtime_marker[] =
    "POLLEN_RUNTIME_MARKER_V1";

namespace {

bool ReadFile(const std::string& path, std::vector<uint8_t>* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  out->clear();
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out->insert(out->end(), buf, buf + n);
  bool ok = !std::ferror(f);
  std::fclose(f);
  return ok;
}

void CollectFiles(const std::string& path, std::vector<std::string>* files) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    files->push_back(path);  // reported as unreadable when run
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    files->push_back(path);
    return;
  }
  DIR* dir = opendir(path.c_str());
  if (!dir) {
    files->push_back(path);
    return;
  }
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::string child = path + "/" + e->d_name;
    if (stat(child.c_str(), &st) == 0 && S_ISREG(st.st_mode)) files->push_back(child);
  }
  closedir(dir);
}

bool IsDirectory(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

// A flag -name=VALUE whose value is not 0.
bool FlagOn(const char* arg, const char* name) {
  size_t n = std::strlen(name);
  return arg[0] == '-' && std::strncmp(arg + 1, name, n) == 0 && arg[n + 1] == '=' &&
         std::strcmp(arg + n + 2, "0") != 0;
}

// Whether libFuzzer would fuzz (or merge, minimize, print its help) rather than run the
// arguments as files: the rule of LibFuzzerRun (cli/libfuzzer_flags.h).
bool AsksForPollen(int argc, char** argv) {
  if (std::getenv("POLLEN_LIBFUZZER_RUN") != nullptr) return false;  // pollen sent us the files
  bool any_path = false;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (a[0] == '-' && a[1] != '\0') {
      if (FlagOn(a, "ignore_remaining_args")) break;
      if (FlagOn(a, "help") || FlagOn(a, "merge") || FlagOn(a, "set_cover_merge") ||
          FlagOn(a, "minimize_crash")) {
        return true;
      }
      continue;
    }
    any_path = true;
    if (IsDirectory(a)) return true;
  }
  return !any_path;
}

// Replaces this process with `pollen libfuzzer SELF ARGS...`; returns only on failure.
int HandToPollen(int argc, char** argv) {
  std::string self = pollen::runtime::SelfPath();
  if (self.empty()) {
    std::fprintf(stderr, "ERROR: cannot find this program's path: %s\n", std::strerror(errno));
    return 1;
  }
  std::vector<std::string> args{"pollen", "libfuzzer", self};
  for (int i = 1; i < argc; i++) args.push_back(argv[i]);
  std::string error;
  pollen::runtime::ExecPollen(args, &error);
  std::fprintf(stderr,
               "ERROR: %s is a Pollen fuzz target; it fuzzes through the `pollen` program: %s\n"
               "To run inputs once without pollen: %s FILE...\n",
               argv[0], error.c_str(), argv[0]);
  return 1;
}

// The value of libFuzzer's flag -NAME=VALUE (the last one given), or `fallback`.
long FlagValue(int argc, char** argv, const char* name, long fallback) {
  size_t n = std::strlen(name);
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && std::strncmp(argv[i] + 1, name, n) == 0 && argv[i][n + 1] == '=') {
      fallback = std::strtol(argv[i] + n + 2, nullptr, 10);
    }
  }
  return fallback;
}

// libFuzzer's -timeout for files: an input running longer ends the process (exit code
// -timeout_exitcode, 70), as a timeout during fuzzing would.
long g_timeout_s = 0;
int g_timeout_exit = 70;
void OnAlarm(int) {
  char line[96];
  int n = std::snprintf(line, sizeof(line), "==%d== ERROR: pollen: timeout after %ld seconds\n",
                        static_cast<int>(getpid()), g_timeout_s);
  if (n > 0) {
    ssize_t ignored = write(2, line, static_cast<size_t>(n));
    (void)ignored;
  }
  pollen::runtime::PrintStack();
  _exit(g_timeout_exit);
}

int RunStandalone(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1] != '\0') {
      if (FlagOn(argv[i], "ignore_remaining_args")) break;
      continue;  // libFuzzer-style flags: nothing to do here
    }
    CollectFiles(argv[i], &files);
  }
  // -runs=N: each input N times (libFuzzer's reproduction mode). The limits as libFuzzer's
  // defaults: a 1200-s timeout, one allocation above the rss limit (2048 MiB) an oom (71).
  const long runs = std::max(1L, FlagValue(argc, argv, "runs", 1));
  g_timeout_s = FlagValue(argc, argv, "timeout", 1200);
  g_timeout_exit = static_cast<int>(FlagValue(argc, argv, "timeout_exitcode", 70));
  long malloc_limit = FlagValue(argc, argv, "malloc_limit_mb", 0);
  if (malloc_limit <= 0) malloc_limit = FlagValue(argc, argv, "rss_limit_mb", 2048);
  if (malloc_limit > 0)
    pollen::runtime::InstallMallocLimit(static_cast<uint64_t>(malloc_limit), 71);
  if (g_timeout_s > 0) signal(SIGALRM, OnAlarm);
  pollen::runtime::InstallCrashHandlers(nullptr);
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::fprintf(stderr, "INFO: Pollen runtime: running %zu inputs %ld time(s) each.\n", files.size(),
               runs);
  std::vector<uint8_t> data;
  for (const std::string& f : files) {
    if (!ReadFile(f, &data)) {
      std::fprintf(stderr, "ERROR: cannot read %s: %s\n", f.c_str(), std::strerror(errno));
      return 1;
    }
    std::fprintf(stderr, "Running: %s (%zu bytes)\n", f.c_str(), data.size());
    auto start = std::chrono::steady_clock::now();
    if (g_timeout_s > 0) alarm(static_cast<unsigned>(g_timeout_s));
    for (long r = 0; r < runs; r++) {
      // A copy of exactly the input's size, so a sanitizer sees reads past its end.
      uint8_t* copy = new uint8_t[data.size() ? data.size() : 1];
      if (!data.empty()) std::memcpy(copy, data.data(), data.size());
      pollen::runtime::GetSancovState().in_target = true;
      LLVMFuzzerTestOneInput(copy, data.size());
      pollen::runtime::GetSancovState().in_target = false;
      delete[] copy;
    }
    alarm(0);
    long ms = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::steady_clock::now() - start)
                                    .count());
    std::fprintf(stderr, "Executed %s in %ld ms\n", f.c_str(), ms);
  }
  std::fprintf(stderr,
               "***\n*** NOTE: fuzzing was not performed, you have only\n***       executed the "
               "target code on a "
               "fixed set of inputs.\n***\n");
  return 0;
}

}  // namespace

// Weak: a program with a main of its own (a typed fuzz test, fuzztest/fuzz_test_main.cc, or a
// harness that brings one) keeps it and calls RunWorkerMode itself.
__attribute__((weak)) int main(int argc, char** argv) {
  if (std::getenv(pollen::engine::kEnvWorkerFds) != nullptr) {
    return pollen::runtime::RunWorkerMode(LLVMFuzzerTestOneInput, &argc, &argv);
  }
  if (AsksForPollen(argc, argv)) return HandToPollen(argc, argv);
  return RunStandalone(argc, argv);
}
