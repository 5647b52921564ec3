#include "engine/runtime/crash_handler.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <typeinfo>

#include "base/signal_names.h"
#include "engine/runtime/sancov_state.h"

extern "C" {
void __sanitizer_print_stack_trace() __attribute__((weak));
void __asan_init() __attribute__((weak));
void __msan_init() __attribute__((weak));
}

namespace pollen::runtime {
namespace {

engine::WorkerShmHeader* g_shm = nullptr;

void WriteAll(const char* s, size_t n) {
  while (n > 0) {
    ssize_t w = write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void WriteLine(const char* fmt, const char* what) {
  char buf[512];
  int n = std::snprintf(buf, sizeof(buf), fmt, static_cast<int>(getpid()), what);
  if (n > 0)
    WriteAll(buf, static_cast<size_t>(n) < sizeof(buf) ? static_cast<size_t>(n) : sizeof(buf) - 1);
}

void OnFatalSignal(int sig, siginfo_t*, void*) {
  char what[64];
  const char* name = base::FatalSignalName(sig);
  std::snprintf(what, sizeof(what), "deadly signal SIG%s", name ? name : "UNKNOWN");
  WriteLine("==%d== ERROR: pollen: %s\n", what);
  PrintStack();
  signal(sig, SIG_DFL);
  raise(sig);
}

// The coordinator sends SIGUSR1 to a worker whose execution ran past the timeout: print
// where it is stuck, then go.
void OnTimeoutSignal(int) {
  WriteLine("==%d== ERROR: pollen: %s\n", "timeout: the execution ran past its time limit");
  PrintStack();
  _exit(77);
}

void OnTerminate() {
  const char* what = "unknown exception";
  const char* type = "";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      what = ex.what();
      type = typeid(ex).name();
    } catch (...) {
    }
  }
  char buf[384];
  std::snprintf(buf, sizeof(buf), "uncaught C++ exception %s: %s", type, what);
  WriteLine("==%d== ERROR: pollen: %s\n", buf);
  PrintStack();
  signal(SIGABRT, SIG_DFL);
  abort();
}

void OnExit() {
  if (!GetSancovState().in_target) return;
  if (g_shm != nullptr) {
    __atomic_store_n(&g_shm->exit_in_target, 1u, __ATOMIC_RELAXED);
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  WriteLine("==%d== ERROR: pollen: %s\n", "the target called exit()");
  PrintStack();
}

}  // namespace

bool SanitizerHandlesSignals() { return __asan_init != nullptr || __msan_init != nullptr; }

void PrintStack() {
  if (__sanitizer_print_stack_trace != nullptr) {
    __sanitizer_print_stack_trace();
    return;
  }
  void* frames[64];
  int n = backtrace(frames, 64);
  for (int i = 0; i < n; i++) {
    uintptr_t pc = reinterpret_cast<uintptr_t>(frames[i]);
    // Return addresses point after the call: step back one byte for symbolization.
    uintptr_t lookup = i > 0 ? pc - 1 : pc;
    Dl_info info{};
    char line[768];
    int len;
    if (dladdr(reinterpret_cast<void*>(lookup), &info) && info.dli_fname) {
      uintptr_t offset = lookup - reinterpret_cast<uintptr_t>(info.dli_fbase);
      if (info.dli_sname) {
        len = std::snprintf(line, sizeof(line), "    #%d 0x%lx in %s (%s+0x%lx)\n", i,
                            static_cast<unsigned long>(pc), info.dli_sname, info.dli_fname,
                            static_cast<unsigned long>(offset));
      } else {
        len = std::snprintf(line, sizeof(line), "    #%d 0x%lx (%s+0x%lx)\n", i,
                            static_cast<unsigned long>(pc), info.dli_fname,
                            static_cast<unsigned long>(offset));
      }
    } else {
      len = std::snprintf(line, sizeof(line), "    #%d 0x%lx\n", i, static_cast<unsigned long>(pc));
    }
    if (len > 0)
      WriteAll(line, static_cast<size_t>(len) < sizeof(line) ? static_cast<size_t>(len)
                                                             : sizeof(line) - 1);
  }
}

void InstallCrashHandlers(engine::WorkerShmHeader* shm) {
  g_shm = shm;
  // backtrace() loads libgcc_s on first use, which allocates: do it now, not in a handler.
  void* warm[2];
  backtrace(warm, 2);

  std::set_terminate(OnTerminate);
  std::atexit(OnExit);

  // An alternate stack, so that a stack overflow can still be reported.
  static char alt_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof(alt_stack);
  sigaltstack(&ss, nullptr);

  struct sigaction sa {};
  sa.sa_sigaction = OnFatalSignal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  bool sanitizer = SanitizerHandlesSignals();
  const int sanitizer_handles[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
  if (!sanitizer) {
    for (int sig : sanitizer_handles) sigaction(sig, &sa, nullptr);
  }
  // The sanitizers leave abort() and traps alone by default.
  sigaction(SIGABRT, &sa, nullptr);
  sigaction(SIGTRAP, &sa, nullptr);

  struct sigaction usr {};
  usr.sa_handler = OnTimeoutSignal;
  usr.sa_flags = SA_ONSTACK;
  sigemptyset(&usr.sa_mask);
  sigaction(SIGUSR1, &usr, nullptr);
}

}  // namespace pollen::runtime
