// The nodes the controller knows: who they are, what they fuzz, their last heartbeat.
//
// A node registers (again after each start, and whenever the controller says it does not
// know it), then sends heartbeats. A node whose last word is older than `lost_after_ms` is
// lost, unless that word was a heartbeat saying it was leaving (it ended cleanly: left); one lost
// for `forget_after_ms` is forgotten (node ids are new at each start of a node by default, so the
// registry would otherwise grow with every restart). Times are wall-clock milliseconds, because
// they outlive the controller: after a restart every known node is shown with its true age, and
// lost until it speaks again.
//
// Durability: a registration is written at once; heartbeats change the record in memory
// and are written by Maintain at most every `save_every_ms` per node, so a restart loses
// at most that much of a node's figures, and 100 nodes cost the registry a few writes a
// second instead of one per heartbeat.
//
// Thread safety: none; the controller's service thread owns it.
#ifndef POLLEN_CONTROLLER_NODE_REGISTRY_H_
#define POLLEN_CONTROLLER_NODE_REGISTRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "controller/client/controller_message.h"
#include "controller/registry_db.h"
#include "controller/registry_records.h"

namespace pollen::controller {

struct NodeRegistryOptions {
  uint64_t lost_after_ms = 15000;
  uint64_t forget_after_ms = 24ull * 3600 * 1000;
  uint64_t save_every_ms = 5000;
};

class NodeRegistry {
 public:
  // Loads every node recorded in `db` (which must outlive the registry). Errors: a record
  // that cannot be read, naming its key.
  static Result<std::unique_ptr<NodeRegistry>> Load(RegistryDb* db,
                                                    const NodeRegistryOptions& options);

  // Records a (re-)registration, keeping the node's last stats. Errors: storage.
  Result<const NodeRecord*> Register(const RegisterRequest& request, int64_t now_unix_ms);

  // Records that `node_id` spoke (with its stats, for a heartbeat; `leaving`: its last
  // one, it ends cleanly, and is left, not lost, from now on). Null when the node is
  // unknown: it must register.
  const NodeRecord* Touch(std::string_view node_id, int64_t now_unix_ms,
                          const NodeStats* stats = nullptr, bool leaving = false);

  NodeState StateOf(const NodeRecord& node, int64_t now_unix_ms) const;

  // Nodes alive and lost; a node that left counts in neither.
  struct Counts {
    uint32_t alive = 0;
    uint32_t lost = 0;
  };
  // The counts of each campaign with a node in the registry, by campaign name.
  std::map<std::string, Counts, std::less<>> CountByCampaign(int64_t now_unix_ms) const;

  // The node's age: how long ago it last spoke (0 if its clock was ahead).
  static uint64_t AgeMs(const NodeRecord& node, int64_t now_unix_ms);

  // Saves the heartbeats due, forgets nodes lost for too long, and appends to `newly_lost`
  // the ids of nodes that became lost since the previous call. Errors: storage (what could
  // not be saved is tried again next time).
  Status Maintain(int64_t now_unix_ms, std::vector<std::string>* newly_lost);

  // Writes every changed record (at shutdown).
  Status SaveAll();

  // Every node, by id.
  const std::map<std::string, NodeRecord, std::less<>>& nodes() const { return nodes_; }

 private:
  struct Memo {
    int64_t saved_unix_ms = 0;
    bool dirty = false;
    bool lost = false;  // as last reported by Maintain
  };
  NodeRegistry(RegistryDb* db, const NodeRegistryOptions& options) : db_(db), options_(options) {}
  Status Save(const NodeRecord& node, int64_t now_unix_ms);

  RegistryDb* db_;
  NodeRegistryOptions options_;
  std::map<std::string, NodeRecord, std::less<>> nodes_;
  std::map<std::string, Memo, std::less<>> memos_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_NODE_REGISTRY_H_
