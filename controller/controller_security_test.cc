// What the controller does with peers it should not trust and the errors its clients show:
// garbage frames, other protocol versions, invalid names, unknown keys, no controller.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <zmq.hpp>

#include "controller/client/controller_client.h"
#include "controller/client/controller_codec.h"
#include "controller/controller.h"
#include "controller/controller_test_util.h"

namespace pollen::controller {
namespace {

using namespace ::pollen::controller::testing;  // NOLINT: test helpers

constexpr int kTimeoutMs = 10000;

class ControllerSecurityTest : public ::testing::Test {
 protected:
  void Start(ControllerOptions options) {
    controller_ = std::make_unique<RunningController>(StartController(options).value());
  }
  void Start() { Start(keys_.Options(data_.path())); }

  // The controller still answers an honest client.
  void ExpectServing() {
    auto client = keys_.Client((*controller_)->endpoint(), 1);
    Result<CampaignsReply> reply = client->Call<CampaignsReply>(ListCampaignsRequest{}, kTimeoutMs);
    EXPECT_TRUE(reply.ok()) << reply.status().message();
  }

  Keys keys_;
  TempDir data_;
  std::unique_ptr<RunningController> controller_;
};

TEST_F(ControllerSecurityTest, GarbageAndOtherVersionsGetErrorRepliesAndTheControllerServesOn) {
  Start();
  // An authorised peer that sends whatever it likes, over a raw DEALER.
  zmq::context_t context(1);
  zmq::socket_t rogue(context, zmq::socket_type::dealer);
  rogue.set(zmq::sockopt::linger, 0);
  rogue.set(zmq::sockopt::rcvtimeo, kTimeoutMs);
  rogue.set(zmq::sockopt::curve_serverkey, keys_.setup.broker.public_key);
  rogue.set(zmq::sockopt::curve_publickey, keys_.setup.nodes[0].public_key);
  rogue.set(zmq::sockopt::curve_secretkey, keys_.setup.nodes[0].secret_key);
  rogue.connect((*controller_)->endpoint());
  ControllerCodec codec{ControllerLimits{}};
  // Sends the frames and returns the error of the reply.
  auto exchange = [&](std::vector<std::vector<uint8_t>> frames) -> DecodeError {
    for (size_t i = 0; i < frames.size(); i++) {
      rogue.send(zmq::buffer(frames[i]),
                 i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    }
    zmq::message_t reply;
    if (!rogue.recv(reply)) {
      ADD_FAILURE() << "no reply";
      return {};
    }
    auto decoded = codec.DecodeReply(reply.data(), reply.size());
    if (!std::holds_alternative<DecodedReply>(decoded)) {
      ADD_FAILURE() << "undecodable reply";
      return {};
    }
    DecodedReply& r = std::get<DecodedReply>(decoded);
    auto* error = std::get_if<ErrorReply>(&r.reply);
    if (error == nullptr) {
      ADD_FAILURE() << "not an error reply";
      return {};
    }
    return DecodeError{error->code, error->message, r.request_id};
  };

  EXPECT_EQ(exchange({{1, 2, 3}}).code, ErrorCode::kMalformed);
  EXPECT_EQ(exchange({std::vector<uint8_t>(4096, 0xAB)}).code, ErrorCode::kMalformed);
  std::vector<uint8_t> valid = ControllerCodec::EncodeRequest(
      41, NewInputsRequest{"n", {MakeEntry("some input", {1, 2, 3})}});
  EXPECT_EQ(exchange({std::vector<uint8_t>(valid.begin(), valid.begin() + valid.size() / 2)}).code,
            ErrorCode::kMalformed);
  EXPECT_EQ(exchange({valid, valid}).code, ErrorCode::kMalformed);  // two frames
  std::vector<uint8_t> wrong_version = ControllerCodec::EncodeRequest(42, ListCampaignsRequest{});
  uint32_t version = 99;
  std::memcpy(&wrong_version[16], &version, sizeof(version));
  DecodeError v = exchange({wrong_version});
  EXPECT_EQ(v.code, ErrorCode::kWrongVersion);
  EXPECT_EQ(v.request_id, 42u);
  EXPECT_EQ(exchange({ControllerCodec::EncodeReply(43, InputsReply{})}).code,
            ErrorCode::kNotARequest);
  std::vector<uint8_t> bad_name =
      ControllerCodec::EncodeRequest(44, RegisterRequest{"n", "../../etc", "t", "b", "", "", 1});
  DecodeError name = exchange({bad_name});
  EXPECT_EQ(name.code, ErrorCode::kInvalidName);
  EXPECT_EQ(name.request_id, 44u);

  ExpectServing();
  ControllerStatus status = (*controller_)->status();
  EXPECT_EQ(status.ErrorsOf(ErrorCode::kMalformed), 4u);
  EXPECT_EQ(status.ErrorsOf(ErrorCode::kWrongVersion), 1u);
  EXPECT_EQ(status.ErrorsOf(ErrorCode::kNotARequest), 1u);
  EXPECT_EQ(status.ErrorsOf(ErrorCode::kInvalidName), 1u);
  EXPECT_NE(FormatStatus(status).find("malformed 4"), std::string::npos) << FormatStatus(status);
}

TEST_F(ControllerSecurityTest, InvalidCampaignNamesAreRejectedAndCreateNothing) {
  Start();
  auto client = keys_.Client((*controller_)->endpoint());
  for (const char* name : {"..", "../x", "a/b", ".hidden", "with space", ""}) {
    Result<Reply> reply =
        client->Request(RegisterRequest{"n", name, "t", "b", "", "", 1}, kTimeoutMs);
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    ASSERT_TRUE(std::holds_alternative<ErrorReply>(reply.value())) << name;
    EXPECT_EQ(std::get<ErrorReply>(reply.value()).code, ErrorCode::kInvalidName) << name;
  }
  Result<Reply> reply = client->Request(CorpusInfoRequest{{"ok", "../b"}}, kTimeoutMs);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(std::get<ErrorReply>(reply.value()).code, ErrorCode::kInvalidName);
  EXPECT_TRUE(std::filesystem::is_empty(data_.path() + "/campaigns"));
  Result<CampaignsReply> list = client->Call<CampaignsReply>(ListCampaignsRequest{}, kTimeoutMs);
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->campaigns.empty());
}

TEST_F(ControllerSecurityTest, AClientWithAnUnauthorisedKeyIsToldItWasRefused) {
  Start();
  auto intruder = keys_.ClientWith((*controller_)->endpoint(), net::GenerateKeyPair().value());
  Result<Reply> reply = intruder->Request(ListCampaignsRequest{}, kTimeoutMs);
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("refused this key"), std::string::npos)
      << reply.status().message();
  EXPECT_NE(reply.status().message().find((*controller_)->endpoint()), std::string::npos);
  EXPECT_TRUE(intruder->refused());
  // Fails at once from then on.
  EXPECT_FALSE(intruder->Request(ListCampaignsRequest{}, kTimeoutMs).ok());
  EXPECT_TRUE(WaitUntil([&] { return (*controller_)->status().handshakes_refused > 0; }));
  ExpectServing();
}

TEST_F(ControllerSecurityTest, AnUnreachableControllerIsATimeoutThatSaysSo) {
  // A port that was just free: nobody listens there.
  std::string endpoint;
  {
    zmq::context_t context(1);
    zmq::socket_t probe(context, zmq::socket_type::router);
    probe.set(zmq::sockopt::linger, 0);
    probe.bind("tcp://127.0.0.1:*");
    endpoint = probe.get(zmq::sockopt::last_endpoint);
  }
  auto client = keys_.Client(endpoint);
  const uint64_t start = base::MonotonicMs();
  Result<Reply> reply = client->Request(ListCampaignsRequest{}, 300);
  const uint64_t took = base::MonotonicMs() - start;
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(
      reply.status().message().find("controller at " + endpoint + " did not answer within 0.3 s"),
      std::string::npos)
      << reply.status().message();
  EXPECT_NE(reply.status().message().find("no connection was made"), std::string::npos);
  EXPECT_GE(took, 300u);
  EXPECT_LT(took, 5000u);
}

TEST_F(ControllerSecurityTest, AWrongControllerKeyGetsNoAnswer) {
  Start();
  ControllerClientOptions options;
  options.controller = (*controller_)->endpoint();
  options.keys = keys_.setup.nodes[0];
  options.controller_public_key = net::GenerateKeyPair()->public_key;
  auto client = ConnectController(options).value();
  Result<Reply> reply = client->Request(ListCampaignsRequest{}, 500);
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("did not answer"), std::string::npos);
  EXPECT_NE(reply.status().message().find("public key"), std::string::npos);
}

