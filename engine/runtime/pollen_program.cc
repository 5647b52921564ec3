#include "engine/runtime/pollen_program.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace pollen::runtime {

std::string SelfPath() {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "";
  return std::string(self, static_cast<size_t>(n));
}

void ExecPollen(const std::vector<std::string>& args, std::string* error) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const char* from_env = std::getenv("POLLEN");
  if (from_env != nullptr && *from_env != '\0') {
    execv(from_env, argv.data());
    *error = "cannot run $POLLEN (" + std::string(from_env) + "): " + std::strerror(errno);
    return;
  }
  std::string self = SelfPath();
  if (!self.empty()) {
    std::string beside = self.substr(0, self.rfind('/') + 1) + "pollen";
    if (access(beside.c_str(), X_OK) == 0) execv(beside.c_str(), argv.data());
  }
  execvp("pollen", argv.data());
  *error =
      "the `pollen` program is not on PATH nor beside this one. Install Pollen, or set "
      "POLLEN=/path/to/pollen.";
}

}  // namespace pollen::runtime
