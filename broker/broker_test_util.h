// Helpers for the broker tests: messages, keys, a broker on its own thread, nodes to poll.
#ifndef POLLEN_BROKER_BROKER_TEST_UTIL_H_
#define POLLEN_BROKER_BROKER_TEST_UTIL_H_

#include <sys/stat.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/sha1.h"
#include "broker/broker.h"
#include "broker/client/broker_client.h"
#include "broker/client/cluster_message.h"
#include "net/curve_keys.h"
#include "tests/test_util.h"

namespace pollen::broker::testing {

inline Campaign TestCampaign(const std::string& build_id = "build-1") {
  return {"json_fuzzer", build_id};
}

inline NewInput MakeInput(const std::string& text, std::vector<uint32_t> features = {8, 17, 4096}) {
  NewInput in;
  in.bytes.assign(text.begin(), text.end());
  in.hash = base::Sha1(in.bytes.data(), in.bytes.size());
  in.features = std::move(features);
  return in;
}

inline ClusterMessage MakeMessage(MessageBody body = MakeInput("hello"),
                                  const Campaign& campaign = TestCampaign()) {
  return ClusterMessage{{campaign, "node-a", 42, 7, ""}, std::move(body)};
}

// Keys for a CURVE broker and `nodes` authorised nodes, in a fresh directory laid out as
// `pollen broker --keys` expects: broker.key, broker.pub, authorized/node-N.pub.
struct CurveSetup {
  std::string dir;
  net::CurveKeyPair broker;
  std::vector<net::CurveKeyPair> nodes;

  static CurveSetup Make(int nodes) {
    CurveSetup s;
    s.dir = ::pollen::testing::MakeTempDir();
    s.broker = net::GenerateKeyPair().value();
    if (!net::WriteKeyPair(s.dir + "/broker", s.broker, false).ok()) std::abort();
    ::mkdir((s.dir + "/authorized").c_str(), 0755);
    for (int i = 0; i < nodes; i++) {
      s.nodes.push_back(net::GenerateKeyPair().value());
      std::string prefix = s.dir + "/authorized/node-" + std::to_string(i);
      if (!net::WriteKeyPair(prefix, s.nodes.back(), false).ok()) std::abort();
    }
    return s;
  }

  BrokerOptions Options(const std::string& listen = "tcp://127.0.0.1:*") const {
    BrokerOptions options;
    options.listen = listen;
    options.secret_key = broker.secret_key;
    options.authorized_dir = dir + "/authorized";
    return options;
  }
};

inline BrokerOptions PlaintextOptions(const std::string& listen = "tcp://127.0.0.1:*") {
  BrokerOptions options;
  options.listen = listen;
  options.allow_plaintext = true;
  return options;
}

// Options of a client for `node_id`; CURVE when `keys` has a secret key.
inline ClientOptions NodeOptions(const std::string& endpoint, const std::string& node_id,
                                 const Campaign& campaign = TestCampaign(),
                                 const net::CurveKeyPair& keys = {},
                                 const std::string& broker_public_key = "") {
  ClientOptions options;
  options.broker = endpoint;
  options.node_id = node_id;
  options.campaign = campaign;
  options.keys = keys;
  options.broker_public_key = broker_public_key;
  return options;
}

// A broker running Run() on its own thread until destroyed.
class RunningBroker {
 public:
  explicit RunningBroker(std::unique_ptr<Broker> broker)
      : broker_(std::move(broker)), thread_([this] { broker_->Run(); }) {}
  ~RunningBroker() {
    broker_->Stop();
    thread_.join();
  }
  Broker& operator*() { return *broker_; }
  Broker* operator->() { return broker_.get(); }

 private:
  std::unique_ptr<Broker> broker_;
  std::thread thread_;
};

// A client and everything it received.
struct TestNode {
  explicit TestNode(const ClientOptions& options) : client(ConnectBroker(options).value()) {}

  std::unique_ptr<BrokerClient> client;
  std::vector<ClusterMessage> inbox;

  size_t Count(MessageKind kind) const {
    size_t n = 0;
    for (const auto& m : inbox) n += KindOf(m) == kind;
    return n;
  }
  // Whether an input with these bytes arrived.
  size_t CountInput(const std::string& text) const {
    size_t n = 0;
    for (const auto& m : inbox) {
      if (const auto* in = std::get_if<NewInput>(&m.body)) {
        n += std::string(in->bytes.begin(), in->bytes.end()) == text;
      }
    }
    return n;
  }
};

// Polls every node until done() holds (true) or timeout_ms passes (false).
inline bool PollUntil(const std::vector<TestNode*>& nodes, const std::function<bool()>& done,
                      int timeout_ms = 10000) {
  uint64_t deadline = base::MonotonicMs() + static_cast<uint64_t>(timeout_ms);
  while (true) {
    for (TestNode* node : nodes) node->client->Poll(nodes.size() > 1 ? 1 : 5, &node->inbox);
    if (done()) return true;
    if (base::MonotonicMs() > deadline) return false;
  }
}

// Waits until the broker's status satisfies `done` while polling the nodes (so they keep
// sending heartbeats and following their connection).
inline bool WaitForBroker(Broker& broker, const std::vector<TestNode*>& nodes,
                          const std::function<bool(const BrokerStatus&)>& done,
                          int timeout_ms = 10000) {
  return PollUntil(
      nodes, [&] { return done(broker.status()); }, timeout_ms);
}

}  // namespace pollen::broker::testing

#endif  // POLLEN_BROKER_BROKER_TEST_UTIL_H_
