#include "node/interrupt.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

namespace pollen::node {
namespace {

volatile sig_atomic_t g_interrupts = 0;
volatile sig_atomic_t g_terminated = 0;  // the first signal was SIGTERM
int g_pipe[2] = {-1, -1};

void OnSignal(int signo) {
  if (g_interrupts == 0 && signo == SIGTERM) g_terminated = 1;
  g_interrupts = g_interrupts + 1;
  if (g_interrupts > 1) _exit(130);
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
