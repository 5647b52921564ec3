// CampaignRegistry and NodeRegistry over a real RegistryDb: rules and persistence.
#include <gtest/gtest.h>

#include "controller/campaign_registry.h"
#include "controller/controller_test_util.h"
#include "controller/node_registry.h"
#include "controller/registry_db.h"

namespace pollen::controller {
namespace {

using testing::MakeRegister;
using testing::TempDir;

TEST(CampaignRegistryTest, ACampaignKeepsItsTargetAndItsNewestBuildIsCurrent) {
  TempDir dir;
  auto db = RegistryDb::Open(dir.path() + "/registry").value();
  auto campaigns = CampaignRegistry::Load(db.get()).value();
  ASSERT_TRUE(campaigns->Register(MakeRegister("n1", "json", "build1"), 10).ok());
  ASSERT_TRUE(campaigns->Register(MakeRegister("n2", "json", "build2"), 20).ok());
  ASSERT_TRUE(campaigns->Register(MakeRegister("n3", "json", "build1"), 30).ok());  // old build
  const CampaignRecord* c = campaigns->Find("json");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->target, "json_fuzzer");
  EXPECT_EQ(c->current_build, "build2");
  ASSERT_EQ(c->builds.size(), 2u);
  EXPECT_EQ(c->builds[0].last_seen_unix_ms, 30);
  EXPECT_EQ(c->created_unix_ms, 10);

  RegisterRequest other_target = MakeRegister("n4", "json");
  other_target.target = "xml_fuzzer";
  auto conflict = campaigns->CheckRegistration(other_target);
  ASSERT_TRUE(conflict.has_value());
  EXPECT_EQ(conflict->code, ErrorCode::kConflict);
  EXPECT_NE(conflict->message.find("json_fuzzer"), std::string::npos);

  EXPECT_EQ(std::get<std::string>(campaigns->ResolveBuild({"json", ""})), "build2");
  EXPECT_EQ(std::get<std::string>(campaigns->ResolveBuild({"json", "build1"})), "build1");
  EXPECT_EQ(std::get<ErrorReply>(campaigns->ResolveBuild({"json", "build9"})).code,
            ErrorCode::kUnknownCampaign);
  EXPECT_EQ(std::get<ErrorReply>(campaigns->ResolveBuild({"xml", ""})).code,
            ErrorCode::kUnknownCampaign);
}

TEST(CampaignRegistryTest, AnUnknownCampaignIsAnErrorThatSaysHowCampaignsComeToBe) {
  TempDir dir;
  auto db = RegistryDb::Open(dir.path() + "/registry").value();
  auto campaigns = CampaignRegistry::Load(db.get()).value();
  EXPECT_EQ(campaigns->UnknownCampaign("png"),
            "no campaign 'png' (a campaign is created by the first node that joins it or by pollen "
            "build push; this "
            "controller has: none yet)");
  ASSERT_TRUE(campaigns->Register(MakeRegister("n1", "json", "b1"), 10).ok());
  ASSERT_TRUE(campaigns->Register(MakeRegister("n1", "re2", "b1"), 10).ok());
  const ErrorReply unknown = std::get<ErrorReply>(campaigns->ResolveBuild({"png", ""}));
  EXPECT_EQ(unknown.code, ErrorCode::kUnknownCampaign);
  EXPECT_EQ(unknown.message,
            "no campaign 'png' (a campaign is created by the first node that joins it or by pollen "
            "build push; this "
            "controller has: json, re2)");
  for (int i = 0; i < 12; i++) {
    ASSERT_TRUE(
        campaigns->Register(MakeRegister("n1", "c" + std::to_string(10 + i), "b1"), 10).ok());
  }
  const std::string many = campaigns->UnknownCampaign("png");
  EXPECT_NE(many.find("c10, c11"), std::string::npos) << many;
  EXPECT_NE(many.find(", and 4 more)"), std::string::npos) << many;
  EXPECT_EQ(campaigns->SetStopped("png", true).message(), many);
}

TEST(CampaignRegistryTest, CampaignsAndTheirStopFlagSurviveAReload) {
  TempDir dir;
  const std::string path = dir.path() + "/registry";
  {
    auto db = RegistryDb::Open(path).value();
    auto campaigns = CampaignRegistry::Load(db.get()).value();
    ASSERT_TRUE(campaigns->Register(MakeRegister("n1", "json", "b1"), 10).ok());
    ASSERT_TRUE(campaigns->Register(MakeRegister("n1", "re2", "b7"), 11).ok());
    ASSERT_TRUE(campaigns->SetStopped("re2", true).ok());
    EXPECT_FALSE(campaigns->SetStopped("nope", true).ok());
  }
  auto db = RegistryDb::Open(path).value();
  auto campaigns = CampaignRegistry::Load(db.get()).value();
  ASSERT_EQ(campaigns->campaigns().size(), 2u);
  EXPECT_FALSE(campaigns->Find("json")->stopped);
  EXPECT_TRUE(campaigns->Find("re2")->stopped);
  EXPECT_EQ(campaigns->Find("re2")->current_build, "b7");
  EXPECT_EQ(campaigns->Find("json")->options, "-max_len=4096");
}

TEST(RegistryDbTest, ASecondControllerOnTheSameRegistryIsToldItIsLocked) {
  TempDir dir;
  auto first = RegistryDb::Open(dir.path() + "/registry").value();
  auto second = RegistryDb::Open(dir.path() + "/registry");
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("locked by another pollen controller"),
            std::string::npos)
      << second.status().message();
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
}

TEST(RegistryDbTest, ADamagedRecordIsAnErrorNamingItsKey) {
  TempDir dir;
  auto db = RegistryDb::Open(dir.path() + "/registry").value();
  ASSERT_TRUE(db->Put("c/json", "not a record").ok());
  auto campaigns = CampaignRegistry::Load(db.get());
  ASSERT_FALSE(campaigns.ok());
  EXPECT_NE(campaigns.status().message().find("c/json"), std::string::npos);
}

