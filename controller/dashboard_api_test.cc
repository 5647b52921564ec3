// The dashboard's API through Controller::AskView, against a controller in process with two
// nodes and a crash: the JSON of each path, the reproducer's bytes, and 4xx for what is not
// a question it answers. (The HTTP layer's own checks: ops/ops_server_test.cc.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "controller/client/controller_client.h"
#include "controller/controller.h"
#include "controller/controller_test_util.h"

namespace pollen::controller {
namespace {

using namespace ::pollen::controller::testing;  // NOLINT: test helpers

constexpr int kTimeoutMs = 10000;

class DashboardApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ControllerOptions options = keys_.Options(data_.path());
    options.sample_every_ms = 1000;
    controller_ = std::make_unique<RunningController>(StartController(options).value());
    node_a_ = keys_.Client((*controller_)->endpoint(), 0);
    node_b_ = keys_.Client((*controller_)->endpoint(), 1);
    ASSERT_TRUE(node_a_->Call<RegisterReply>(MakeRegister("node-a"), kTimeoutMs).ok());
    ASSERT_TRUE(node_b_->Call<RegisterReply>(MakeRegister("node-b"), kTimeoutMs).ok());
    ASSERT_TRUE(
        node_a_
            ->Call<HeartbeatReply>(
                HeartbeatRequest{"node-a", {1000, 50000, 40, 120, 30, 1, 64 << 20}}, kTimeoutMs)
            .ok());
    const std::string input = "[[[1";
    CrashRequest crash{"node-a",
                       kSignature,
                       "heap-buffer-overflow",
                       std::vector<uint8_t>(input.begin(), input.end()),
                       "==1==ERROR: report",
                       true};
    ASSERT_TRUE(node_a_->Call<CrashReply>(crash, kTimeoutMs).ok());
  }

  ops::HttpReply Ask(const std::string& path, std::multimap<std::string, std::string> query = {}) {
    ops::HttpRequest request;
    request.path = path;
    request.query = std::move(query);
    return (*controller_)->AskView(request);
  }

  nlohmann::json AskJson(const std::string& path) {
    ops::HttpReply reply = Ask(path);
    EXPECT_EQ(reply.status, 200) << path << ": " << reply.body;
    EXPECT_EQ(reply.content_type, "application/json");
    return nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  }

  static constexpr char kSignature[] = "0123456789abcdef";
  Keys keys_;
  TempDir data_;
  std::unique_ptr<RunningController> controller_;
  std::unique_ptr<ControllerClient> node_a_, node_b_;
};

TEST_F(DashboardApiTest, CampaignsListEveryCampaignWithItsFigures) {
  nlohmann::json j = AskJson("/api/campaigns");
  ASSERT_EQ(j["campaigns"].size(), 1u);
  EXPECT_EQ(j["campaigns"][0]["name"], "json");
  EXPECT_EQ(j["campaigns"][0]["target"], "json_fuzzer");
  ASSERT_EQ(j["figures"].size(), 1u);
  EXPECT_EQ(j["figures"][0]["nodes_alive"], 2);
  EXPECT_EQ(j["figures"][0]["execs_per_second"], 1000);
  EXPECT_EQ(j["figures"][0]["crashes"], 1);
}

TEST_F(DashboardApiTest, OneCampaignHasItsNodesAndItsSamplesGrow) {
  nlohmann::json j = AskJson("/api/campaigns/json");
  EXPECT_EQ(j["campaign"]["name"], "json");
  ASSERT_EQ(j["nodes"].size(), 2u);
  EXPECT_EQ(j["nodes"][0]["state"], "alive");
  // A sample a second here: two of them soon.
  EXPECT_TRUE(
      WaitUntil([&] { return AskJson("/api/campaigns/json/samples")["samples"].size() >= 2; }));
  nlohmann::json s = AskJson("/api/campaigns/json/samples");
  EXPECT_EQ(s["every_ms"], 1000);
  EXPECT_EQ(s["samples"].back()["nodes_alive"], 2);
  EXPECT_LT(s["samples"][0]["unix_ms"].get<int64_t>(),
            s["samples"].back()["unix_ms"].get<int64_t>());
}

TEST_F(DashboardApiTest, CrashesTheirDetailAndTheReproducer) {
  nlohmann::json list = AskJson("/api/campaigns/json/crashes");
  ASSERT_EQ(list["crashes"].size(), 1u);
  EXPECT_EQ(list["crashes"][0]["signature"], kSignature);
  EXPECT_EQ(list["crashes"][0]["count"], 1);
  EXPECT_EQ(list["next"], "");
  nlohmann::json crash = AskJson(std::string("/api/campaigns/json/crashes/") + kSignature);
  EXPECT_EQ(crash["report"], "==1==ERROR: report");
  EXPECT_EQ(crash["repro"], std::string("pollen repro --campaign=json ") + kSignature);
  ops::HttpReply file =
      Ask(std::string("/api/campaigns/json/crashes/") + kSignature + "/reproducer");
  EXPECT_EQ(file.status, 200);
  EXPECT_EQ(file.content_type, "application/octet-stream");
  EXPECT_EQ(file.body, "[[[1");
  // After the last signature: an empty page.
  ops::HttpReply after = Ask("/api/campaigns/json/crashes", {{"after", kSignature}});
  EXPECT_EQ(nlohmann::json::parse(after.body)["crashes"].size(), 0u);
}

