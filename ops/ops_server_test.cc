#include "ops/ops_server.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>

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
    EXPECT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
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

// The routes a service adds: the longest prefix wins, the path and query arrive decoded, a
// handler's status, type and headers go out as given, and one that throws is a 500 the
// server survives.
TEST(OpsServerTest, RoutesAnswerWithTheLongestMatchingPrefix) {
  OpsEndpoints endpoints;
  endpoints.routes.push_back({"/", [](const HttpRequest& r) -> HttpReply {
                                HttpReply reply;
                                reply.content_type = "text/html";
                                reply.body = "page " + r.path;
                                return reply;
                              }});
  endpoints.routes.push_back({"/api/", [](const HttpRequest& r) -> HttpReply {
                                HttpReply reply;
                                auto page = r.query.find("page");
                                reply.body = "{\"path\":\"" + r.path + "\",\"page\":\"" +
                                             (page == r.query.end() ? "" : page->second) + "\"}";
                                reply.headers.push_back({"X-Test", "yes"});
                                return reply;
                              }});
  endpoints.routes.push_back(
      {"/api/fail", [](const HttpRequest&) -> HttpReply { throw std::runtime_error("a bug"); }});
  auto server = Start(endpoints);
  ASSERT_NE(server, nullptr);
  auto client = ClientOf(*server);
  auto page = client.Get("/campaigns/json");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->body, "page /campaigns/json");
  EXPECT_THAT(page->get_header_value("Content-Type"), HasSubstr("text/html"));
  auto api = client.Get("/api/crashes/x%20y?page=2");
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 200);
  EXPECT_EQ(api->body, "{\"path\":\"/api/crashes/x y\",\"page\":\"2\"}");
  EXPECT_EQ(api->get_header_value("X-Test"), "yes");
  auto failed = client.Get("/api/fail");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->status, 500);
  // The probes are still theirs, and still answer.
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->body, "ok\n");
  auto post = client.Post("/api/campaigns", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
}

// Hostile requests for a route get a 4xx before any handler runs.
TEST(OpsServerTest, HostileRouteRequestsAreRefusedBeforeTheHandler) {
  std::atomic<int> calls{0};
  OpsEndpoints endpoints;
  endpoints.routes.push_back({"/api/", [&](const HttpRequest&) -> HttpReply {
                                calls++;
                                return HttpReply{};
                              }});
  auto server = Start(endpoints);
  ASSERT_NE(server, nullptr);
  auto client = ClientOf(*server);
  auto status = [&](const std::string& path) {
    auto r = client.Get(path);
    return r ? r->status : -1;
  };
  EXPECT_EQ(status("/api/" + std::string(2000, 'a')), 414);
  EXPECT_EQ(status("/api/../etc/passwd"), 400);
  EXPECT_EQ(status("/api/%2e%2e/etc/passwd"), 400);
  EXPECT_EQ(status("/api/./x"), 400);
  std::string many = "/api/x?";
  for (int i = 0; i < 40; i++) many += "k" + std::to_string(i) + "=v&";
  EXPECT_EQ(status(many), 400);
  EXPECT_EQ(status("/api/x?page=" + std::string(1000, '9')), 400);
  EXPECT_EQ(status("/nothing-here"), 404);
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(status("/api/x?page=2"), 200);
  EXPECT_EQ(calls.load(), 1);
}

// With a token, the routes need it (header or cookie); the probes and /metrics never do.
TEST(OpsServerTest, ATokenGuardsTheRoutesButNotTheProbes) {
  OpsEndpoints endpoints;
  endpoints.token = "s3cret-token";
  endpoints.routes.push_back({"/api/", [](const HttpRequest&) { return HttpReply{}; }});
  endpoints.routes.push_back({"/", [](const HttpRequest&) { return HttpReply{}; }, false});
  auto server = Start(endpoints);
  ASSERT_NE(server, nullptr);
  auto client = ClientOf(*server);
  auto without = client.Get("/api/campaigns");
  ASSERT_TRUE(without);
  EXPECT_EQ(without->status, 401);
  EXPECT_EQ(without->get_header_value("WWW-Authenticate"), "Bearer");
  auto wrong = client.Get("/api/campaigns", {{"Authorization", "Bearer s3cret-tokeN"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto bearer = client.Get("/api/campaigns", {{"Authorization", "Bearer s3cret-token"}});
  ASSERT_TRUE(bearer);
  EXPECT_EQ(bearer->status, 200);
  auto cookie =
      client.Get("/api/campaigns", {{"Cookie", "theme=dark; pollen_token=s3cret%2Dtoken"}});
  ASSERT_TRUE(cookie);
  EXPECT_EQ(cookie->status, 200);
  // A route that needs no token (a page's own files) is served without one.
  auto page = client.Get("/index.html");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
}

// Without a token, a route that would need one is answered only for this machine's own
// names: another name pointed at 127.0.0.1 (DNS rebinding) gets 403.
TEST(OpsServerTest, WithoutATokenOnlyLoopbackHostNamesAreAnswered) {
  OpsEndpoints endpoints;
  endpoints.loopback_hosts_only = true;
  endpoints.routes.push_back({"/api/", [](const HttpRequest&) { return HttpReply{}; }});
  endpoints.routes.push_back({"/", [](const HttpRequest&) { return HttpReply{}; }, false});
  auto server = Start(endpoints);
  ASSERT_NE(server, nullptr);
  auto client = ClientOf(*server);
  auto own = client.Get("/api/campaigns");  // Host: 127.0.0.1:PORT
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 200);
  auto named = client.Get("/api/campaigns", {{"Host", "localhost:9200"}});
  ASSERT_TRUE(named);
  EXPECT_EQ(named->status, 200);
  auto rebound = client.Get("/api/campaigns", {{"Host", "evil.example:9200"}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  auto page = client.Get("/", {{"Host", "evil.example:9200"}});  // the page holds no data
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
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
