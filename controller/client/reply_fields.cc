// The reply kinds of ControllerMessage (controller/client/message_fields.h).
//
// A client trusts its controller more than the controller trusts its peers, but a reply is
// still read under the codec's traversal limit and copied with its sizes as they are: every
// list and text is bounded by the frame, which is bounded by the message limit.
#include "controller/client/message_fields.h"

namespace pollen::controller::fields {
namespace {

using M = wire::ControllerMessage;

void WriteBuilds(const std::vector<BuildInfo>& builds, capnp::List<wire::BuildInfo>::Builder list) {
  for (size_t i = 0; i < builds.size(); i++) {
    auto b = list[static_cast<unsigned>(i)];
    b.setBuildId(builds[i].build_id);
    b.setFirstSeenUnixMs(builds[i].first_seen_unix_ms);
    b.setLastSeenUnixMs(builds[i].last_seen_unix_ms);
  }
}

std::vector<BuildInfo> ReadBuilds(capnp::List<wire::BuildInfo>::Reader list) {
  std::vector<BuildInfo> out;
  for (auto b : list) {
    out.push_back({String(b.getBuildId()), b.getFirstSeenUnixMs(), b.getLastSeenUnixMs()});
  }
  return out;
}

void WriteCrash(const CrashSummary& c, wire::CrashSummary::Builder b) {
  b.setSignature(c.signature);
  b.setKind(c.kind);
  b.setCount(c.count);
  b.setInputSize(c.input_size);
  b.setMinimized(c.minimized);
  b.setFirstSeenUnixMs(c.first_seen_unix_ms);
  b.setLastSeenUnixMs(c.last_seen_unix_ms);
  b.setNodes(c.nodes);
}

CrashSummary ReadCrash(wire::CrashSummary::Reader r) {
  return CrashSummary{String(r.getSignature()), String(r.getKind()), r.getCount(),
                      r.getInputSize(),         r.getMinimized(),    r.getFirstSeenUnixMs(),
                      r.getLastSeenUnixMs(),    r.getNodes()};
}

void WriteCampaignStatus(const CampaignStatus& c, wire::CampaignStatus::Builder b) {
  b.setName(c.name);
  b.setBuildId(c.build_id);
  b.setStopped(c.stopped);
  b.setNodesAlive(c.nodes_alive);
  b.setNodesLost(c.nodes_lost);
  b.setExecsPerSecond(c.execs_per_second);
  b.setExecutions(c.executions);
  b.setEdges(c.edges);
  b.setFeatures(c.features);
  b.setCorpusEntries(c.corpus_entries);
  b.setCorpusFeatures(c.corpus_features);
  b.setCrashes(c.crashes);
  b.setRssBytes(c.rss_bytes);
}

CampaignStatus ReadCampaignStatus(wire::CampaignStatus::Reader r) {
  CampaignStatus c;
  c.name = String(r.getName());
  c.build_id = String(r.getBuildId());
  c.stopped = r.getStopped();
  c.nodes_alive = r.getNodesAlive();
  c.nodes_lost = r.getNodesLost();
  c.execs_per_second = r.getExecsPerSecond();
  c.executions = r.getExecutions();
  c.edges = r.getEdges();
  c.features = r.getFeatures();
  c.corpus_entries = r.getCorpusEntries();
  c.corpus_features = r.getCorpusFeatures();
  c.crashes = r.getCrashes();
  c.rss_bytes = r.getRssBytes();
  return c;
}

void WriteNodeStatus(const NodeStatus& n, wire::NodeStatus::Builder b) {
  b.setNodeId(n.node_id);
  b.setCampaign(n.campaign);
  b.setBuildId(n.build_id);
  b.setHost(n.host);
  b.setWorkers(n.workers);
  b.setState(n.state == NodeState::kAlive  ? wire::NodeState::ALIVE
             : n.state == NodeState::kLeft ? wire::NodeState::LEFT
                                           : wire::NodeState::LOST);
  b.setLastHeartbeatAgeMs(n.last_heartbeat_age_ms);
  SetStats(n.stats, b.initStats());
}

// A state this build does not know (a newer controller's) reads as lost: not alive.
NodeState ReadNodeState(wire::NodeState state) {
  switch (state) {
    case wire::NodeState::ALIVE:
      return NodeState::kAlive;
    case wire::NodeState::LEFT:
      return NodeState::kLeft;
    default:
      return NodeState::kLost;
  }
}

NodeStatus ReadNodeStatus(wire::NodeStatus::Reader r) {
  return NodeStatus{String(r.getNodeId()),     String(r.getCampaign()), String(r.getBuildId()),
                    String(r.getHost()),       r.getWorkers(),          ReadNodeState(r.getState()),
                    r.getLastHeartbeatAgeMs(), GetStats(r.getStats())};
}

}  // namespace

void EncodeReplyBody(const Reply& reply, M::Builder m) {
  struct Visitor {
    M::Builder m;
    void operator()(const ErrorReply& r) {
      auto b = m.initError();
      b.setCode(static_cast<wire::ErrorCode>(r.code));
      b.setMessage(r.message);
    }
    void operator()(const RegisterReply& r) {
      auto b = m.initRegistered();
      b.setStopped(r.stopped);
      b.setCorpusEntries(r.corpus_entries);
    }
    void operator()(const HeartbeatReply& r) {
      auto b = m.initHeartbeatReply();
      b.setStop(r.stop);
      auto list = b.initMinimize(static_cast<unsigned>(r.minimize.size()));
      for (size_t i = 0; i < r.minimize.size(); i++) {
        list.set(static_cast<unsigned>(i), AsText(r.minimize[i]));
      }
      b.setPushedSeq(r.pushed_seq);
      b.setAssignedBuild(r.assigned_build);
    }
    void operator()(const InputsReply& r) {
      auto b = m.initInputsAccepted();
      b.setAdded(r.added);
      b.setDuplicates(r.duplicates);
      b.setNotNeeded(r.not_needed);
    }
    void operator()(const CrashReply& r) {
      auto b = m.initCrashAccepted();
      b.setCount(r.count);
      b.setNewSignature(r.new_signature);
      b.setMinimized(r.minimized);
    }
    void operator()(const CampaignsReply& r) {
      auto list = m.initCampaigns().initCampaigns(static_cast<unsigned>(r.campaigns.size()));
      for (size_t i = 0; i < r.campaigns.size(); i++) {
        const CampaignSummary& c = r.campaigns[i];
        auto b = list[static_cast<unsigned>(i)];
        b.setName(c.name);
        b.setTarget(c.target);
        b.setBuildId(c.build_id);
        WriteBuilds(c.builds, b.initBuilds(static_cast<unsigned>(c.builds.size())));
        b.setOptions(c.options);
        b.setStopped(c.stopped);
        b.setCreatedUnixMs(c.created_unix_ms);
        b.setNodesAlive(c.nodes_alive);
        b.setNodesLost(c.nodes_lost);
        b.setAssignedBuild(c.assigned_build);
      }
    }
    void operator()(const StatusReply& r) {
      auto b = m.initStatusReply();
      auto campaigns = b.initCampaigns(static_cast<unsigned>(r.campaigns.size()));
      for (size_t i = 0; i < r.campaigns.size(); i++) {
        WriteCampaignStatus(r.campaigns[i], campaigns[static_cast<unsigned>(i)]);
      }
      auto nodes = b.initNodes(static_cast<unsigned>(r.nodes.size()));
      for (size_t i = 0; i < r.nodes.size(); i++) {
        WriteNodeStatus(r.nodes[i], nodes[static_cast<unsigned>(i)]);
      }
      b.setTruncated(r.truncated);
    }
    void operator()(const CrashListReply& r) {
      auto b = m.initCrashes();
      auto list = b.initCrashes(static_cast<unsigned>(r.crashes.size()));
      for (size_t i = 0; i < r.crashes.size(); i++) {
        WriteCrash(r.crashes[i], list[static_cast<unsigned>(i)]);
      }
      b.setTruncated(r.truncated);
    }
    void operator()(const CrashDetailReply& r) {
      auto b = m.initCrashDetail();
      WriteCrash(r.summary, b.initSummary());
      b.setInput(AsData(r.input));
      b.setReport(r.report);
    }
    void operator()(const CampaignStateReply& r) {
      auto b = m.initCampaignState();
      b.setName(r.name);
      b.setStopped(r.stopped);
    }
    void operator()(const CorpusInfoReply& r) {
      auto b = m.initCorpusInfoReply();
      b.setName(r.name);
      b.setBuildId(r.build_id);
      b.setEntries(r.entries);
      b.setBytes(r.bytes);
      b.setFeatures(r.features);
      b.setLastMergeUnixMs(r.last_merge_unix_ms);
      b.setPushedEntries(r.pushed_entries);
      b.setPullEntries(r.pull_entries);
    }
    void operator()(const ReportStoredReply& r) {
      auto b = m.initReportStored();
      b.setNight(r.night);
      b.setFiles(r.files);
    }
    void operator()(const MergeReply& r) {
      auto b = m.initMergeReply();
      b.setEntriesBefore(r.entries_before);
      b.setEntriesAfter(r.entries_after);
      b.setFeatures(r.features);
      b.setDurationMs(r.duration_ms);
    }
    void operator()(const StreamReply& r) { transfer::ToCapnp(r.message, m.initStream()); }
  };
  std::visit(Visitor{m}, reply);
}

std::optional<DecodeError> DecodeReplyBody(M::Reader m, const ControllerLimits& limits, Reply* out,
                                           std::string_view* chunk_data) {
  switch (m.which()) {
    case M::ERROR: {
      auto r = m.getError();
      auto code = static_cast<size_t>(r.getCode());
      // An error code from a newer controller reads as malformed (with its message).
      *out =
          ErrorReply{code < kNumErrorCodes ? static_cast<ErrorCode>(code) : ErrorCode::kMalformed,
                     String(r.getMessage())};
      return std::nullopt;
    }
    case M::REGISTERED:
      *out = RegisterReply{m.getRegistered().getStopped(), m.getRegistered().getCorpusEntries()};
      return std::nullopt;
    case M::HEARTBEAT_REPLY: {
      auto r = m.getHeartbeatReply();
      HeartbeatReply reply{r.getStop(), {}, r.getPushedSeq(), String(r.getAssignedBuild())};
      for (auto s : r.getMinimize()) reply.minimize.push_back(String(s));
      *out = std::move(reply);
      return std::nullopt;
    }
    case M::INPUTS_ACCEPTED: {
      auto r = m.getInputsAccepted();
      *out = InputsReply{r.getAdded(), r.getDuplicates(), r.getNotNeeded()};
      return std::nullopt;
    }
    case M::CRASH_ACCEPTED: {
      auto r = m.getCrashAccepted();
      *out = CrashReply{r.getCount(), r.getNewSignature(), r.getMinimized()};
      return std::nullopt;
    }
    case M::CAMPAIGNS: {
      CampaignsReply reply;
      for (auto c : m.getCampaigns().getCampaigns()) {
        reply.campaigns.push_back(CampaignSummary{
            String(c.getName()), String(c.getTarget()), String(c.getBuildId()),
            ReadBuilds(c.getBuilds()), String(c.getOptions()), c.getStopped(), c.getCreatedUnixMs(),
            c.getNodesAlive(), c.getNodesLost(), String(c.getAssignedBuild())});
      }
      *out = std::move(reply);
      return std::nullopt;
    }
    case M::STATUS_REPLY: {
      auto r = m.getStatusReply();
      StatusReply reply;
      for (auto c : r.getCampaigns()) reply.campaigns.push_back(ReadCampaignStatus(c));
      for (auto n : r.getNodes()) reply.nodes.push_back(ReadNodeStatus(n));
      reply.truncated = r.getTruncated();
      *out = std::move(reply);
      return std::nullopt;
    }
    case M::CRASHES: {
      auto r = m.getCrashes();
      CrashListReply reply;
      for (auto c : r.getCrashes()) reply.crashes.push_back(ReadCrash(c));
      reply.truncated = r.getTruncated();
      *out = std::move(reply);
      return std::nullopt;
    }
    case M::CRASH_DETAIL: {
      auto r = m.getCrashDetail();
      *out =
          CrashDetailReply{ReadCrash(r.getSummary()), Bytes(r.getInput()), String(r.getReport())};
      return std::nullopt;
    }
    case M::CAMPAIGN_STATE:
      *out = CampaignStateReply{String(m.getCampaignState().getName()),
                                m.getCampaignState().getStopped()};
      return std::nullopt;
    case M::CORPUS_INFO_REPLY: {
      auto r = m.getCorpusInfoReply();
      *out = CorpusInfoReply{String(r.getName()),  String(r.getBuildId()), r.getEntries(),
                             r.getBytes(),         r.getFeatures(),        r.getLastMergeUnixMs(),
                             r.getPushedEntries(), r.getPullEntries()};
      return std::nullopt;
    }
    case M::REPORT_STORED: {
      auto r = m.getReportStored();
      *out = ReportStoredReply{String(r.getNight()), r.getFiles()};
      return std::nullopt;
    }
    case M::MERGE_REPLY: {
      auto r = m.getMergeReply();
      *out =
          MergeReply{r.getEntriesBefore(), r.getEntriesAfter(), r.getFeatures(), r.getDurationMs()};
      return std::nullopt;
    }
    case M::STREAM: {
      StreamReply reply;
      if (Status s = transfer::FromCapnp(m.getStream(), limits.stream, &reply.message, chunk_data);
          !s.ok()) {
        return Malformed(s.message());
      }
      *out = std::move(reply);
      return std::nullopt;
    }
    default:
      return DecodeError{ErrorCode::kUnimplemented, "not a reply this client understands", 0};
  }
}

}  // namespace pollen::controller::fields
