// The broker's view of its nodes: who is connected, to which campaign each belongs, and
// each campaign's dedup sets. Pure bookkeeping, no sockets.
//
// A peer is one ZeroMQ connection (a ROUTER routing id). It joins a campaign with its first
// valid message, whatever the kind (nodes send a heartbeat first, and every second), and
// stays bound to that campaign and node id for as long as the connection lives. A node
// that reconnects gets a new routing id: its new peer replaces the old one at once, so a
// restarted broker or node is routed to again as soon as it says anything. Peers that say
// nothing for the timeout are removed; a campaign without peers is forgotten with its sets.
// Not thread-safe.
#ifndef POLLEN_BROKER_PEER_TABLE_H_
#define POLLEN_BROKER_PEER_TABLE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "broker/client/bounded_hash_set.h"
#include "broker/client/drop_reason.h"
#include "broker/client/message_reader.h"

namespace pollen::broker {

struct PeerTableLimits {
  size_t max_peers = 10000;
  size_t max_campaigns = 1000;
  size_t inputs_per_campaign = 1 << 18;  // dedup set capacity (about 26 MB at capacity)
  size_t crashes_per_campaign = 1 << 14;
};

struct Peer {
  std::string routing_id;
  std::string campaign_key;  // Campaign::Key()
  std::string node_id;
  std::string key_name;  // the authorised key's file name ("" in plain text)
  uint64_t last_seen_ms = 0;
  uint64_t deliveries = 0;  // relay header numbering: deliveries attempted to this peer
};

struct CampaignState {
  explicit CampaignState(const PeerTableLimits& limits)
      : inputs(limits.inputs_per_campaign), crashes(limits.crashes_per_campaign) {}
  std::vector<Peer*> members;
  std::unordered_map<std::string, Peer*> by_node;
  BoundedHashSet inputs;   // hashes of inputs relayed
  BoundedHashSet crashes;  // SHA-1s of crash signatures relayed
};

class PeerTable {
 public:
  explicit PeerTable(const PeerTableLimits& limits) : limits_(limits) {}

  // The peer that sent `info` on connection `routing_id`, registered if new (replacing an
  // older connection of the same node), with last_seen_ms = now_ms; or why its message must
  // be dropped: another campaign or node id than it joined with (kWrongCampaign,
  // kBadOrigin), or a full table (kOverCapacity).
  std::optional<DropReason> Admit(const std::string& routing_id, const MessageInfo& info,
                                  const std::string& key_name, uint64_t now_ms, Peer** peer);

  // The campaign a peer belongs to. Precondition: the peer is in the table.
  CampaignState& CampaignOf(const Peer& peer) { return *campaigns_.at(peer.campaign_key); }

  // The peer of node `node_id` in the peer's campaign, or null.
  Peer* FindNode(const Peer& peer, std::string_view node_id);

  // Removes the peer; its campaign too when it was the last member, unless keep_campaign.
  void Remove(const std::string& routing_id, bool keep_campaign = false);

  // Removes peers not seen since now_ms - timeout_ms; returns how many.
  size_t Expire(uint64_t now_ms, uint64_t timeout_ms);

  size_t peers() const { return peers_.size(); }
  size_t campaigns() const { return campaigns_.size(); }

 private:
  PeerTableLimits limits_;
  std::unordered_map<std::string, std::unique_ptr<Peer>> peers_;  // by routing id
  std::unordered_map<std::string, std::unique_ptr<CampaignState>> campaigns_;
};

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_PEER_TABLE_H_
