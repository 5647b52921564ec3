// Ctrl-C and SIGTERM, turned into a flag and a readable descriptor the coordinator polls.
//
// The first signal asks for a clean stop (workers stopped, corpus flushed, a failure being
// minimized saved as it is); a second one ends the process at once with code 130.
// Process-wide by nature: a signal handler has no context.
#ifndef POLLEN_NODE_INTERRUPT_H_
#define POLLEN_NODE_INTERRUPT_H_

namespace pollen::node {

// Installs the handlers and ignores SIGPIPE (a dead worker's pipe must give EPIPE).
void InstallInterruptHandler();

bool Interrupted();

// Whether the first signal was SIGTERM: a stop asked for by a service manager (Kubernetes,
// podman stop, systemd), not by a person at a terminal. A run stopped this way drains as on
// Ctrl-C and ends with exit code 0 instead of 130 (docs/decisions.md).
bool Terminated();

// Becomes readable once interrupted; -1 before InstallInterruptHandler.
int InterruptFd();

}  // namespace pollen::node

#endif  // POLLEN_NODE_INTERRUPT_H_
