// Short names of the fatal signals ("SEGV" for SIGSEGV), shared by the runtime's reports
// and the coordinator's failure kinds so that both say the same.
#ifndef POLLEN_BASE_SIGNAL_NAMES_H_
#define POLLEN_BASE_SIGNAL_NAMES_H_

#include <signal.h>

namespace pollen::base {

// nullptr for a signal that is not one of the fatal ones.
inline const char* FatalSignalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SEGV";
    case SIGBUS:
      return "BUS";
    case SIGILL:
      return "ILL";
    case SIGFPE:
      return "FPE";
    case SIGABRT:
      return "ABRT";
    case SIGTRAP:
      return "TRAP";
    case SIGKILL:
      return "KILL";
    default:
      return nullptr;
  }
}

}  // namespace pollen::base

#endif  // POLLEN_BASE_SIGNAL_NAMES_H_
