// ViewQueue: a question from another thread is answered by the thread that serves, a full
// queue and a closed one answer 503 at once, a question nobody serves 504 after its time.
#include "controller/view_queue.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <thread>
#include <vector>

namespace pollen::controller {
namespace {

ops::HttpRequest Path(const std::string& path) {
  ops::HttpRequest r;
  r.path = path;
  return r;
}

// Serves until `stop`, waiting on the wake descriptor as the controller's loop does.
void ServeUntil(ViewQueue& q, std::atomic<bool>& stop) {
  while (!stop.load()) {
    pollfd fd{q.wake_fd(), POLLIN, 0};
    if (poll(&fd, 1, 20) > 0) {
      q.Serve([](const ops::HttpRequest& r) {
        ops::HttpReply reply;
        reply.body = "answer to " + r.path;
        return reply;
      });
    }
  }
}

TEST(ViewQueueTest, QuestionsFromManyThreadsAreAnsweredByTheServingThread) {
  auto q = ViewQueue::Create().value();
  std::atomic<bool> stop{false};
  std::thread server([&] { ServeUntil(*q, stop); });
  std::vector<std::thread> askers;
  std::atomic<int> right{0};
  for (int i = 0; i < 8; i++) {
    askers.emplace_back([&, i] {
      for (int j = 0; j < 20; j++) {
        const std::string path = "/api/" + std::to_string(i) + "/" + std::to_string(j);
        ops::HttpReply reply = q->Ask(Path(path), 10000);
        if (reply.status == 200 && reply.body == "answer to " + path) right++;
      }
    });
  }
  for (std::thread& t : askers) t.join();
  stop = true;
  server.join();
  EXPECT_EQ(right.load(), 8 * 20);
}

TEST(ViewQueueTest, NobodyServingIsA504AndAFullQueueA503) {
  auto q = ViewQueue::Create().value();
  EXPECT_EQ(q->Ask(Path("/api/x"), 50).status, 504);
  // The one that timed out still waits; fill the rest from threads that wait long.
  std::vector<std::thread> waiting;
  for (size_t i = 1; i < ViewQueue::kMaxWaiting; i++) {
    waiting.emplace_back([&] { q->Ask(Path("/api/y"), 60000); });
  }
  // Until every one of them is queued, a question may still get in: poll for the 503.
  int status = 0;
  for (int tries = 0; tries < 1000 && status != 503; tries++)
    status = q->Ask(Path("/api/z"), 1).status;
  EXPECT_EQ(status, 503);
  q->Close();  // the waiting ones get their 503 and return
  for (std::thread& t : waiting) t.join();
  EXPECT_EQ(q->Ask(Path("/api/after"), 1000).status, 503);
}

}  // namespace
}  // namespace pollen::controller
