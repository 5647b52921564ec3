#include "node/worker_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "base/clock.h"

namespace pollen::node {
namespace {

// Programs that are not targets stand in for a worker: only the process matters here.
std::unique_ptr<WorkerProcess> StartProgram(const std::string& path,
                                            std::vector<std::string> args) {
  WorkerSpawnOptions options;
  options.target = path;
  options.args = std::move(args);
  options.max_input = 4096;
  options.max_features = 1024;
  auto started = WorkerProcess::Start(options);
  EXPECT_TRUE(started.ok()) << started.status().message();
  return started.ok() ? std::move(started).value() : nullptr;
}

TEST(WorkerProcessTest, WaitExitForSeesAProcessThatExitsOnItsOwn) {
  auto w = StartProgram("/bin/true", {});
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->WaitExitFor(10'000));
  EXPECT_FALSE(w->exited());  // not reaped: Kill() still reaches its process group
  w->Kill();
  const int status = w->WaitExit();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(WorkerProcessTest, WaitExitForGivesUpOnAProcessThatKeepsRunning) {
  auto w = StartProgram("/bin/sleep", {"60"});
  ASSERT_NE(w, nullptr);
  const uint64_t start_ms = base::MonotonicMs();
  EXPECT_FALSE(w->WaitExitFor(200));
  const uint64_t waited_ms = base::MonotonicMs() - start_ms;
  EXPECT_GE(waited_ms, 200u);
  EXPECT_LT(waited_ms, 10'000u);
  EXPECT_FALSE(w->exited());
  w->Kill();
  const int status = w->WaitExit();
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

}  // namespace
}  // namespace pollen::node
