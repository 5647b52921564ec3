// The request kinds of ControllerMessage (controller/client/message_fields.h).
#include <cstring>

#include "base/sha1.h"
#include "controller/client/message_fields.h"
#include "controller/client/safe_name.h"
#include "net/feature_codec.h"

namespace pollen::controller::fields {
namespace {

using M = wire::ControllerMessage;

DecodeError InvalidName(const Status& s) { return {ErrorCode::kInvalidName, s.message(), 0}; }

std::optional<DecodeError> CheckNode(capnp::Text::Reader id, const ControllerLimits& limits) {
  if (Status s = CheckNodeId(View(id), limits.max_name_bytes); !s.ok()) {
    return Malformed(s.message());
  }
  return std::nullopt;
}

// Display text of at most `max` bytes (at least one unless may_be_empty).
std::optional<DecodeError> CheckText(const char* what, capnp::Text::Reader text, size_t max,
                                     bool may_be_empty) {
  if ((!may_be_empty && text.size() == 0) || text.size() > max) {
    return Malformed(std::string(what) + " must have " + (may_be_empty ? "0" : "1") + " to " +
                     std::to_string(max) + " bytes");
  }
  if (!IsDisplayText(View(text))) return Malformed(std::string(what) + " holds control characters");
  return std::nullopt;
}

std::optional<DecodeError> ReadRef(wire::CampaignRef::Reader r, CampaignRef* out) {
  if (Status s = CheckSafeName("campaign name", View(r.getName())); !s.ok()) return InvalidName(s);
  if (r.getBuildId().size() > 0) {
    if (Status s = CheckSafeName("build id", View(r.getBuildId())); !s.ok()) return InvalidName(s);
  }
  out->name = String(r.getName());
  out->build_id = String(r.getBuildId());
  return std::nullopt;
}

void WriteRef(const CampaignRef& ref, wire::CampaignRef::Builder b) {
  b.setName(ref.name);
  b.setBuildId(ref.build_id);
}

std::optional<DecodeError> ReadRegister(M::Reader m, const ControllerLimits& limits,
                                        RegisterRequest* out) {
  auto r = m.getRegister();
  if (auto e = CheckNode(r.getNodeId(), limits)) return e;
  if (Status s = CheckSafeName("campaign name", View(r.getCampaign())); !s.ok()) {
    return InvalidName(s);
  }
  if (Status s = CheckSafeName("build id", View(r.getBuildId())); !s.ok()) return InvalidName(s);
  if (auto e = CheckText("the target name", r.getTarget(), limits.max_name_bytes, false)) return e;
  if (auto e = CheckText("the host name", r.getHost(), limits.max_name_bytes, true)) return e;
  if (r.getOptions().size() > limits.max_options_bytes) {
    return Malformed("the options text is longer than " + std::to_string(limits.max_options_bytes) +
                     " bytes");
  }
  *out = RegisterRequest{String(r.getNodeId()),  String(r.getCampaign()), String(r.getTarget()),
                         String(r.getBuildId()), String(r.getOptions()),  String(r.getHost()),
                         r.getWorkers()};
  return std::nullopt;
}

std::optional<DecodeError> ReadInputs(M::Reader m, const ControllerLimits& limits,
                                      NewInputsRequest* out) {
  auto r = m.getNewInputs();
  if (auto e = CheckNode(r.getNodeId(), limits)) return e;
  auto entries = r.getEntries();
  if (entries.size() > limits.max_entries) {
    return Malformed("more than " + std::to_string(limits.max_entries) + " inputs in a message");
  }
  out->node_id = String(r.getNodeId());
  out->entries.clear();
  out->entries.reserve(entries.size());
  for (uint32_t i = 0; i < entries.size(); i++) {
    auto e = entries[i];
    const std::string at = "input " + std::to_string(i) + ": ";
    auto hash = e.getHash(), bytes = e.getBytes(), features = e.getFeatures();
    if (hash.size() != sizeof(base::Digest)) return Malformed(at + "a hash has 20 bytes");
    InputEntry entry;
    std::memcpy(entry.hash.data(), hash.begin(), sizeof(base::Digest));
    if (base::Sha1(bytes.begin(), bytes.size()) != entry.hash) {
      return Malformed(at + "the bytes do not have the announced SHA-1");
    }
    if (!net::DecodeFeatures(features.begin(), features.size(), limits.max_features,
                             &entry.features)) {
      return Malformed(at + "invalid feature list");
    }
    entry.bytes = Bytes(bytes);
    out->entries.push_back(std::move(entry));
  }
  return std::nullopt;
}

std::optional<DecodeError> ReadCrash(M::Reader m, const ControllerLimits& limits,
                                     CrashRequest* out) {
  auto r = m.getCrash();
  if (auto e = CheckNode(r.getNodeId(), limits)) return e;
  auto signature = r.getSignature();
  if (signature.size() == 0 || signature.size() > limits.max_signature_bytes) {
    return Malformed("a crash signature has 1 to " + std::to_string(limits.max_signature_bytes) +
                     " bytes");
  }
  if (auto e = CheckText("the crash kind", r.getKind(), limits.max_name_bytes, true)) return e;
  if (r.getReport().size() > limits.max_report_bytes) {
    return Malformed("a crash report is at most " + std::to_string(limits.max_report_bytes) +
                     " bytes: cut it");
  }
  *out = CrashRequest{String(r.getNodeId()), String(signature),     String(r.getKind()),
                      Bytes(r.getInput()),   String(r.getReport()), r.getMinimized()};
  return std::nullopt;
}

std::optional<DecodeError> ReadPushCrash(M::Reader m, const ControllerLimits& limits,
                                         PushCrashRequest* out) {
  auto r = m.getPushCrash();
  if (auto e = CheckNode(r.getNodeId(), limits)) return e;
  if (Status s = CheckSafeName("campaign name", View(r.getCampaign())); !s.ok()) {
    return InvalidName(s);
  }
  // The signature names the stream's resource too (crash/<campaign>/<signature>).
  if (Status s = CheckSafeName("crash signature", View(r.getSignature())); !s.ok()) {
    return InvalidName(s);
  }
  if (r.getSignature().size() > limits.max_signature_bytes) {
    return Malformed("a crash signature has 1 to " + std::to_string(limits.max_signature_bytes) +
                     " bytes");
  }
  if (auto e = CheckText("the crash kind", r.getKind(), limits.max_name_bytes, true)) return e;
  *out = PushCrashRequest{String(r.getNodeId()), String(r.getCampaign()), String(r.getSignature()),
                          String(r.getKind()),   r.getMinimized(),        r.getStreamId()};
  return std::nullopt;
}

// A build id as node::BuildIdOf makes it: 16 lowercase hex digits.
bool IsBuildId(std::string_view id) {
  if (id.size() != 16) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::optional<DecodeError> ReadPushBuild(M::Reader m, PushBuildRequest* out) {
  auto r = m.getPushBuild();
  if (Status s = CheckSafeName("campaign name", View(r.getCampaign())); !s.ok()) {
    return InvalidName(s);
  }
  // The target names the executable on the nodes that pull it: a file name.
  if (Status s = CheckSafeName("target name", View(r.getTarget())); !s.ok()) {
    return InvalidName(s);
  }
  if (!IsBuildId(View(r.getBuildId()))) {
    return Malformed("a pushed build's id is 16 lowercase hex digits of its SHA-1, not '" +
                     String(r.getBuildId()).substr(0, 40) + "'");
  }
  *out = PushBuildRequest{String(r.getCampaign()), String(r.getTarget()), String(r.getBuildId()),
                          r.getStreamId()};
  return std::nullopt;
}

}  // namespace

void SetStats(const NodeStats& s, wire::NodeStats::Builder b) {
  b.setExecsPerSecond(s.execs_per_second);
  b.setExecutions(s.executions);
  b.setEdges(s.edges);
  b.setFeatures(s.features);
  b.setCorpusEntries(s.corpus_entries);
  b.setCrashes(s.crashes);
  b.setRssBytes(s.rss_bytes);
}

NodeStats GetStats(wire::NodeStats::Reader r) {
  return NodeStats{r.getExecsPerSecond(), r.getExecutions(), r.getEdges(),   r.getFeatures(),
                   r.getCorpusEntries(),  r.getCrashes(),    r.getRssBytes()};
}

bool IsRequestKind(M::Which which) {
  switch (which) {
    case M::REGISTER:
    case M::HEARTBEAT:
    case M::NEW_INPUTS:
    case M::CRASH:
    case M::LIST_CAMPAIGNS:
    case M::STATUS:
    case M::LIST_CRASHES:
    case M::GET_CRASH:
    case M::START_CAMPAIGN:
    case M::STOP_CAMPAIGN:
    case M::CORPUS_INFO:
    case M::MERGE_CORPUS:
    case M::STREAM:
    case M::PUSH_CORPUS:
    case M::PUSH_CRASH:
    case M::PUT_REPORT:
    case M::PUSH_BUILD:
      return true;
    default:
      return false;
  }
}

void EncodeRequestBody(const Request& request, M::Builder m) {
  struct Visitor {
    M::Builder m;
    void operator()(const RegisterRequest& r) {
      auto b = m.initRegister();
      b.setNodeId(r.node_id);
      b.setCampaign(r.campaign);
      b.setTarget(r.target);
      b.setBuildId(r.build_id);
      b.setOptions(r.options);
      b.setHost(r.host);
      b.setWorkers(r.workers);
    }
    void operator()(const HeartbeatRequest& r) {
      auto b = m.initHeartbeat();
      b.setNodeId(r.node_id);
      SetStats(r.stats, b.initStats());
      b.setLeaving(r.leaving);
    }
    void operator()(const NewInputsRequest& r) {
      auto b = m.initNewInputs();
      b.setNodeId(r.node_id);
      auto entries = b.initEntries(static_cast<unsigned>(r.entries.size()));
      for (size_t i = 0; i < r.entries.size(); i++) {
        const InputEntry& in = r.entries[i];
        auto e = entries[static_cast<unsigned>(i)];
        e.setHash(capnp::Data::Reader(in.hash.data(), in.hash.size()));
        e.setBytes(AsData(in.bytes));
        e.setFeatures(AsData(net::EncodeFeatures(in.features)));
      }
    }
    void operator()(const CrashRequest& r) {
      auto b = m.initCrash();
      b.setNodeId(r.node_id);
      b.setSignature(r.signature);
      b.setKind(r.kind);
      b.setInput(AsData(r.input));
      b.setReport(r.report);
      b.setMinimized(r.minimized);
    }
    void operator()(const ListCampaignsRequest&) { m.setListCampaigns(); }
    void operator()(const StatusRequest& r) { m.initStatus().setCampaign(r.campaign); }
    void operator()(const ListCrashesRequest& r) {
      auto b = m.initListCrashes();
      WriteRef(r.campaign, b.initCampaign());
      b.setAfter(r.after);
    }
    void operator()(const GetCrashRequest& r) {
      auto b = m.initGetCrash();
      WriteRef(r.campaign, b.initCampaign());
      b.setSignature(r.signature);
    }
    void operator()(const StartCampaignRequest& r) { WriteRef(r.campaign, m.initStartCampaign()); }
    void operator()(const StopCampaignRequest& r) { WriteRef(r.campaign, m.initStopCampaign()); }
    void operator()(const CorpusInfoRequest& r) { WriteRef(r.campaign, m.initCorpusInfo()); }
    void operator()(const MergeCorpusRequest& r) { WriteRef(r.campaign, m.initMergeCorpus()); }
    void operator()(const PushCorpusRequest& r) {
      auto b = m.initPushCorpus();
      WriteRef(r.campaign, b.initCampaign());
      b.setPushId(r.push_id);
      b.setStreamId(r.stream_id);
    }
    void operator()(const StreamRequest& r) { transfer::ToCapnp(r.message, m.initStream()); }
    void operator()(const PushBuildRequest& r) {
      auto b = m.initPushBuild();
      b.setCampaign(r.campaign);
      b.setTarget(r.target);
      b.setBuildId(r.build_id);
      b.setStreamId(r.stream_id);
    }
    void operator()(const PushCrashRequest& r) {
      auto b = m.initPushCrash();
      b.setNodeId(r.node_id);
      b.setCampaign(r.campaign);
      b.setSignature(r.signature);
      b.setKind(r.kind);
      b.setMinimized(r.minimized);
      b.setStreamId(r.stream_id);
    }
    void operator()(const PutReportRequest& r) {
      auto b = m.initPutReport();
      b.setCampaign(r.campaign);
      b.setNight(r.night);
      auto files = b.initFiles(static_cast<unsigned>(r.files.size()));
      for (size_t i = 0; i < r.files.size(); i++) {
        files[i].setName(r.files[i].name);
        files[i].setData(capnp::Data::Reader(
            reinterpret_cast<const capnp::byte*>(r.files[i].data.data()), r.files[i].data.size()));
      }
    }
  };
  std::visit(Visitor{m}, request);
}

std::optional<DecodeError> DecodeRequestBody(M::Reader m, const ControllerLimits& limits,
                                             Request* out, std::string_view* chunk_data) {
  switch (m.which()) {
    case M::REGISTER: {
      RegisterRequest r;
      if (auto e = ReadRegister(m, limits, &r)) return e;
      *out = std::move(r);
      return std::nullopt;
    }
    case M::HEARTBEAT: {
      auto h = m.getHeartbeat();
      if (auto e = CheckNode(h.getNodeId(), limits)) return e;
      *out = HeartbeatRequest{String(h.getNodeId()), GetStats(h.getStats()), h.getLeaving()};
      return std::nullopt;
    }
    case M::NEW_INPUTS: {
      NewInputsRequest r;
      if (auto e = ReadInputs(m, limits, &r)) return e;
      *out = std::move(r);
      return std::nullopt;
    }
    case M::CRASH: {
      CrashRequest r;
      if (auto e = ReadCrash(m, limits, &r)) return e;
      *out = std::move(r);
      return std::nullopt;
    }
    case M::LIST_CAMPAIGNS:
      *out = ListCampaignsRequest{};
      return std::nullopt;
    case M::STATUS: {
      auto campaign = m.getStatus().getCampaign();
      if (campaign.size() > 0) {
        if (Status s = CheckSafeName("campaign name", View(campaign)); !s.ok()) {
          return InvalidName(s);
        }
      }
      *out = StatusRequest{String(campaign)};
      return std::nullopt;
    }
    case M::LIST_CRASHES: {
      auto r = m.getListCrashes();
      ListCrashesRequest request;
      if (auto e = ReadRef(r.getCampaign(), &request.campaign)) return e;
      if (r.getAfter().size() > limits.max_signature_bytes) return Malformed("`after` is too long");
      request.after = String(r.getAfter());
      *out = std::move(request);
      return std::nullopt;
    }
    case M::GET_CRASH: {
      auto r = m.getGetCrash();
      GetCrashRequest request;
      if (auto e = ReadRef(r.getCampaign(), &request.campaign)) return e;
      auto signature = r.getSignature();
      if (signature.size() == 0 || signature.size() > limits.max_signature_bytes) {
        return Malformed("a crash signature has 1 to " +
                         std::to_string(limits.max_signature_bytes) + " bytes");
      }
      request.signature = String(signature);
      *out = std::move(request);
      return std::nullopt;
    }
    case M::START_CAMPAIGN: {
      StartCampaignRequest request;
      if (auto e = ReadRef(m.getStartCampaign(), &request.campaign)) return e;
      *out = std::move(request);
      return std::nullopt;
    }
    case M::STOP_CAMPAIGN: {
      StopCampaignRequest request;
      if (auto e = ReadRef(m.getStopCampaign(), &request.campaign)) return e;
      *out = std::move(request);
      return std::nullopt;
    }
    case M::CORPUS_INFO: {
      CorpusInfoRequest request;
      if (auto e = ReadRef(m.getCorpusInfo(), &request.campaign)) return e;
      *out = std::move(request);
      return std::nullopt;
    }
    case M::MERGE_CORPUS: {
      MergeCorpusRequest request;
      if (auto e = ReadRef(m.getMergeCorpus(), &request.campaign)) return e;
      *out = std::move(request);
      return std::nullopt;
    }
    case M::PUSH_CORPUS: {
      auto r = m.getPushCorpus();
      PushCorpusRequest request;
      if (auto e = ReadRef(r.getCampaign(), &request.campaign)) return e;
      if (Status s = CheckSafeName("push id", View(r.getPushId())); !s.ok()) return InvalidName(s);
      request.push_id = String(r.getPushId());
      request.stream_id = r.getStreamId();
      *out = std::move(request);
      return std::nullopt;
    }
    case M::PUSH_CRASH: {
      PushCrashRequest request;
      if (auto e = ReadPushCrash(m, limits, &request)) return e;
      *out = std::move(request);
      return std::nullopt;
    }
    case M::PUSH_BUILD: {
      PushBuildRequest request;
      if (auto e = ReadPushBuild(m, &request)) return e;
      *out = std::move(request);
      return std::nullopt;
    }
    case M::PUT_REPORT: {
      auto r = m.getPutReport();
      PutReportRequest request;
      if (Status s = CheckSafeName("campaign name", View(r.getCampaign())); !s.ok()) {
        return InvalidName(s);
      }
      if (Status s = CheckNightName(View(r.getNight())); !s.ok()) return InvalidName(s);
      request.campaign = String(r.getCampaign());
      request.night = String(r.getNight());
      if (r.getFiles().size() > kMaxReportFiles) {
        return Malformed("a report has at most " + std::to_string(kMaxReportFiles) + " files");
      }
      for (auto f : r.getFiles()) {
        if (f.getName().size() > kMaxReportFileName)
          return Malformed("a report file name is too long");
        if (Status s = CheckSafeName("report file name", View(f.getName())); !s.ok()) {
          return InvalidName(s);
        }
        auto data = f.getData();
        request.files.push_back(
            {String(f.getName()),
             std::string(reinterpret_cast<const char*>(data.begin()), data.size())});
      }
      *out = std::move(request);
      return std::nullopt;
    }
    case M::STREAM: {
      StreamRequest request;
      if (Status s =
              transfer::FromCapnp(m.getStream(), limits.stream, &request.message, chunk_data);
          !s.ok()) {
        return Malformed(s.message());
      }
      *out = std::move(request);
      return std::nullopt;
    }
    default:
      return Malformed("not a request");  // the caller checked IsRequestKind: a bug
  }
}

}  // namespace pollen::controller::fields
