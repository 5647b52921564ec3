#include "ops/http_address.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pollen::ops {
namespace {

using ::testing::HasSubstr;

TEST(HttpAddressTest, ParsesHostAndPort) {
  auto a = ParseHttpAddress("127.0.0.1:9100");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9100);
  auto any = ParseHttpAddress(":8080");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->host, "0.0.0.0");
  EXPECT_EQ(any->port, 8080);
  auto v6 = ParseHttpAddress("[::1]:0");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  auto named = ParseHttpAddress("pollen-broker.fuzzing.svc:9100");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->host, "pollen-broker.fuzzing.svc");
}

TEST(HttpAddressTest, RejectsBadAddressesWithTheReason) {
  for (const char* bad : {"", "9100", "host:", "host:65536", "host:12a", ":-1", "::1:80",
                          "ho st:80", "host:123456", "a/b:80"}) {
    auto a = ParseHttpAddress(bad);
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_THAT(a.status().message(), HasSubstr("bad HTTP address")) << bad;
    EXPECT_THAT(a.status().message(), HasSubstr("HOST:PORT")) << bad;
  }
}

}  // namespace
}  // namespace pollen::ops
