// main() of a program with typed fuzz tests (fuzztest/fuzz_test.h), in place of the runtime's
// (whose main is weak). Three ways to start:
//   - as a worker of `pollen fuzz` (POLLEN_WORKER_FDS set): runs the test POLLEN_FUZZ names
//     on each input; a failed assertion aborts, so the worker's death is the failure;
//   - with --fuzz=Suite.Name (or POLLEN_FUZZ=Suite.Name): fuzzes that test through `pollen
//     fuzz` (fuzztest/fuzz_driver.h), --fuzz_time=S seconds (0: until a failure or Ctrl-C)
//     with --fuzz_workers=N workers (default 1);
//   - otherwise: GoogleTest, every fuzz test running its seeds and its corpus files.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/runtime/worker.h"
#include "engine/shm_layout.h"
#include "fuzztest/fuzz_driver.h"
#include "fuzztest/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace pollen::fuzztest {

// In a worker, a failed EXPECT or ASSERT ends the process, as a crash would. (In this
// namespace, so that a failure's signature is made of the test's frames: node/failure.cc.)
class AbortOnFailure : public ::testing::EmptyTestEventListener {
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "%s:%d: Failure\n%s\n", result.file_name() ? result.file_name() : "?",
                 result.line_number(), result.summary());
    std::abort();
  }
};

}  // namespace pollen::fuzztest

namespace {

// The value of --NAME=VALUE in argv, removed from it; `fallback` when absent.
std::string TakeFlag(int* argc, char** argv, const char* name, std::string fallback) {
  std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < *argc; i++) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) != 0) continue;
    fallback = argv[i] + prefix.size();
    for (int j = i; j + 1 < *argc; j++) argv[j] = argv[j + 1];
    --*argc;
    --i;
  }
  return fallback;
}

bool ParseCount(const std::string& text, unsigned long* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9)
    return false;
  *out = std::stoul(text);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using pollen::fuzztest::CurrentFuzzTest;
  using pollen::fuzztest::FindFuzzTest;
  const char* env_name = std::getenv("POLLEN_FUZZ");
  if (std::getenv(pollen::engine::kEnvWorkerFds) != nullptr) {
    CurrentFuzzTest() = env_name != nullptr ? FindFuzzTest(env_name) : nullptr;
    if (CurrentFuzzTest() == nullptr) {
      std::fprintf(stderr, "ERROR: POLLEN_FUZZ names no fuzz test of this program\n");
      return 2;
    }
    ::testing::UnitTest::GetInstance()->listeners().Append(new pollen::fuzztest::AbortOnFailure);
    return pollen::runtime::RunWorkerMode(LLVMFuzzerTestOneInput, &argc, &argv);
  }
  std::string name = TakeFlag(&argc, argv, "fuzz", env_name != nullptr ? env_name : "");
  std::string time = TakeFlag(&argc, argv, "fuzz_time", "0");
  std::string workers = TakeFlag(&argc, argv, "fuzz_workers", "1");
  if (!name.empty()) {
    unsigned long seconds = 0, worker_count = 0;
    if (!ParseCount(time, &seconds) || !ParseCount(workers, &worker_count) || worker_count == 0) {
      std::fprintf(stderr,
                   "ERROR: --fuzz_time takes seconds and --fuzz_workers a count of at least 1\n");
      return 2;
    }
    return pollen::fuzztest::FuzzOneTest(name, seconds, static_cast<unsigned>(worker_count));
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
