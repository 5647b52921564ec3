// The worker process's start: RunWorkerMode maps the shared memory and the global coverage
// map the coordinator handed over (POLLEN_WORKER_FDS, POLLEN_WORKER_SHM), checks that both
// come from this version of Pollen, installs the crash handlers and the malloc limit, runs
// LLVMFuzzerInitialize, and serves requests (worker.h).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/runtime/crash_handler.h"
#include "engine/runtime/malloc_limit.h"
#include "engine/runtime/sancov_state.h"
#include "engine/runtime/worker.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace pollen::runtime {
namespace {

[[noreturn]] void Fatal(const char* what) {
  std::fprintf(stderr, "==%d== ERROR: pollen worker: %s\n", static_cast<int>(getpid()), what);
  _exit(70);
}

}  // namespace

int RunWorkerMode(TestOneInputFn test_one_input, int* argc, char*** argv) {
  int ctl_in = -1, ctl_out = -1, shm_fd = -1, cov_fd = -1;
  unsigned max_input = 0, max_features = 0;
  const char* fds = getenv(engine::kEnvWorkerFds);
  const char* sizes = getenv(engine::kEnvWorkerShmSize);
  if (!fds || std::sscanf(fds, "%d,%d,%d,%d", &ctl_in, &ctl_out, &shm_fd, &cov_fd) != 4 || !sizes ||
      std::sscanf(sizes, "%u,%u", &max_input, &max_features) != 2) {
    Fatal("bad worker environment: POLLEN_WORKER_FDS / POLLEN_WORKER_SHM");
  }
  auto layout = engine::WorkerShmLayout::For(max_input, max_features);
  void* base = mmap(nullptr, layout.total_size, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, 0);
  if (base == MAP_FAILED) Fatal("cannot map the worker's shared memory");
  engine::WorkerShmView shm(base, layout);
  if (shm.header()->magic != engine::WorkerShmHeader::kMagic ||
      shm.header()->version != engine::WorkerShmHeader::kVersion) {
    Fatal("shared memory of another pollen version");
  }
  void* cov_head =
      mmap(nullptr, sizeof(engine::GlobalCoverageHeader), PROT_READ, MAP_SHARED, cov_fd, 0);
  if (cov_head == MAP_FAILED) Fatal("cannot map the global coverage map");
  uint64_t capacity = static_cast<const engine::GlobalCoverageHeader*>(cov_head)->capacity;
  munmap(cov_head, sizeof(engine::GlobalCoverageHeader));
  void* cov =
      mmap(nullptr, engine::kGlobalCoverageDataOffset + capacity, PROT_READ, MAP_SHARED, cov_fd, 0);
  if (cov == MAP_FAILED) Fatal("cannot map the global coverage map");
  close(shm_fd);
  close(cov_fd);

  const char* value_profile = getenv(engine::kEnvValueProfile);
  if (value_profile != nullptr && std::strcmp(value_profile, "1") == 0) EnableValueProfile();
  if (const char* limit = getenv(engine::kEnvMallocLimitMb))
    InstallMallocLimit(std::strtoull(limit, nullptr, 10), 1);
  InstallCrashHandlers(shm.header());
  __atomic_store_n(&shm.header()->phase, static_cast<uint32_t>(engine::WorkerPhase::kInit),
                   __ATOMIC_RELAXED);
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(argc, argv);
  ClearAllCounters();  // start-up code is not an execution

  Worker worker(test_one_input, ctl_in, ctl_out, shm,
                static_cast<const uint8_t*>(cov) + engine::kGlobalCoverageDataOffset, capacity);
  return worker.Serve();
}

}  // namespace pollen::runtime