TEST_F(DashboardApiTest, WhatItDoesNotKnowIs404AndWhatIsNotANameIs400) {
  EXPECT_EQ(Ask("/api/campaigns/nosuch").status, 404);
  EXPECT_EQ(Ask("/api/campaigns/json/crashes/ffffffffffffffff").status, 404);
  EXPECT_EQ(Ask("/api/campaigns/json/nothing").status, 404);
  EXPECT_EQ(Ask("/api/else").status, 404);
  EXPECT_EQ(Ask("/api/campaigns/.hidden").status, 400);
  EXPECT_EQ(Ask("/api/campaigns/" + std::string(300, 'a')).status, 400);
  EXPECT_EQ(Ask("/api/campaigns/json/crashes/bad\x01sig").status, 400);
  EXPECT_EQ(Ask("/api/campaigns/json/crashes", {{"after", std::string("x\ny")}}).status, 400);
}

TEST_F(DashboardApiTest, TheNodeTablePagesInNodeIdOrder) {
  for (const char* id : {"node-c", "node-d", "node-e"}) {
    ASSERT_TRUE(node_a_->Call<RegisterReply>(MakeRegister(id), kTimeoutMs).ok());
  }
  std::vector<std::string> seen;
  std::string after;
  for (int page = 0; page < 10; page++) {
    std::multimap<std::string, std::string> query = {{"nodes_limit", "2"}};
    if (!after.empty()) query.emplace("nodes_after", after);
    ops::HttpReply reply = Ask("/api/campaigns/json", query);
    ASSERT_EQ(reply.status, 200) << reply.body;
    nlohmann::json j = nlohmann::json::parse(reply.body);
    EXPECT_EQ(j["nodes_total"], 5);
    EXPECT_LE(j["nodes"].size(), 2u);
    for (const auto& n : j["nodes"]) seen.push_back(n["node_id"]);
    // The figures count every node, whichever page this is.
    EXPECT_EQ(j["campaigns"][0]["nodes_alive"], 5);
    after = j["nodes_next"];
    if (after.empty()) break;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"node-a", "node-b", "node-c", "node-d", "node-e"}));
  // Without a limit, a page of kDefaultNodeRows: all five here.
  EXPECT_EQ(AskJson("/api/campaigns/json")["nodes"].size(), 5u);
}

TEST_F(DashboardApiTest, CrashesPageAtTheLimitAsked) {
  for (const char* sig : {"1111111111111111", "2222222222222222", "3333333333333333"}) {
    CrashRequest crash{"node-b", sig, "SEGV", {1, 2, 3}, "==1==ERROR: other", false};
    ASSERT_TRUE(node_b_->Call<CrashReply>(crash, kTimeoutMs).ok());
  }
  std::vector<std::string> seen;
  std::string after;
  for (int page = 0; page < 10; page++) {
    std::multimap<std::string, std::string> query = {{"limit", "3"}};
    if (!after.empty()) query.emplace("after", after);
    ops::HttpReply reply = Ask("/api/campaigns/json/crashes", query);
    ASSERT_EQ(reply.status, 200) << reply.body;
    nlohmann::json j = nlohmann::json::parse(reply.body);
    EXPECT_LE(j["crashes"].size(), 3u);
    for (const auto& c : j["crashes"]) seen.push_back(c["signature"]);
    after = j["next"];
    if (after.empty()) break;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"0123456789abcdef", "1111111111111111",
                                            "2222222222222222", "3333333333333333"}));
  EXPECT_EQ(Ask("/api/campaigns/json/crashes", {{"limit", "0"}}).status, 400);
  EXPECT_EQ(Ask("/api/campaigns/json/crashes", {{"limit", "1001"}}).status, 400);
}

TEST_F(DashboardApiTest, BadNodePagingIs400) {
  for (const char* limit : {"0", "-1", "1001", "99999999999999999999999", "ten", "2x", ""}) {
    ops::HttpReply reply = Ask("/api/campaigns/json", {{"nodes_limit", limit}});
    if (std::string(limit).empty()) {
      EXPECT_EQ(reply.status, 200);  // no value: the default
    } else {
      EXPECT_EQ(reply.status, 400) << limit;
    }
  }
  EXPECT_EQ(Ask("/api/campaigns/json", {{"nodes_after", "a b"}}).status, 400);
  EXPECT_EQ(Ask("/api/campaigns/json", {{"nodes_after", "zzz"}}).status, 200);
}