TEST_F(ControllerSecurityTest, PlainTextMustBeAskedForAndDataDirectoriesAreChecked) {
  ControllerOptions options;
  options.listen = "tcp://127.0.0.1:*";
  options.data_dir = data_.path() + "/data";
  auto refused = StartController(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--insecure-plaintext"), std::string::npos);
  options.allow_plaintext = true;
  {
    auto plain = StartController(options);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    // A second controller on the same data directory.
    options.listen = "tcp://127.0.0.1:*";
    auto second = StartController(options);
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.status().message().find("locked"), std::string::npos)
        << second.status().message();
  }
  // A directory that holds somebody else's files.
  ::pollen::testing::WriteFile(data_.path() + "/notes.txt", "mine");
  options.data_dir = data_.path();
  auto foreign = StartController(options);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("not a controller's data directory"), std::string::npos)
      << foreign.status().message();
  options.data_dir = data_.path() + "/notes.txt";
  EXPECT_FALSE(StartController(options).ok());
  options.data_dir = data_.path() + "/data";
  options.listen = "tcp://127.0.0.1:99999";
  EXPECT_FALSE(StartController(options).ok());
}

TEST_F(ControllerSecurityTest, FlagsBecomeOptionsWithKeysRead) {
  ControllerFlags flags;
  EXPECT_FALSE(ControllerOptionsFromFlags(flags).ok());  // no --listen
  flags.listen = "tcp://*:7200";
  flags.data = data_.path();
  Result<ControllerOptions> neither = ControllerOptionsFromFlags(flags);
  ASSERT_FALSE(neither.ok());
  EXPECT_NE(neither.status().message().find("--keys"), std::string::npos);
  // The keys directory as `pollen keygen` makes it: controller.key, authorized/.
  ASSERT_TRUE(net::WriteKeyPair(keys_.setup.dir + "/controller", keys_.setup.broker, false).ok());
  flags.keys = keys_.setup.dir;
  flags.lost_after = 20;
  Result<ControllerOptions> options = ControllerOptionsFromFlags(flags);
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_EQ(options->secret_key, keys_.setup.broker.secret_key);
  EXPECT_EQ(options->authorized_dir, keys_.setup.dir + "/authorized");
  EXPECT_EQ(options->lost_after_ms, 20000u);
  EXPECT_EQ(options->merge_every_ms, 600000u);
  flags.insecure_plaintext = true;
  EXPECT_FALSE(ControllerOptionsFromFlags(flags).ok());  // both
  flags.insecure_plaintext = false;
  flags.keys = data_.path();  // no controller.key there
  Result<ControllerOptions> no_key = ControllerOptionsFromFlags(flags);
  ASSERT_FALSE(no_key.ok());
  EXPECT_NE(no_key.status().message().find("pollen keygen"), std::string::npos);

  auto client_options = ClientOptionsFromKeyFiles("tcp://c:7200", keys_.setup.dir + "/controller",
                                                  keys_.setup.dir + "/controller.pub");
  ASSERT_TRUE(client_options.ok()) << client_options.status().message();
  EXPECT_EQ(client_options->controller_public_key, keys_.setup.broker.public_key);
  EXPECT_FALSE(
      ClientOptionsFromKeyFiles("tcp://c:7200", "/nonexistent/key", "/nonexistent.pub").ok());
}

}  // namespace
}  // namespace pollen::controller
