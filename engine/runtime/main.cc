// main() of every Pollen target.
//
// Started by the coordinator (POLLEN_WORKER_FDS set), the target serves as a worker.
// Started by hand, it behaves like a libFuzzer binary given files: it runs each file, or
// each file of each directory, once, so that `./target crash-…` reproduces a crash even
// without pollen at hand. Flags in libFuzzer's -name=value form are accepted and ignored.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/runtime/crash_handler.h"
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

int RunStandalone(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-') continue;  // libFuzzer-style flags: nothing to do here
    CollectFiles(argv[i], &files);
  }
  if (files.empty()) {
    std::fprintf(stderr,
                 "%s is a Pollen fuzz target.\n"
                 "  fuzz it:         pollen fuzz %s [CORPUS_DIR...]\n"
                 "  run inputs:      %s FILE_OR_DIR...\n",
                 argv[0], argv[0], argv[0]);
    return 1;
  }
  pollen::runtime::InstallCrashHandlers(nullptr);
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<uint8_t> data;
  for (const std::string& f : files) {
    if (!ReadFile(f, &data)) {
      std::fprintf(stderr, "ERROR: cannot read %s: %s\n", f.c_str(), std::strerror(errno));
      return 1;
    }
    std::fprintf(stderr, "Running: %s (%zu bytes)\n", f.c_str(), data.size());
    // A copy of exactly the input's size, so a sanitizer sees reads past its end.
    uint8_t* copy = new uint8_t[data.size() ? data.size() : 1];
    if (!data.empty()) std::memcpy(copy, data.data(), data.size());
    pollen::runtime::GetSancovState().in_target = true;
    LLVMFuzzerTestOneInput(copy, data.size());
    pollen::runtime::GetSancovState().in_target = false;
    delete[] copy;
    std::fprintf(stderr, "Executed %s\n", f.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv(pollen::engine::kEnvWorkerFds) != nullptr) {
    return pollen::runtime::RunWorkerMode(LLVMFuzzerTestOneInput, &argc, &argv);
  }
  return RunStandalone(argc, argv);
}
