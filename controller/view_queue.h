// Questions from other threads that only the controller's service thread may answer: the
// dashboard's JSON (docs/dashboard.md). An HTTP thread asks and waits, with a deadline; the
// service loop polls wake_fd() beside its socket and answers what waits between requests,
// so every answer sees one consistent state of the registries and stores, which stay the
// service thread's alone.
//
// Bounded: with kMaxWaiting questions waiting, another is answered 503 at once, so a slow
// page never holds up the nodes. A question whose asker stopped waiting (504) is still
// answered, and the answer dropped.
//
// Thread safety: Ask and Close from any thread; Serve from the service thread.
#ifndef POLLEN_CONTROLLER_VIEW_QUEUE_H_
#define POLLEN_CONTROLLER_VIEW_QUEUE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

#include "base/status.h"
#include "ops/ops_server.h"

namespace pollen::controller {

class ViewQueue {
 public:
  static constexpr size_t kMaxWaiting = 64;

  // Errors: no eventfd (the process is out of descriptors).
  static Result<std::unique_ptr<ViewQueue>> Create();
  ~ViewQueue();
  ViewQueue(const ViewQueue&) = delete;
  ViewQueue& operator=(const ViewQueue&) = delete;

  // The answer to `request`, or 503 (full, or closed) or 504 (no answer within timeout_ms).
  ops::HttpReply Ask(const ops::HttpRequest& request, uint64_t timeout_ms);

  // Readable while questions wait: poll it with the service's socket.
  int wake_fd() const { return wake_fd_; }

  // Answers every question waiting with `answer`, called on this thread.
  void Serve(const std::function<ops::HttpReply(const ops::HttpRequest&)>& answer);

  // Answers 503 to what waits and to every question from now on (the service is ending).
  void Close();

 private:
  struct Question {
    ops::HttpRequest request;
    ops::HttpReply reply;
    bool answered = false;
  };

  explicit ViewQueue(int wake_fd) : wake_fd_(wake_fd) {}

  std::mutex mu_;
  std::condition_variable answered_;
  std::deque<std::shared_ptr<Question>> waiting_;
  bool closed_ = false;
  const int wake_fd_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_VIEW_QUEUE_H_