class NodeRegistryTest : public ::testing::Test {
 protected:
  void Open() {
    nodes_.reset();
    db_.reset();
    db_ = RegistryDb::Open(dir_.path() + "/registry").value();
    NodeRegistryOptions options;
    options.lost_after_ms = 15000;
    options.forget_after_ms = 100000;
    options.save_every_ms = 5000;
    nodes_ = NodeRegistry::Load(db_.get(), options).value();
  }
  void SetUp() override { Open(); }

  TempDir dir_;
  std::unique_ptr<RegistryDb> db_;
  std::unique_ptr<NodeRegistry> nodes_;
};

TEST_F(NodeRegistryTest, ANodeSilentForLostAfterIsLostOnceAndForgottenLater) {
  ASSERT_TRUE(nodes_->Register(MakeRegister("a"), 1000).ok());
  ASSERT_TRUE(nodes_->Register(MakeRegister("b"), 1000).ok());
  NodeStats stats{100, 1000, 5, 6, 7, 0, 1 << 20};
  ASSERT_NE(nodes_->Touch("b", 16000, &stats), nullptr);
  EXPECT_EQ(nodes_->Touch("nobody", 16000), nullptr);
  const NodeRecord& a = nodes_->nodes().at("a");
  const NodeRecord& b = nodes_->nodes().at("b");
  EXPECT_EQ(nodes_->StateOf(a, 16000), NodeState::kAlive);  // exactly at the limit
  EXPECT_EQ(nodes_->StateOf(a, 16001), NodeState::kLost);
  EXPECT_EQ(nodes_->StateOf(b, 16001), NodeState::kAlive);
  EXPECT_EQ(b.stats, stats);

  std::vector<std::string> lost;
  ASSERT_TRUE(nodes_->Maintain(16001, &lost).ok());
  EXPECT_EQ(lost, (std::vector<std::string>{"a"}));
  lost.clear();
  ASSERT_TRUE(nodes_->Maintain(17000, &lost).ok());
  EXPECT_TRUE(lost.empty());  // reported once
  ASSERT_TRUE(nodes_->Maintain(1000 + 100001, &lost).ok());
  EXPECT_EQ(nodes_->nodes().count("a"), 0u);  // forgotten, in the registry too
  Open();
  EXPECT_EQ(nodes_->nodes().count("a"), 0u);
  EXPECT_EQ(nodes_->nodes().count("b"), 1u);
}

TEST_F(NodeRegistryTest, HeartbeatsAreSavedEverySaveIntervalAndAllAtShutdown) {
  ASSERT_TRUE(nodes_->Register(MakeRegister("a"), 1000).ok());
  NodeStats stats{1, 2, 3, 4, 5, 6, 7};
  nodes_->Touch("a", 2000, &stats);
  ASSERT_TRUE(nodes_->Maintain(2000, nullptr).ok());  // within 5 s of the registration: not yet
  Open();
  EXPECT_EQ(nodes_->nodes().at("a").last_seen_unix_ms, 1000);
  nodes_->Touch("a", 7000, &stats);
  ASSERT_TRUE(nodes_->Maintain(7000, nullptr).ok());
  Open();
  EXPECT_EQ(nodes_->nodes().at("a").last_seen_unix_ms, 7000);
  EXPECT_EQ(nodes_->nodes().at("a").stats, stats);
  NodeStats later{9, 9, 9, 9, 9, 9, 9};
  nodes_->Touch("a", 8000, &later);
  ASSERT_TRUE(nodes_->SaveAll().ok());
  Open();
  EXPECT_EQ(nodes_->nodes().at("a").stats, later);
  EXPECT_EQ(nodes_->nodes().at("a").campaign, "json");
  EXPECT_EQ(nodes_->nodes().at("a").host, "host-a");
}

// A node whose last heartbeat said it was leaving (a run with --time) is left, never lost,
// however long it stays silent, and stays left over a restart; forgotten like the others.
TEST_F(NodeRegistryTest, ANodeThatSaidItWasLeavingIsLeftNotLost) {
  ASSERT_TRUE(nodes_->Register(MakeRegister("a"), 1000).ok());
  NodeStats stats{1, 2, 3, 4, 5, 6, 7};
  ASSERT_NE(nodes_->Touch("a", 2000, &stats, /*leaving=*/true), nullptr);
  EXPECT_EQ(nodes_->StateOf(nodes_->nodes().at("a"), 2000), NodeState::kLeft);
  std::vector<std::string> lost;
  ASSERT_TRUE(nodes_->Maintain(2000 + 15001, &lost).ok());
  EXPECT_TRUE(lost.empty()) << "reported lost";
  EXPECT_EQ(nodes_->StateOf(nodes_->nodes().at("a"), 2000 + 15001), NodeState::kLeft);
  ASSERT_TRUE(nodes_->SaveAll().ok());
  Open();
  EXPECT_EQ(nodes_->StateOf(nodes_->nodes().at("a"), 30000), NodeState::kLeft);
  ASSERT_NE(nodes_->Touch("a", 30000, &stats), nullptr);  // it speaks again after all
  EXPECT_EQ(nodes_->StateOf(nodes_->nodes().at("a"), 30000), NodeState::kAlive);
  ASSERT_NE(nodes_->Touch("a", 31000, &stats, /*leaving=*/true), nullptr);
  ASSERT_TRUE(nodes_->Maintain(31000 + 100001, &lost).ok());
  EXPECT_EQ(nodes_->nodes().count("a"), 0u) << "forgotten";
}

}  // namespace
}  // namespace pollen::controller
