// Helpers for the controller tests: temporary directories that clean up after themselves,
// inputs with features, a controller on its own thread, and clients.
#ifndef POLLEN_CONTROLLER_CONTROLLER_TEST_UTIL_H_
#define POLLEN_CONTROLLER_CONTROLLER_TEST_UTIL_H_

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/sha1.h"
#include "broker/broker_test_util.h"
#include "controller/client/controller_client.h"
#include "controller/client/controller_message.h"
#include "controller/controller.h"
#include "tests/test_util.h"
#include "transfer/transfer_test_util.h"

namespace pollen::controller::testing {

// A fresh directory, removed with everything in it when the object goes (transfer's).
using ::pollen::transfer::testing::TempDir;

inline InputEntry MakeEntry(const std::string& text, std::vector<uint32_t> features) {
  InputEntry e;
  e.bytes.assign(text.begin(), text.end());
  e.hash = base::Sha1(e.bytes.data(), e.bytes.size());
  e.features = std::move(features);
  return e;
}

inline RegisterRequest MakeRegister(const std::string& node_id,
                                    const std::string& campaign = "json",
                                    const std::string& build_id = "0123456789abcdef") {
  return RegisterRequest{node_id,           campaign, "json_fuzzer", build_id, "-max_len=4096",
                         "host-" + node_id, 4};
}

// Polls `done` until it holds (true) or timeout_ms passes (false); `between` runs before
// each check (e.g. heartbeats that keep a node alive).
inline bool WaitUntil(const std::function<bool()>& done, int timeout_ms = 10000,
                      const std::function<void()>& between = nullptr) {
  const uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(timeout_ms);
  while (true) {
    if (between) between();
    if (done()) return true;
    if (base::MonotonicMs() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a polling interval
  }
}

// A controller running Run() on its own thread until destroyed.
class RunningController {
 public:
  explicit RunningController(std::unique_ptr<Controller> controller)
      : controller_(std::move(controller)), thread_([this] { controller_->Run(); }) {}
  ~RunningController() {
    controller_->Stop();
    thread_.join();
  }
  Controller* operator->() { return controller_.get(); }

 private:
  std::unique_ptr<Controller> controller_;
  std::thread thread_;
};

// CURVE keys as `pollen controller --keys` expects them, made by the broker tests' helper:
// its "broker" pair serves as the controller's, authorized/node-N.pub as the clients'.
struct Keys {
  broker::testing::CurveSetup setup = broker::testing::CurveSetup::Make(3);

  ~Keys() {
    std::error_code ec;
    std::filesystem::remove_all(setup.dir, ec);
  }

  ControllerOptions Options(const std::string& data_dir,
                            const std::string& listen = "tcp://127.0.0.1:*") const {
    ControllerOptions options;
    options.listen = listen;
    options.data_dir = data_dir;
    options.secret_key = setup.broker.secret_key;
    options.authorized_dir = setup.dir + "/authorized";
    return options;
  }

  // A client with authorised key `n`.
  std::unique_ptr<ControllerClient> Client(const std::string& endpoint, int n = 0) const {
    return ClientWith(endpoint, setup.nodes[n]);
  }

  std::unique_ptr<ControllerClient> ClientWith(const std::string& endpoint,
                                               const net::CurveKeyPair& keys) const {
    ControllerClientOptions options;
    options.controller = endpoint;
    options.keys = keys;
    options.controller_public_key = setup.broker.public_key;
    return ConnectController(options).value();
  }
};

}  // namespace pollen::controller::testing

#endif  // POLLEN_CONTROLLER_CONTROLLER_TEST_UTIL_H_
