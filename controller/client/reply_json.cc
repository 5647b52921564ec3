#include "controller/client/reply_json.h"

namespace pollen::controller {
namespace {

nlohmann::json StatsJson(const NodeStats& s) {
  return {{"execs_per_second", s.execs_per_second},
          {"executions", s.executions},
          {"edges", s.edges},
          {"features", s.features},
          {"corpus_entries", s.corpus_entries},
          {"crashes", s.crashes},
          {"rss_bytes", s.rss_bytes}};
}

nlohmann::json SummaryJson(const CrashSummary& c) {
  return {{"signature", c.signature},
          {"kind", c.kind},
          {"count", c.count},
          {"nodes", c.nodes},
          {"input_size", c.input_size},
          {"minimized", c.minimized},
          {"first_seen_unix_ms", c.first_seen_unix_ms},
          {"last_seen_unix_ms", c.last_seen_unix_ms}};
}

const char* StateName(NodeState state) {
  switch (state) {
    case NodeState::kAlive:
      return "alive";
    case NodeState::kLost:
      return "lost";
    case NodeState::kLeft:
      return "left";
  }
  return "unknown";
}

}  // namespace

const char* NodeStateName(NodeState state) { return StateName(state); }

nlohmann::json CampaignsJson(const CampaignsReply& reply) {
  nlohmann::json campaigns = nlohmann::json::array();
  for (const CampaignSummary& c : reply.campaigns) {
    nlohmann::json builds = nlohmann::json::array();
    for (const BuildInfo& b : c.builds) {
      builds.push_back({{"build_id", b.build_id},
                        {"first_seen_unix_ms", b.first_seen_unix_ms},
                        {"last_seen_unix_ms", b.last_seen_unix_ms}});
    }
    campaigns.push_back({{"name", c.name},
                         {"target", c.target},
                         {"build_id", c.build_id},
                         {"builds", builds},
                         {"options", c.options},
                         {"stopped", c.stopped},
                         {"created_unix_ms", c.created_unix_ms},
                         {"nodes_alive", c.nodes_alive},
                         {"nodes_lost", c.nodes_lost}});
  }
  return {{"campaigns", campaigns}};
}

nlohmann::json StatusJson(const StatusReply& reply) {
  nlohmann::json campaigns = nlohmann::json::array(), nodes = nlohmann::json::array();
  for (const CampaignStatus& c : reply.campaigns) {
    campaigns.push_back({{"name", c.name},
                         {"build_id", c.build_id},
                         {"stopped", c.stopped},
                         {"nodes_alive", c.nodes_alive},
                         {"nodes_lost", c.nodes_lost},
                         {"execs_per_second", c.execs_per_second},
                         {"executions", c.executions},
                         {"edges", c.edges},
                         {"features", c.features},
                         {"corpus_entries", c.corpus_entries},
                         {"corpus_features", c.corpus_features},
                         {"crashes", c.crashes},
                         {"rss_bytes", c.rss_bytes}});
  }
  for (const NodeStatus& n : reply.nodes) {
    nodes.push_back({{"node_id", n.node_id},
                     {"campaign", n.campaign},
                     {"build_id", n.build_id},
                     {"host", n.host},
                     {"workers", n.workers},
                     {"state", StateName(n.state)},
                     {"last_heartbeat_age_ms", n.last_heartbeat_age_ms},
                     {"stats", StatsJson(n.stats)}});
  }
  return {{"campaigns", campaigns}, {"nodes", nodes}, {"truncated", reply.truncated}};
}

nlohmann::json CrashesJson(const std::string& campaign, const std::vector<CrashSummary>& crashes) {
  nlohmann::json list = nlohmann::json::array();
  for (const CrashSummary& c : crashes) list.push_back(SummaryJson(c));
  return {{"campaign", campaign}, {"crashes", list}};
}

nlohmann::json CrashJson(const std::string& campaign, const CrashDetailReply& crash) {
  nlohmann::json json = SummaryJson(crash.summary);
  json["campaign"] = campaign;
  json["report"] = crash.report;
  return json;
}

}  // namespace pollen::controller
