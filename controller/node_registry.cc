#include "controller/node_registry.h"

namespace pollen::controller {
namespace {

constexpr char kPrefix[] = "n/";

std::string Key(std::string_view id) { return kPrefix + std::string(id); }

}  // namespace

Result<std::unique_ptr<NodeRegistry>> NodeRegistry::Load(RegistryDb* db,
                                                         const NodeRegistryOptions& options) {
  std::unique_ptr<NodeRegistry> registry(new NodeRegistry(db, options));
  Status error;
  Status scanned = db->ForEach(kPrefix, [&](std::string_view key, std::string_view value) {
    Result<NodeRecord> record = DecodeNodeRecord(value);
    if (!record.ok()) {
      error = Status::Error("registry " + db->path() + ", key " + std::string(key) + ": " +
                            record.status().message());
      return false;
    }
    std::string id = record->node_id;
    registry->memos_[id] = Memo{record->last_seen_unix_ms, false, false};
    registry->nodes_.emplace(std::move(id), std::move(record).value());
    return true;
  });
  if (!scanned.ok()) return scanned;
  if (!error.ok()) return error;
  return registry;
}

Result<const NodeRecord*> NodeRegistry::Register(const RegisterRequest& r, int64_t now_unix_ms) {
  NodeRecord node;
  if (auto it = nodes_.find(r.node_id); it != nodes_.end()) node.stats = it->second.stats;
  node.node_id = r.node_id;
  node.campaign = r.campaign;
  node.build_id = r.build_id;
  node.host = r.host;
  node.workers = r.workers;
  node.registered_unix_ms = now_unix_ms;
  node.last_seen_unix_ms = now_unix_ms;
  if (Status s = Save(node, now_unix_ms); !s.ok()) return s;
  auto [pos, inserted] = nodes_.insert_or_assign(r.node_id, std::move(node));
  return &pos->second;
}

const NodeRecord* NodeRegistry::Touch(std::string_view node_id, int64_t now_unix_ms,
                                      const NodeStats* stats, bool leaving) {
  auto it = nodes_.find(node_id);
  if (it == nodes_.end()) return nullptr;
  it->second.last_seen_unix_ms = now_unix_ms;
  it->second.left = leaving;
  if (stats != nullptr) it->second.stats = *stats;
  auto memo = memos_.find(node_id);
  memo->second.dirty = true;
  return &it->second;
}

uint64_t NodeRegistry::AgeMs(const NodeRecord& node, int64_t now_unix_ms) {
  return now_unix_ms > node.last_seen_unix_ms
             ? static_cast<uint64_t>(now_unix_ms - node.last_seen_unix_ms)
             : 0;
}

NodeState NodeRegistry::StateOf(const NodeRecord& node, int64_t now_unix_ms) const {
  if (node.left) return NodeState::kLeft;
  return AgeMs(node, now_unix_ms) > options_.lost_after_ms ? NodeState::kLost : NodeState::kAlive;
}

std::map<std::string, NodeRegistry::Counts, std::less<>> NodeRegistry::CountByCampaign(
    int64_t now_unix_ms) const {
  std::map<std::string, Counts, std::less<>> counts;
  for (const auto& [id, node] : nodes_) {
    Counts& c = counts[node.campaign];
    switch (StateOf(node, now_unix_ms)) {
      case NodeState::kAlive:
        c.alive++;
        break;
      case NodeState::kLost:
        c.lost++;
        break;
      case NodeState::kLeft:
        break;
    }
  }
  return counts;
}

Status NodeRegistry::Maintain(int64_t now_unix_ms, std::vector<std::string>* newly_lost) {
  Status first_error;
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    const NodeRecord& node = it->second;
    Memo& memo = memos_[it->first];
    if (AgeMs(node, now_unix_ms) > options_.forget_after_ms) {
      if (Status s = db_->Delete(Key(it->first)); !s.ok()) {
        if (first_error.ok()) first_error = s;
        ++it;
        continue;
      }
      memos_.erase(it->first);
      it = nodes_.erase(it);
      continue;
    }
    bool lost = StateOf(node, now_unix_ms) == NodeState::kLost;
    if (lost && !memo.lost && newly_lost != nullptr) newly_lost->push_back(it->first);
    memo.lost = lost;
    if (memo.dirty &&
        now_unix_ms - memo.saved_unix_ms >= static_cast<int64_t>(options_.save_every_ms)) {
      if (Status s = Save(node, now_unix_ms); !s.ok() && first_error.ok()) first_error = s;
    }
    ++it;
  }
  return first_error;
}

Status NodeRegistry::SaveAll() {
  Status first_error;
  for (const auto& [id, node] : nodes_) {
    if (!memos_[id].dirty) continue;
    if (Status s = Save(node, node.last_seen_unix_ms); !s.ok() && first_error.ok()) first_error = s;
  }
  return first_error;
}

Status NodeRegistry::Save(const NodeRecord& node, int64_t now_unix_ms) {
  if (Status s = db_->Put(Key(node.node_id), EncodeNodeRecord(node)); !s.ok()) return s;
  Memo& memo = memos_[node.node_id];
  memo.saved_unix_ms = now_unix_ms;
  memo.dirty = false;
  return Status::Ok();
}

}  // namespace pollen::controller
