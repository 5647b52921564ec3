// A worker killed with SIGKILL in the middle of an execution loses nothing: the coordinator
// rebuilds, from shared memory, exactly the input that was running, and saves it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Waits for a file to appear: bounded polling of a condition, not a sleep standing in for it.
bool WaitForFile(const std::string& path, int timeout_s) {
  timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (!Exists(path)) {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > timeout_s) return false;
    usleep(20000);
  }
  return true;
}

TEST(WorkerKillTest, KilledWorkersInputIsRebuiltExactly) {
  std::string dir = MakeTempDir();
  std::string echo = dir + "/echo";
  Background fuzz({PollenBin(), "fuzz", TestTarget("sleepy_echo"), "--workers=1", "--seed=3",
                   "--timeout=300", "--workdir=" + dir + "/work"},
                  {"POLLEN_TEST_ECHO=" + echo});
  ASSERT_TRUE(WaitForFile(echo + ".pid", 300)) << fuzz.Wait(5).output;
  pid_t worker = static_cast<pid_t>(std::stol(ReadFile(echo + ".pid")));
  ASSERT_GT(worker, 0);
  ASSERT_EQ(kill(worker, SIGKILL), 0);
  CommandResult result = fuzz.Wait(120);
  ASSERT_FALSE(result.timed_out) << result.output;
  EXPECT_EQ(result.exit_code, 1) << result.output;
  std::vector<std::string> artifacts = ArtifactInputs(dir + "/work/crashes", "crash");
  ASSERT_EQ(artifacts.size(), 1u) << result.output;
  EXPECT_THAT(ReadFile(artifacts[0] + ".txt"), ::testing::HasSubstr("kind: KILL"));
  EXPECT_EQ(ReadFile(artifacts[0]), ReadFile(echo))
      << "the rebuilt input differs from the one that ran";
}

}  // namespace
}  // namespace pollen::testing