TEST_F(DashboardApiTest, NightsAreSummarizedFromTheirReportsWhateverTheyHold) {
  EXPECT_EQ(AskJson("/api/campaigns/json/nights")["nights"].size(), 0u);
  const std::string good = R"({"build_id": "b1", "verdict": "new-crashes", "exit_code": 1,
      "problems": [], "new_crashes": [{"signature": "s"}], "regressed_crashes": [],
      "fixed_crashes": [], "open_crashes": [{}, {}],
      "fuzzing": {"executions": 123, "nodes": 2, "elapsed_s": 10},
      "coverage": {"branches": {"covered": 13, "count": 14, "percent": 92.9}},
      "ledger": [{"signature": "0123456789abcdef", "kind": "SEGV", "fixed": true,
                  "fixed_build": "b1", "fixed_night": "2026-11-01"}, {"fixed": 3}, 7,
                 {"signature": ""}, {"signature": "1111111111111111", "fixed": "yes",
                  "fixed_build": 5, "first_night": ""}]})";
  const std::string wrong_types = R"({"verdict": 5, "new_crashes": "x", "fuzzing": [],
      "coverage": {"branches": {"covered": "many", "count": 14}}})";
  const std::vector<std::pair<std::string, std::string>> nights = {
      {"2026-11-01", good}, {"2026-11-02", "not json {"}, {"2026-11-03", wrong_types}};
  for (const auto& [night, report] : nights) {
    PutReportRequest put{"json", night, {{"report.json", report}, {"report.md", "# " + night}}};
    ASSERT_TRUE(node_a_->Call<ReportStoredReply>(put, kTimeoutMs).ok());
  }
  nlohmann::json list = AskJson("/api/campaigns/json/nights")["nights"];
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0]["night"], "2026-11-01");
  EXPECT_EQ(list[0]["verdict"], "new-crashes");
  EXPECT_EQ(list[0]["new_crashes"], 1);
  EXPECT_EQ(list[0]["open_crashes"], 2);
  EXPECT_EQ(list[0]["executions"], 123);
  EXPECT_EQ(list[0]["coverage"]["branches"]["covered"], 13);
  EXPECT_TRUE(list[1].contains("error"));
  EXPECT_FALSE(list[2].contains("verdict"));
  EXPECT_FALSE(list[2].contains("new_crashes"));
  EXPECT_FALSE(list[2]["coverage"]["branches"].contains("covered"));
  EXPECT_EQ(list[2]["coverage"]["branches"]["count"], 14);
  // One night: its report.md and summary; a night replaced shows at once (no stale summary).
  nlohmann::json one = AskJson("/api/campaigns/json/nights/2026-11-01");
  EXPECT_EQ(one["report_md"], "# 2026-11-01");
  EXPECT_EQ(one["summary"]["exit_code"], 1);
  EXPECT_EQ(one["files"], (nlohmann::json{"report.json", "report.md"}));
  PutReportRequest again{"json", "2026-11-02", {{"report.json", good}}};
  ASSERT_TRUE(node_a_->Call<ReportStoredReply>(again, kTimeoutMs).ok());
  EXPECT_EQ(AskJson("/api/campaigns/json/nights")["nights"][1]["verdict"], "new-crashes");
  // The crash, as the newest night with a ledger (11-03 has none) says: fixed.
  nlohmann::json crashes = AskJson("/api/campaigns/json/crashes");
  EXPECT_EQ(crashes["crashes"][0]["nightly"]["state"], "fixed");
  EXPECT_EQ(crashes["crashes"][0]["nightly"]["night"], "2026-11-02");
  EXPECT_EQ(crashes["crashes"][0]["nightly"]["fixed_build"], "b1");
  EXPECT_EQ(AskJson(std::string("/api/campaigns/json/crashes/") + kSignature)["nightly"]["state"],
            "fixed");
  // An entry with wrong types: open (fixed is not true), its fields of the wrong type or
  // empty left out; a crash the ledger lacks has no word.
  CrashRequest other{"node-b", "1111111111111111", "SEGV", {1}, "==1==ERROR: other", false};
  ASSERT_TRUE(node_b_->Call<CrashReply>(other, kTimeoutMs).ok());
  CrashRequest unknown{"node-b", "2222222222222222", "SEGV", {2}, "==1==ERROR: third", false};
  ASSERT_TRUE(node_b_->Call<CrashReply>(unknown, kTimeoutMs).ok());
  nlohmann::json all = AskJson("/api/campaigns/json/crashes")["crashes"];
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1]["nightly"]["state"], "open");
  EXPECT_FALSE(all[1]["nightly"].contains("fixed_build"));
  EXPECT_FALSE(all[1]["nightly"].contains("first_night"));
  EXPECT_FALSE(all[2].contains("nightly"));
  EXPECT_EQ(Ask("/api/campaigns/json/nights/2026-10-31").status, 404);
  EXPECT_EQ(Ask("/api/campaigns/json/nights/2026-13-01").status, 400);
  EXPECT_EQ(Ask("/api/campaigns/json/nights/latest").status, 400);
  EXPECT_EQ(Ask("/api/campaigns/json/nights/2026-11-01/x").status, 404);
  EXPECT_EQ(Ask("/api/campaigns/nosuch/nights").status, 404);
}

}  // namespace
}  // namespace pollen::controller
