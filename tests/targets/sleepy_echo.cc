// Test target: when an input starts with 'S' (and is at least 4 bytes), writes it to the
// file named by $POLLEN_TEST_ECHO (then $POLLEN_TEST_ECHO.pid with the pid) and sleeps, so
// that a test can kill the worker in the middle of that execution and compare the input
// the coordinator rebuilt with the one that really ran.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4 || data[0] != 'S') return 0;
  const char* path = std::getenv("POLLEN_TEST_ECHO");
  if (path == nullptr) return 0;
  std::string tmp = std::string(path) + ".tmp";
  if (FILE* f = std::fopen(tmp.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    std::rename(tmp.c_str(), path);
  }
  std::string pid_path = std::string(path) + ".pid";
  std::string pid_tmp = pid_path + ".tmp";
  if (FILE* f = std::fopen(pid_tmp.c_str(), "w")) {
    std::fprintf(f, "%d\n", static_cast<int>(getpid()));
    std::fclose(f);
    std::rename(pid_tmp.c_str(), pid_path.c_str());
  }
  sleep(60);
  return 0;
}
