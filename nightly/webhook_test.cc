#include "nightly/webhook.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/http_receiver.h"

namespace pollen::nightly {
namespace {

using ::testing::HasSubstr;

using testing::Receiver;

TEST(WebhookTest, AServerErrorIsRetriedAndTheBodyArrivesAsJson) {
  Receiver receiver({503});
  Status posted = PostWebhook({receiver.url(), 5, 3}, R"({"event":"fixed"})");
  ASSERT_TRUE(posted.ok()) << posted.message();
  EXPECT_EQ(receiver.bodies(),
            (std::vector<std::string>{R"({"event":"fixed"})", R"({"event":"fixed"})"}));
  EXPECT_EQ(receiver.content_types()[1], "application/json");
}

TEST(WebhookTest, AClientErrorIsNotRetriedAndIsReported) {
  Receiver receiver({404, 404, 404});
  Status posted = PostWebhook({receiver.url(), 5, 3}, "{}");
  ASSERT_FALSE(posted.ok());
  EXPECT_THAT(posted.message(), HasSubstr("answered HTTP 404"));
  EXPECT_EQ(receiver.bodies().size(), 1u);
}

TEST(WebhookTest, AllAttemptsFailingIsAnErrorNamingTheLastFailure) {
  Receiver receiver({500, 500});
  Status posted = PostWebhook({receiver.url(), 5, 2}, "{}");
  ASSERT_FALSE(posted.ok());
  EXPECT_THAT(posted.message(), HasSubstr("answered HTTP 500"));
  EXPECT_EQ(receiver.bodies().size(), 2u);

  // Nobody listening: no answer, after every attempt.
  std::string closed;
  {
    Receiver gone({});
    closed = gone.url();
  }
  Status unreachable = PostWebhook({closed, 1, 1}, "{}");
  ASSERT_FALSE(unreachable.ok());
  EXPECT_THAT(unreachable.message(), HasSubstr("no answer"));
}

TEST(WebhookTest, UrlsAreChecked) {
  EXPECT_TRUE(CheckWebhookUrl("https://hooks.example.com/services/T/B/x").ok());
  EXPECT_TRUE(CheckWebhookUrl("http://10.0.0.1:8080").ok());
  EXPECT_FALSE(CheckWebhookUrl("hooks.example.com/x").ok());
  EXPECT_FALSE(CheckWebhookUrl("file:///etc/passwd").ok());
  EXPECT_FALSE(CheckWebhookUrl("http:///path").ok());
  EXPECT_FALSE(CheckWebhookUrl("http://host/a b").ok());
  EXPECT_TRUE(CheckWebhookUrl("http://host:8080/x").ok());
  EXPECT_FALSE(CheckWebhookUrl("https://host:99999999999/").ok());
  EXPECT_FALSE(CheckWebhookUrl("https://host:0/").ok());
  EXPECT_FALSE(CheckWebhookUrl("https://host:/").ok());
  EXPECT_FALSE(CheckWebhookUrl("https://host:8o/").ok());
}

}  // namespace
}  // namespace pollen::nightly
