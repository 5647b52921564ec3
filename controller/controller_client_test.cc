// ControllerClient against a hand-driven ROUTER: replies are matched to requests by id, late
// and unreadable replies are dropped, and nothing is queued behind the caller's back.
#include "controller/client/controller_client.h"

#include <gtest/gtest.h>

#include <zmq.hpp>

#include "controller/client/controller_codec.h"
#include "controller/controller_test_util.h"

namespace pollen::controller {
namespace {

class FakeController {
 public:
  FakeController() : router_(context_, zmq::socket_type::router) {
    router_.set(zmq::sockopt::linger, 0);
    router_.set(zmq::sockopt::rcvtimeo, 10000);
    router_.bind("tcp://127.0.0.1:*");
    endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  }

  const std::string& endpoint() const { return endpoint_; }

  // Receives one request (false on timeout); keeps the sender for Reply.
  bool Receive(DecodedRequest* request) {
    zmq::message_t id, payload;
    if (!router_.recv(id) || !router_.recv(payload)) return false;
    peer_ = id.to_string();
    auto decoded = codec_.DecodeRequest(payload.data(), payload.size());
    if (!std::holds_alternative<DecodedRequest>(decoded)) return false;
    *request = std::get<DecodedRequest>(std::move(decoded));
    return true;
  }

  void SendRaw(const std::vector<uint8_t>& bytes) {
    router_.send(zmq::buffer(peer_), zmq::send_flags::sndmore);
    router_.send(zmq::buffer(bytes), zmq::send_flags::none);
  }

  void Reply(uint64_t request_id, const controller::Reply& reply) {
    SendRaw(ControllerCodec::EncodeReply(request_id, reply));
  }

 private:
  zmq::context_t context_{1};
  zmq::socket_t router_;
  std::string endpoint_;
  std::string peer_;
  ControllerCodec codec_{ControllerLimits{}};
};

std::unique_ptr<ControllerClient> PlainClient(const std::string& endpoint) {
  ControllerClientOptions options;
  options.controller = endpoint;
  return ConnectController(options).value();
}

TEST(ControllerClientTest, RepliesAreMatchedByIdAndLateOrUnreadableOnesDropped) {
  FakeController server;
  auto client = PlainClient(server.endpoint());
  // The first request gets no answer in time.
  Result<Reply> first = client->Request(ListCampaignsRequest{}, 300);
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.status().message().find("did not answer within 0.3 s"), std::string::npos)
      << first.status().message();
  // It was sent once the connection was up ("no connection" is not in the message).
  EXPECT_EQ(first.status().message().find("no connection"), std::string::npos);
  DecodedRequest late;
  ASSERT_TRUE(server.Receive(&late));
  EXPECT_TRUE(std::holds_alternative<ListCampaignsRequest>(late.request));

  // Answer the second request after a late answer to the first and some garbage.
  std::thread answer([&] {
    DecodedRequest second;
    ASSERT_TRUE(server.Receive(&second));
    EXPECT_NE(second.request_id, late.request_id);
    server.Reply(late.request_id, CampaignStateReply{"stale", true});
    server.SendRaw({1, 2, 3});
    server.Reply(second.request_id, CampaignStateReply{"json", true});
  });
  Result<CampaignStateReply> reply =
      client->Call<CampaignStateReply>(StopCampaignRequest{{"json", ""}}, 10000);
  answer.join();
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->name, "json");
}

TEST(ControllerClientTest, CallTurnsErrorRepliesAndOtherKindsIntoErrors) {
  FakeController server;
  auto client = PlainClient(server.endpoint());
  std::thread answer([&] {
    DecodedRequest request;
    ASSERT_TRUE(server.Receive(&request));
    server.Reply(request.request_id, ErrorReply{ErrorCode::kUnknownCampaign, "no campaign 'x'"});
    ASSERT_TRUE(server.Receive(&request));
    server.Reply(request.request_id, InputsReply{});
  });
  Result<CorpusInfoReply> error =
      client->Call<CorpusInfoReply>(CorpusInfoRequest{{"x", ""}}, 10000);
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().message(), "controller at " + server.endpoint() + ": no campaign 'x'");
  Result<CorpusInfoReply> other =
      client->Call<CorpusInfoReply>(CorpusInfoRequest{{"x", ""}}, 10000);
  answer.join();
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("another kind of reply"), std::string::npos);
}

TEST(ControllerClientTest, ARequestOverTheLimitIsRefusedBeforeSending) {
  ControllerClientOptions options;
  options.controller = "tcp://127.0.0.1:1";
  options.limits.max_message_bytes = 4096;
  auto client = ConnectController(options).value();
  CrashRequest crash{"n", "sig", "kind", std::vector<uint8_t>(8192, 1), "", false};
  Result<Reply> reply = client->Request(crash, 100);
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("over the message limit"), std::string::npos);
}

}  // namespace
}  // namespace pollen::controller
