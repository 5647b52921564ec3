// libc's compare and search functions, which the Pollen runtime intercepts: the routine-log
// pass leaves their calls alone (the interceptors record them), the literal-dictionary pass
// takes their string arguments whatever they return.
#ifndef POLLEN_COMPILER_LIBC_COMPARES_H_
#define POLLEN_COMPILER_LIBC_COMPARES_H_

#include "llvm/ADT/StringRef.h"

namespace pollen::compiler {

inline bool IsLibcCompare(llvm::StringRef name) {
  static const char* const kNames[] = {"memcmp",  "bcmp",       "strcmp",
                                       "strncmp", "strcasecmp", "strncasecmp",
                                       "strstr",  "strcasestr", "memmem"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

}  // namespace pollen::compiler

#endif  // POLLEN_COMPILER_LIBC_COMPARES_H_
