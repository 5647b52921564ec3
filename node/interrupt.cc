#include "node/interrupt.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace pollen::node {
namespace {

// Lock-free atomics: safe in a signal handler, and read by other threads (the HTTP probes).
std::atomic<int> g_interrupts{0};
std::atomic<int> g_terminated{0};  // the first signal was SIGTERM
static_assert(std::atomic<int>::is_always_lock_free);
int g_pipe[2] = {-1, -1};

void OnSignal(int signo) {
  if (g_interrupts.load() == 0 && signo == SIGTERM) g_terminated.store(1);
  if (g_interrupts.fetch_add(1) + 1 > 1) _exit(130);
  char c = 1;
  ssize_t ignored = write(g_pipe[1], &c, 1);
  (void)ignored;
}

}  // namespace

void InstallInterruptHandler() {
  if (g_pipe[0] < 0 && pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

bool Interrupted() { return g_interrupts > 0; }

bool Terminated() { return g_terminated != 0; }

int InterruptFd() { return g_pipe[0]; }

}  // namespace pollen::node
