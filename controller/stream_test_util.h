// Helpers for the stream tests: an in-process controller with CURVE and a registered
// campaign, client options, corpus directories, and a raw peer that sends whatever frames a
// test wants (a hostile client).
#ifndef POLLEN_CONTROLLER_STREAM_TEST_UTIL_H_
#define POLLEN_CONTROLLER_STREAM_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "base/sha1.h"
#include "controller/client/controller_client.h"
#include "controller/client/controller_codec.h"
#include "controller/client/stream_client.h"
#include "controller/controller.h"
#include "controller/controller_test_util.h"
#include "net/socket_options.h"
#include "tests/test_util.h"
#include "transfer/directory_records.h"

namespace pollen::controller::testing {

inline constexpr int kStreamTimeoutMs = 20000;

// `count` files "f-000000", "f-000001", ... of distinct pseudo-random bytes whose sizes are
// in [min_size, max_size], in `dir` (created).
inline void WriteCorpusDir(const std::string& dir, size_t count, size_t min_size, size_t max_size,
                           uint32_t seed = 1) {
  std::filesystem::create_directories(dir);
  std::mt19937 rng(seed);
  for (size_t i = 0; i < count; i++) {
    char name[32];
    std::snprintf(name, sizeof(name), "f-%06zu", i);
    std::string data(min_size + rng() % (max_size - min_size + 1), '\0');
    for (auto& c : data) c = static_cast<char>(rng());
    std::snprintf(data.data(), data.size(), "%zu:", i);  // distinct even when tiny
    ::pollen::testing::WriteFile(dir + "/" + name, data);
  }
}

// SHA-1 in hex -> contents, of every regular file in `dir` (not dotfiles).
inline std::map<std::string, std::string> ContentsByHash(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name[0] == '.') continue;
    std::string data = ::pollen::testing::ReadFile(entry.path().string());
    out[base::Sha1Hex(reinterpret_cast<const uint8_t*>(data.data()), data.size())] =
        std::move(data);
  }
  return out;
}

inline size_t CountFiles(const std::string& dir) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string()[0] != '.') n++;
  }
  return n;
}

// A DirectorySource opener for PushStream.
inline PushSourceOpener DirectoryOpener(const std::string& dir,
                                        const transfer::StreamLimits& limits = {}) {
  return [dir, limits](
             const std::string& resume_after) -> Result<std::unique_ptr<transfer::RecordSource>> {
    auto source = transfer::DirectorySource::Open(dir, resume_after, limits);
    if (!source.ok()) return source.status();
    return std::unique_ptr<transfer::RecordSource>(std::move(source).value());
  };
}

// A client socket that sends raw frames, as a hostile or broken client would.
class RawPeer {
 public:
  RawPeer(const std::string& endpoint, const Keys& keys, int key = 0)
      : context_(1), dealer_(context_, zmq::socket_type::dealer) {
    net::SetSharedSocketOptions(dealer_, 1000, ControllerLimits().max_message_bytes);
    dealer_.set(zmq::sockopt::curve_serverkey, keys.setup.broker.public_key);
    dealer_.set(zmq::sockopt::curve_publickey, keys.setup.nodes[key].public_key);
    dealer_.set(zmq::sockopt::curve_secretkey, keys.setup.nodes[key].secret_key);
    dealer_.connect(endpoint);
  }

  void SendStream(const transfer::StreamMessage& message) {
    std::string frame;
    ControllerCodec::EncodeStream(0, message, &frame);
    dealer_.send(zmq::buffer(frame));
  }
  void SendRequest(uint64_t id, const Request& request) {
    std::vector<uint8_t> frame = ControllerCodec::EncodeRequest(id, request);
    dealer_.send(zmq::buffer(frame));
  }

  // The next reply within the time limit (nullopt if none came).
  std::optional<Reply> Receive(int timeout_ms = kStreamTimeoutMs) {
    zmq::pollitem_t item{dealer_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms));
    zmq::message_t frame;
    if (!dealer_.recv(frame, zmq::recv_flags::dontwait)) return std::nullopt;
    auto decoded = codec_.DecodeReply(frame.data(), frame.size());
    if (!std::holds_alternative<DecodedReply>(decoded)) return std::nullopt;
    DecodedReply& d = std::get<DecodedReply>(decoded);
    if (auto* s = std::get_if<StreamReply>(&d.reply)) {
      if (auto* chunk = std::get_if<transfer::StreamChunk>(&s->message)) {
        chunk->data.assign(d.chunk_data);
      }
    }
    return std::move(d.reply);
  }

  // The next stream message, skipping nothing: a test failure when something else comes.
  transfer::StreamMessage ReceiveStream(int timeout_ms = kStreamTimeoutMs) {
    std::optional<Reply> reply = Receive(timeout_ms);
    if (!reply || !std::holds_alternative<StreamReply>(*reply)) {
      ADD_FAILURE() << "no stream message came";
      return transfer::StreamError{0, "(none)"};
    }
    return std::get<StreamReply>(*reply).message;
  }

 private:
  zmq::context_t context_;
  zmq::socket_t dealer_;
  ControllerCodec codec_{ControllerLimits{}};
};

// A controller with CURVE and no periodic merges, a registered node client ("node-a", key 0)
// and the stream options of another authorised key (1): what every stream test starts from.
class StreamControllerTest : public ::testing::Test {
 protected:
  // Starts (or, after the members were reset, restarts) the controller on the same data
  // directory; `adjust` changes its options first.
  void Start(const std::function<void(ControllerOptions&)>& adjust = nullptr) {
    ControllerOptions options = keys_.Options(data_.path() + "/data");
    options.merge_every_ms = 0;
    if (adjust) adjust(options);
    controller_ = std::make_unique<RunningController>(StartController(options).value());
    node_ = keys_.Client((*controller_)->endpoint(), 0);
    client_.controller = (*controller_)->endpoint();
    client_.keys = keys_.setup.nodes[1];
    client_.controller_public_key = keys_.setup.broker.public_key;
    auto reg = node_->Call<RegisterReply>(MakeRegister("node-a"), kStreamTimeoutMs);
    ASSERT_TRUE(reg.ok()) << reg.status().message();
  }

  Keys keys_;
  TempDir data_;
  std::unique_ptr<RunningController> controller_;
  std::unique_ptr<ControllerClient> node_;
  ControllerClientOptions client_;
};

}  // namespace pollen::controller::testing

#endif  // POLLEN_CONTROLLER_STREAM_TEST_UTIL_H_
