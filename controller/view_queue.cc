#include "controller/view_queue.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>

namespace pollen::controller {
namespace {

ops::HttpReply Text(int status, const std::string& text) {
  ops::HttpReply reply;
  reply.status = status;
  reply.content_type = "text/plain; charset=utf-8";
  reply.body = text + "\n";
  return reply;
}

}  // namespace

Result<std::unique_ptr<ViewQueue>> ViewQueue::Create() {
  const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return Status::Error(std::string("cannot make an eventfd: ") + std::strerror(errno));
  return std::unique_ptr<ViewQueue>(new ViewQueue(fd));
}

ViewQueue::~ViewQueue() {
  Close();
  close(wake_fd_);
}

ops::HttpReply ViewQueue::Ask(const ops::HttpRequest& request, uint64_t timeout_ms) {
  auto question = std::make_shared<Question>();
  question->request = request;
  std::unique_lock lock(mu_);
  if (closed_) return Text(503, "the controller is stopping");
  if (waiting_.size() >= kMaxWaiting) return Text(503, "the controller is busy: try again");
  waiting_.push_back(question);
  const uint64_t one = 1;
  // A full counter (never, in practice) still leaves the descriptor readable.
  (void)!write(wake_fd_, &one, sizeof(one));
  if (!answered_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                          [&] { return question->answered; })) {
    return Text(504, "the controller did not answer in time");
  }
  return std::move(question->reply);
}

void ViewQueue::Serve(const std::function<ops::HttpReply(const ops::HttpRequest&)>& answer) {
  uint64_t count = 0;
  (void)!read(wake_fd_, &count, sizeof(count));  // EAGAIN when nothing waits: fine
  std::deque<std::shared_ptr<Question>> questions;
  {
    std::lock_guard lock(mu_);
    questions.swap(waiting_);
  }
  for (const std::shared_ptr<Question>& q : questions) {
    ops::HttpReply reply = answer(q->request);
    std::lock_guard lock(mu_);
    q->reply = std::move(reply);
    q->answered = true;
  }
  if (!questions.empty()) answered_.notify_all();
}

void ViewQueue::Close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  for (const std::shared_ptr<Question>& q : waiting_) {
    q->reply = Text(503, "the controller is stopping");
    q->answered = true;
  }
  waiting_.clear();
  answered_.notify_all();
}

}  // namespace pollen::controller
