#include "controller/request_handler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "controller/client/record_names.h"
#include "controller/corpus_sources.h"

namespace pollen::controller {
namespace {

// Minimization requests piggybacked on one heartbeat reply.
constexpr size_t kMinimizePerHeartbeat = 4;
// Bytes kept free under the message limit for a reply's fixed fields.
constexpr size_t kReplyMarginBytes = 16 << 10;
// What one node's status costs in a reply besides its texts.
constexpr size_t kNodeStatusOverheadBytes = 160;

ErrorReply StorageError(const Status& s) {
  spdlog::error("controller: {}", s.message());
  return ErrorReply{ErrorCode::kStorage, s.message()};
}

ErrorReply UnknownNode(const std::string& id) {
  return ErrorReply{ErrorCode::kUnknownNode, "node '" + id + "' is not registered: register first"};
}

}  // namespace

RequestHandler::RequestHandler(CampaignRegistry* campaigns, NodeRegistry* nodes,
                               CampaignStores* stores, const ControllerLimits& limits,
                               ReportStore* reports)
    : campaigns_(campaigns),
      nodes_(nodes),
      stores_(stores),
      reports_(reports),
      limits_(limits),
      reply_budget_(limits.max_message_bytes > 2 * kReplyMarginBytes
                        ? limits.max_message_bytes - kReplyMarginBytes
                        : limits.max_message_bytes / 2) {}

Reply RequestHandler::Handle(const Request& request, int64_t now_unix_ms, uint64_t now_ms) {
  struct Visitor {
    RequestHandler* h;
    int64_t now_unix_ms;
    uint64_t now_ms;
    Reply operator()(const RegisterRequest& r) { return h->OnRegister(r, now_unix_ms); }
    Reply operator()(const HeartbeatRequest& r) { return h->OnHeartbeat(r, now_unix_ms, now_ms); }
    Reply operator()(const NewInputsRequest& r) { return h->OnNewInputs(r, now_unix_ms); }
    Reply operator()(const CrashRequest& r) { return h->OnCrash(r, now_unix_ms); }
    Reply operator()(const ListCampaignsRequest&) { return h->OnListCampaigns(now_unix_ms); }
    Reply operator()(const StatusRequest& r) { return h->OnStatus(r, now_unix_ms); }
    Reply operator()(const ListCrashesRequest& r) { return h->OnListCrashes(r); }
    Reply operator()(const GetCrashRequest& r) { return h->OnGetCrash(r); }
    Reply operator()(const StartCampaignRequest& r) { return h->OnSetStopped(r.campaign, false); }
    Reply operator()(const StopCampaignRequest& r) { return h->OnSetStopped(r.campaign, true); }
    Reply operator()(const CorpusInfoRequest& r) { return h->OnCorpusInfo(r); }
    Reply operator()(const MergeCorpusRequest& r) { return h->OnMerge(r, now_unix_ms); }
    Reply operator()(const PutReportRequest& r) { return h->OnPutReport(r); }
    // Streams run in the controller's stream server (controller/stream_server.h).
    Reply operator()(const PushCorpusRequest&) { return NotHere(); }
    Reply operator()(const StreamRequest&) { return NotHere(); }
    Reply operator()(const PushCrashRequest&) { return NotHere(); }
    Reply operator()(const PushBuildRequest&) { return NotHere(); }
    static Reply NotHere() {
      return ErrorReply{ErrorCode::kUnimplemented,
                        "streams are not answered by the request handler"};
    }
  };
  return std::visit(Visitor{this, now_unix_ms, now_ms}, request);
}

std::variant<CampaignStore*, ErrorReply> RequestHandler::StoreFor(const CampaignRef& ref) {
  auto build = campaigns_->ResolveBuild(ref);
  if (auto* error = std::get_if<ErrorReply>(&build)) return *error;
  Result<CampaignStore*> store =
      stores_->Get(*campaigns_->Find(ref.name), std::get<std::string>(build));
  if (!store.ok()) return StorageError(store.status());
  return *store;
}

std::variant<CampaignStore*, ErrorReply> RequestHandler::StoreOfNode(const NodeRecord& node) {
  return StoreFor(CampaignRef{node.campaign, node.build_id});
}

Reply RequestHandler::OnRegister(const RegisterRequest& r, int64_t now_unix_ms) {
  if (auto conflict = campaigns_->CheckRegistration(r)) return *conflict;
  const CampaignRecord* before = campaigns_->Find(r.campaign);
  const bool new_campaign = before == nullptr;
  const bool new_build =
      new_campaign || std::none_of(before->builds.begin(), before->builds.end(),
                                   [&](const BuildInfo& b) { return b.build_id == r.build_id; });
  Result<const CampaignRecord*> campaign = campaigns_->Register(r, now_unix_ms);
  if (!campaign.ok()) return StorageError(campaign.status());
  if (new_campaign) {
    spdlog::info("campaign '{}' created (target '{}') by node '{}'", r.campaign, r.target,
                 r.node_id);
  } else if (new_build) {
    spdlog::info("campaign '{}': new build {} (now current) from node '{}'", r.campaign, r.build_id,
                 r.node_id);
  }
  Result<const NodeRecord*> node = nodes_->Register(r, now_unix_ms);
  if (!node.ok()) return StorageError(node.status());
  spdlog::info("node '{}' ({}, {} workers) registered in campaign '{}' build {}", r.node_id,
               r.host.empty() ? "unknown host" : r.host, r.workers, r.campaign, r.build_id);
  Result<CampaignStore*> store = stores_->Get(**campaign, r.build_id);
  if (!store.ok()) return StorageError(store.status());
  return RegisterReply{(*campaign)->stopped, (*store)->corpus->info().entries};
}

Reply RequestHandler::OnHeartbeat(const HeartbeatRequest& r, int64_t now_unix_ms, uint64_t now_ms) {
  const NodeRecord* node = nodes_->Touch(r.node_id, now_unix_ms, &r.stats, r.leaving);
  if (node == nullptr) return UnknownNode(r.node_id);
  if (r.leaving) spdlog::info("node '{}' of campaign '{}' left", r.node_id, node->campaign);
  const CampaignRecord* campaign = campaigns_->Find(node->campaign);
  HeartbeatReply reply;
  reply.stop = campaign != nullptr && campaign->stopped;
  if (campaign != nullptr) reply.assigned_build = campaign->assigned_build;
  auto store = StoreOfNode(*node);
  if (auto* s = std::get_if<CampaignStore*>(&store)) {
    reply.minimize = (*s)->triage->MinimizeWanted(r.node_id, now_ms, kMinimizePerHeartbeat);
  }  // else: logged by StoreFor; the heartbeat itself is still answered
  if (campaign != nullptr) {
    Result<PushedCorpus*> pushed = stores_->Pushed(*campaign, /*create=*/false);
    if (!pushed.ok()) {
      spdlog::error("controller: {}", pushed.status().message());
    } else if (*pushed != nullptr) {
      reply.pushed_seq = (*pushed)->durable_seq();  // see PushedCorpus: never a lost one
    }
  }
  return reply;
}

Reply RequestHandler::OnNewInputs(const NewInputsRequest& r, int64_t now_unix_ms) {
  const NodeRecord* node = nodes_->Touch(r.node_id, now_unix_ms);
  if (node == nullptr) return UnknownNode(r.node_id);
  auto store = StoreOfNode(*node);
  if (auto* error = std::get_if<ErrorReply>(&store)) return *error;
  Result<InsertReport> report =
      std::get<CampaignStore*>(store)->corpus->Insert(r.entries, "node:" + r.node_id, now_unix_ms);
  if (!report.ok()) return StorageError(report.status());
  return InputsReply{report->added, report->duplicates, report->not_needed};
}

Reply RequestHandler::OnCrash(const CrashRequest& r, int64_t now_unix_ms) {
  const NodeRecord* node = nodes_->Touch(r.node_id, now_unix_ms);
  if (node == nullptr) return UnknownNode(r.node_id);
  auto store = StoreOfNode(*node);
  if (auto* error = std::get_if<ErrorReply>(&store)) return *error;
  Result<CrashReply> reply = std::get<CampaignStore*>(store)->triage->Report(r, now_unix_ms);
  if (!reply.ok()) return StorageError(reply.status());
  if (reply->new_signature) {
    spdlog::info("campaign '{}': new crash {} [{}] from node '{}' ({} bytes{})", node->campaign,
                 r.kind, r.signature.substr(0, 200), r.node_id, r.input.size(),
                 r.minimized ? ", minimized" : "");
  }
  return *reply;
}

Reply RequestHandler::OnListCampaigns(int64_t now_unix_ms) {
  std::map<std::string, NodeRegistry::Counts, std::less<>> counts =
      nodes_->CountByCampaign(now_unix_ms);
  CampaignsReply reply;
  for (const auto& [name, c] : campaigns_->campaigns()) {
    const NodeRegistry::Counts n = counts[name];
    reply.campaigns.push_back(CampaignSummary{c.name, c.target, c.current_build, c.builds,
                                              c.options, c.stopped, c.created_unix_ms, n.alive,
                                              n.lost, c.assigned_build});
  }
  return reply;
}

Reply RequestHandler::OnStatus(const StatusRequest& r, int64_t now_unix_ms) {
  if (!r.campaign.empty() && campaigns_->Find(r.campaign) == nullptr) {
    return ErrorReply{ErrorCode::kUnknownCampaign, campaigns_->UnknownCampaign(r.campaign)};
  }
  StatusReply reply;
  std::map<std::string, size_t, std::less<>> index;  // campaign name -> position in reply
  for (const auto& [name, c] : campaigns_->campaigns()) {
    if (!r.campaign.empty() && name != r.campaign) continue;
    CampaignStatus status;
    status.name = name;
    status.build_id = c.current_build;
    status.stopped = c.stopped;
    auto store = StoreFor(CampaignRef{name, ""});
    if (auto* s = std::get_if<CampaignStore*>(&store)) {
      MergedCorpus::Info info = (*s)->corpus->info();
      status.corpus_entries = info.entries;
      status.corpus_features = info.features;
      status.crashes = (*s)->triage->size();
    }
    index[name] = reply.campaigns.size();
    reply.campaigns.push_back(std::move(status));
  }
  size_t bytes = 0;
  for (const auto& [id, node] : nodes_->nodes()) {
    auto it = index.find(node.campaign);
    if (it == index.end()) continue;
    NodeStatus n{node.node_id,
                 node.campaign,
                 node.build_id,
                 node.host,
                 node.workers,
                 nodes_->StateOf(node, now_unix_ms),
                 NodeRegistry::AgeMs(node, now_unix_ms),
                 node.stats};
    CampaignStatus& c = reply.campaigns[it->second];
    // What the campaign did and reached counts every node's last report, so that it never
    // falls when nodes leave or are lost; what it does now counts the nodes alive.
    c.executions += n.stats.executions;
    c.edges = std::max(c.edges, n.stats.edges);
    c.features = std::max(c.features, n.stats.features);
    if (n.state == NodeState::kAlive) {
      c.nodes_alive++;
      c.execs_per_second += n.stats.execs_per_second;
      c.rss_bytes += n.stats.rss_bytes;
    } else if (n.state == NodeState::kLost) {
      c.nodes_lost++;
    }
    size_t cost = n.node_id.size() + n.campaign.size() + n.build_id.size() + n.host.size() +
                  kNodeStatusOverheadBytes;
    if (bytes + cost > reply_budget_) {
      reply.truncated = true;  // the aggregates still count every node
      continue;
    }
    bytes += cost;
    reply.nodes.push_back(std::move(n));
  }
  return reply;
}

Reply RequestHandler::OnListCrashes(const ListCrashesRequest& r) {
  auto store = StoreFor(r.campaign);
  if (auto* error = std::get_if<ErrorReply>(&store)) return *error;
  Result<CrashListReply> list =
      std::get<CampaignStore*>(store)->triage->List(r.after, reply_budget_);
  if (!list.ok()) return StorageError(list.status());
  return std::move(list).value();
}

Reply RequestHandler::OnGetCrash(const GetCrashRequest& r) {
  auto store = StoreFor(r.campaign);
  if (auto* error = std::get_if<ErrorReply>(&store)) return *error;
  auto detail = std::get<CampaignStore*>(store)->triage->Get(r.signature);
  if (!detail.ok()) return StorageError(detail.status());
  if (!detail->has_value()) {
    return ErrorReply{ErrorCode::kNotFound,
                      "campaign '" + r.campaign.name + "' has no crash with that signature"};
  }
  CrashDetailReply& d = **detail;
  size_t size = d.input.size() + d.report.size() + d.summary.signature.size();
  if (size > reply_budget_) {
    return ErrorReply{ErrorCode::kTooLarge,
                      "the reproducer (" + std::to_string(d.input.size()) + " bytes) and report (" +
                          std::to_string(d.report.size()) +
                          " bytes) do not fit in one message: pull the stream " +
                          CrashResource(r.campaign.name, r.signature) +
                          " (`pollen crashes pull` does)"};
  }
  return std::move(d);
}

Reply RequestHandler::OnSetStopped(const CampaignRef& ref, bool stopped) {
  if (campaigns_->Find(ref.name) == nullptr) {
    return ErrorReply{ErrorCode::kUnknownCampaign, campaigns_->UnknownCampaign(ref.name)};
  }
  if (Status s = campaigns_->SetStopped(ref.name, stopped); !s.ok()) return StorageError(s);
  spdlog::info("campaign '{}' {}", ref.name, stopped ? "stopped" : "started");
  return CampaignStateReply{ref.name, stopped};
}

Reply RequestHandler::OnCorpusInfo(const CorpusInfoRequest& r) {
  auto store = StoreFor(r.campaign);
  if (auto* error = std::get_if<ErrorReply>(&store)) return *error;
  CampaignStore* s = std::get<CampaignStore*>(store);
  MergedCorpus::Info info = s->corpus->info();
  Result<PushedCorpus*> pushed = stores_->Pushed(*campaigns_->Find(s->campaign), /*create=*/false);
  if (!pushed.ok()) return StorageError(pushed.status());
  return CorpusInfoReply{s->campaign,
                         s->build_id,
                         info.entries,
                         info.bytes,
                         info.features,
                         info.last_maintain_unix_ms,
                         *pushed == nullptr ? 0 : (*pushed)->durable_seq(),
                         CorpusSource::CountAll(*s->corpus, *pushed)};
}

Reply RequestHandler::OnMerge(const MergeCorpusRequest& r, int64_t now_unix_ms) {
  auto store = StoreFor(r.campaign);
  if (auto* error = std::get_if<ErrorReply>(&store)) return *error;
  Result<MaintainReport> report = std::get<CampaignStore*>(store)->corpus->Maintain(now_unix_ms);
  if (!report.ok()) return StorageError(report.status());
  return MergeReply{report->entries_before, report->entries_after, report->features,
                    report->duration_ms};
}

Reply RequestHandler::OnPutReport(const PutReportRequest& r) {
  if (reports_ == nullptr) return ErrorReply{ErrorCode::kUnimplemented, "no report store here"};
  Status put = reports_->Put(r);
  if (!put.ok()) {
    spdlog::error("{}", put.message());
    return ErrorReply{ErrorCode::kStorage, "the controller could not store the report"};
  }
  spdlog::info("campaign '{}': report of night {} stored ({} files)", r.campaign, r.night,
               r.files.size());
  return ReportStoredReply{r.night, static_cast<uint32_t>(r.files.size())};
}

}  // namespace pollen::controller
