#include "broker/peer_table.h"

#include <gtest/gtest.h>

namespace pollen::broker {
namespace {

MessageInfo Info(std::string_view origin, std::string_view build_id = "b1") {
  MessageInfo info;
  info.target = "t";
  info.build_id = build_id;
  info.origin = origin;
  return info;
}

TEST(PeerTableTest, PeersJoinTheCampaignOfTheirFirstMessage) {
  PeerTable table{PeerTableLimits{}};
  Peer *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(table.Admit("r1", Info("a"), "key-a", 100, &a), std::nullopt);
  ASSERT_EQ(table.Admit("r2", Info("b"), "", 100, &b), std::nullopt);
  ASSERT_EQ(table.Admit("r3", Info("c", "b2"), "", 100, &c), std::nullopt);
  EXPECT_EQ(table.peers(), 3u);
  EXPECT_EQ(table.campaigns(), 2u);
  EXPECT_EQ(a->key_name, "key-a");
  EXPECT_EQ(table.CampaignOf(*a).members.size(), 2u);
  EXPECT_EQ(table.CampaignOf(*c).members.size(), 1u);
  EXPECT_EQ(table.FindNode(*a, "b"), b);
  EXPECT_EQ(table.FindNode(*a, "c"), nullptr);  // another campaign
  Peer* again = nullptr;
  EXPECT_EQ(table.Admit("r1", Info("a"), "key-a", 200, &again), std::nullopt);
  EXPECT_EQ(again, a);
  EXPECT_EQ(a->last_seen_ms, 200u);
}

TEST(PeerTableTest, APeerCannotChangeCampaignOrNodeId) {
  PeerTable table{PeerTableLimits{}};
  Peer* p = nullptr;
  ASSERT_EQ(table.Admit("r1", Info("a"), "", 0, &p), std::nullopt);
  EXPECT_EQ(table.Admit("r1", Info("a", "other-build"), "", 0, &p), DropReason::kWrongCampaign);
  EXPECT_EQ(table.Admit("r1", Info("z"), "", 0, &p), DropReason::kBadOrigin);
  EXPECT_EQ(table.peers(), 1u);
}

TEST(PeerTableTest, AReconnectedNodeReplacesItsOldConnection) {
  PeerTable table{PeerTableLimits{}};
  Peer* old_peer = nullptr;
  ASSERT_EQ(table.Admit("r1", Info("a"), "", 0, &old_peer), std::nullopt);
  old_peer->deliveries = 57;
  table.CampaignOf(*old_peer).inputs.Insert(base::Digest{1});
  Peer* new_peer = nullptr;
  ASSERT_EQ(table.Admit("r2", Info("a"), "", 10, &new_peer), std::nullopt);
  EXPECT_EQ(table.peers(), 1u);
  EXPECT_EQ(new_peer->routing_id, "r2");
  EXPECT_EQ(new_peer->deliveries, 57u);                                       // numbering goes on
  EXPECT_TRUE(table.CampaignOf(*new_peer).inputs.Contains(base::Digest{1}));  // dedup state kept
  EXPECT_EQ(table.FindNode(*new_peer, "a"), new_peer);
}

TEST(PeerTableTest, SilentPeersExpireAndEmptyCampaignsAreForgotten) {
  PeerTable table{PeerTableLimits{}};
  Peer* p = nullptr;
  ASSERT_EQ(table.Admit("r1", Info("a"), "", 1000, &p), std::nullopt);
  ASSERT_EQ(table.Admit("r2", Info("b"), "", 5000, &p), std::nullopt);
  EXPECT_EQ(table.Expire(6000, 2000), 1u);
  EXPECT_EQ(table.peers(), 1u);
  EXPECT_EQ(table.campaigns(), 1u);
  table.Remove("r2");
  EXPECT_EQ(table.peers(), 0u);
  EXPECT_EQ(table.campaigns(), 0u);
  table.Remove("unknown");  // no-op
}

TEST(PeerTableTest, FullTablesRefuseNewPeers) {
  PeerTableLimits limits;
  limits.max_peers = 2;
  limits.max_campaigns = 1;
  PeerTable table{limits};
  Peer* p = nullptr;
  ASSERT_EQ(table.Admit("r1", Info("a"), "", 0, &p), std::nullopt);
  EXPECT_EQ(table.Admit("r2", Info("b", "b2"), "", 0, &p),
            DropReason::kOverCapacity);  // 2nd campaign
  ASSERT_EQ(table.Admit("r2", Info("b"), "", 0, &p), std::nullopt);
  EXPECT_EQ(table.Admit("r3", Info("c"), "", 0, &p), DropReason::kOverCapacity);
  ASSERT_EQ(table.Admit("r4", Info("a"), "", 0, &p), std::nullopt);  // a reconnection still fits
}

}  // namespace
}  // namespace pollen::broker
