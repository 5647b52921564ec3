#include "net/zmq_status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pollen::net {
namespace {

using ::testing::HasSubstr;

TEST(ZmqStatusTest, ErrnosAreClassedByWhatACallerCanDo) {
  EXPECT_EQ(ZmqCode(EAGAIN), StatusCode::kOverloaded);
  EXPECT_EQ(ZmqCode(EINTR), StatusCode::kInterrupted);
  EXPECT_EQ(ZmqCode(ETERM), StatusCode::kInterrupted);
  EXPECT_EQ(ZmqCode(EHOSTUNREACH), StatusCode::kUnavailable);
  EXPECT_EQ(ZmqCode(EADDRINUSE), StatusCode::kUnavailable);
  EXPECT_EQ(ZmqCode(EPROTONOSUPPORT), StatusCode::kInvalid);
  EXPECT_EQ(ZmqCode(ENOMEM), StatusCode::kFailed);
}

TEST(ZmqStatusTest, AMalformedAddressIsInvalidAndShowsTheForms) {
  zmq::context_t context;
  zmq::socket_t socket(context, zmq::socket_type::router);
  Status s = Bind(socket, "tcpx://nowhere", 7100);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_THAT(s.message(), HasSubstr("cannot listen on tcpx://nowhere: "));
  EXPECT_THAT(s.message(), HasSubstr("tcp://*:7100"));
}

TEST(ZmqStatusTest, APortInUseIsUnavailableWithoutTheAddressHint) {
  zmq::context_t context;
  zmq::socket_t first(context, zmq::socket_type::router);
  ASSERT_TRUE(Bind(first, "tcp://127.0.0.1:*", 7100).ok());
  std::string endpoint = first.get(zmq::sockopt::last_endpoint);
  zmq::socket_t second(context, zmq::socket_type::router);
  Status s = Bind(second, endpoint, 7100);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.message();
  EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("an address looks like")));
}

TEST(ZmqStatusTest, ZmqCallTurnsAThrowIntoItsStatus) {
  zmq::context_t context;
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  Status s = ZmqCall("connecting", [&] { socket.connect("nonsense"); });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_THAT(s.message(), HasSubstr("connecting: "));
  EXPECT_TRUE(ZmqCall("nothing", [] {}).ok());
}

TEST(StatusCodeTest, AnErrorIsNeverOk) {
  EXPECT_EQ(Status::Ok().code(), StatusCode::kOk);
  EXPECT_EQ(Status::Error("x").code(), StatusCode::kFailed);
  Status s = Status::Error(StatusCode::kOk, "x");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailed);
}

}  // namespace
}  // namespace pollen::net
