#include "broker/peer_table.h"

#include <algorithm>

namespace pollen::broker {

std::optional<DropReason> PeerTable::Admit(const std::string& routing_id, const MessageInfo& info,
                                           const std::string& key_name, uint64_t now_ms,
                                           Peer** peer) {
  std::string campaign_key = std::string(info.target) + '\0' + std::string(info.build_id);
  auto it = peers_.find(routing_id);
  if (it != peers_.end()) {
    Peer& p = *it->second;
    if (p.campaign_key != campaign_key) return DropReason::kWrongCampaign;
    if (p.node_id != info.origin) return DropReason::kBadOrigin;
    p.last_seen_ms = now_ms;
    *peer = &p;
    return std::nullopt;
  }
  // The same node on a new connection: the old connection is dead or dying. The new peer
  // goes on with its delivery numbering, so the node can tell what the old one lost.
  uint64_t deliveries = 0;
  auto campaign_it = campaigns_.find(campaign_key);
  if (campaign_it != campaigns_.end()) {
    auto old = campaign_it->second->by_node.find(std::string(info.origin));
    if (old != campaign_it->second->by_node.end()) {
      deliveries = old->second->deliveries;
      Remove(old->second->routing_id, /*keep_campaign=*/true);
    }
  }
  if (peers_.size() >= limits_.max_peers) return DropReason::kOverCapacity;
  if (campaign_it == campaigns_.end()) {
    if (campaigns_.size() >= limits_.max_campaigns) return DropReason::kOverCapacity;
    campaign_it = campaigns_.emplace(campaign_key, std::make_unique<CampaignState>(limits_)).first;
  }
  CampaignState& campaign = *campaign_it->second;

  auto created = std::make_unique<Peer>();
  created->routing_id = routing_id;
  created->campaign_key = std::move(campaign_key);
  created->node_id = std::string(info.origin);
  created->key_name = key_name;
  created->last_seen_ms = now_ms;
  created->deliveries = deliveries;
  Peer* p = created.get();
  peers_.emplace(routing_id, std::move(created));
  campaign.members.push_back(p);
  campaign.by_node[p->node_id] = p;
  *peer = p;
  return std::nullopt;
}

Peer* PeerTable::FindNode(const Peer& peer, std::string_view node_id) {
  CampaignState& campaign = CampaignOf(peer);
  auto it = campaign.by_node.find(std::string(node_id));
  return it == campaign.by_node.end() ? nullptr : it->second;
}

void PeerTable::Remove(const std::string& routing_id, bool keep_campaign) {
  auto it = peers_.find(routing_id);
  if (it == peers_.end()) return;
  Peer* p = it->second.get();
  auto campaign_it = campaigns_.find(p->campaign_key);
  CampaignState& campaign = *campaign_it->second;
  campaign.members.erase(std::find(campaign.members.begin(), campaign.members.end(), p));
  auto by_node = campaign.by_node.find(p->node_id);
  if (by_node != campaign.by_node.end() && by_node->second == p) campaign.by_node.erase(by_node);
  if (campaign.members.empty() && !keep_campaign) campaigns_.erase(campaign_it);
  peers_.erase(it);
}

size_t PeerTable::Expire(uint64_t now_ms, uint64_t timeout_ms) {
  std::vector<std::string> stale;
  for (const auto& [id, p] : peers_) {
    if (now_ms - p->last_seen_ms > timeout_ms) stale.push_back(id);
  }
  for (const std::string& id : stale) Remove(id);
  return stale.size();
}

}  // namespace pollen::broker
