// A webhook receiver for the tests of the nightly's notifications.
#ifndef POLLEN_TESTS_HTTP_RECEIVER_H_
#define POLLEN_TESTS_HTTP_RECEIVER_H_

#include <httplib.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pollen::testing {

// A local HTTP receiver for tests: answers each POST to /hook with the next status of
// `answers` (then 200), and keeps the bodies.
class Receiver {
 public:
  explicit Receiver(std::vector<int> answers) : answers_(std::move(answers)) {
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      bodies_.push_back(req.body);
      content_types_.push_back(req.get_header_value("Content-Type"));
      res.status = bodies_.size() <= answers_.size() ? answers_[bodies_.size() - 1] : 200;
    });
    // Bound and listening here: a POST before listen_after_bind waits in the backlog.
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the accept loop runs would be lost (and join would wait forever).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!server_.is_running() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  }
  ~Receiver() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  std::vector<std::string> bodies() {
    std::lock_guard<std::mutex> lock(mu_);
    return bodies_;
  }
  std::vector<std::string> content_types() {
    std::lock_guard<std::mutex> lock(mu_);
    return content_types_;
  }

 private:
  httplib::Server server_;
  std::vector<int> answers_;
  std::mutex mu_;
  std::vector<std::string> bodies_, content_types_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace pollen::testing

#endif  // POLLEN_TESTS_HTTP_RECEIVER_H_
