#include "ops/ops_server.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>

namespace pollen::ops {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<OpsServer> Start(OpsEndpoints endpoints) {
  auto server = StartOpsServer("127.0.0.1:0", std::move(endpoints));
  EXPECT_TRUE(server.ok()) << server.status().message();
  return server.ok() ? std::move(server).value() : nullptr;
}

httplib::Client ClientOf(const OpsServer& server) {
  httplib::Client client("127.0.0.1", server.port());
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(5, 0);
  return client;
}

TEST(OpsServerTest, ServesProbesAndMetrics) {
  std::atomic<bool> ready{false};
  OpsEndpoints endpoints;
  endpoints.ready = [&] { return ready ? Probe{true, "ready"} : Probe{false, "stores opening"}; };
  endpoints.metrics = [](MetricSet& m) { m.Counter("pollen_test_things_total", "Things.", 42); };
  auto server = Start(endpoints);
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(server->address(), "127.0.0.1:" + std::to_string(server->port()));
  auto client = ClientOf(*server);

  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok\n");

  auto not_ready = client.Get("/readyz");
  ASSERT_TRUE(not_ready);
  EXPECT_EQ(not_ready->status, 503);
  EXPECT_EQ(not_ready->body, "stores opening\n");
  ready = true;
  auto is_ready = client.Get("/readyz");
  ASSERT_TRUE(is_ready);
  EXPECT_EQ(is_ready->status, 200);

  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_THAT(metrics->get_header_value("Content-Type"), HasSubstr("version=0.0.4"));
  EXPECT_THAT(metrics->body, HasSubstr("# TYPE pollen_test_things_total counter\n"));
  EXPECT_THAT(metrics->body, HasSubstr("\npollen_test_things_total 42\n"));
  // The process metrics come with every scrape.
  EXPECT_THAT(metrics->body, HasSubstr("\nprocess_resident_memory_bytes "));
  EXPECT_THAT(metrics->body, HasSubstr("\nprocess_cpu_seconds_total "));
}

TEST(OpsServerTest, AliveProbeFailsWith503AndItsReason) {
  OpsEndpoints endpoints;
  endpoints.alive = [] { return Probe{false, "the main loop has not turned for 90 s"}; };
  auto server = Start(endpoints);
  ASSERT_NE(server, nullptr);
  auto client = ClientOf(*server);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 503);
  EXPECT_EQ(health->body, "the main loop has not turned for 90 s\n");
}

TEST(OpsServerTest, UnknownPathsAndMethodsAreRefused) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  auto client = ClientOf(*server);
  auto missing = client.Get("/admin");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  auto post = client.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  auto del = client.Delete("/anything");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 404);
}

// Garbage on the socket, a request line far over any limit and a client that never finishes
// its request cost nothing lasting: the next probe is answered.
TEST(OpsServerTest, SurvivesGarbageAndHalfRequests) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  auto raw = [&](const std::string& bytes) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(server->port());
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
    return fd;
  };
  close(raw(std::string("\x00\xff\x13garbage\r\n\r\n", 15)));
  close(raw("GET /" + std::string(100000, 'a') + " HTTP/1.1\r\n\r\n"));
  int half = raw("GET /healthz HTTP/1.1\r\nHost: x\r\n");  // never ends its headers
  auto client = ClientOf(*server);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  close(half);
}

TEST(OpsServerTest, AddressInUseIsAnError) {
  auto first = Start({});
  ASSERT_NE(first, nullptr);
  auto second = StartOpsServer("127.0.0.1:" + std::to_string(first->port()), {});
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), HasSubstr("cannot listen for HTTP on 127.0.0.1:"));
}

TEST(OpsServerTest, StopsRightAfterStarting) {
  for (int i = 0; i < 20; ++i) {
    auto server = StartOpsServer("127.0.0.1:0", {});
    ASSERT_TRUE(server.ok());
  }  // each destructor returns: the accept loop was stopped
}

}  // namespace
}  // namespace pollen::ops
