#include "controller/registry_records.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cstring>

#include "controller/client/message_fields.h"
#include "schema/controller.capnp.h"

namespace pollen::controller {
namespace {

using fields::String;

template <typename Schema, typename Fill>
std::string Encode(Fill fill) {
  capnp::MallocMessageBuilder builder;
  fill(builder.initRoot<Schema>());
  kj::Array<capnp::word> flat = capnp::messageToFlatArray(builder);
  auto bytes = flat.asBytes();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

template <typename Schema, typename T, typename Read>
Result<T> Decode(std::string_view bytes, const char* what, Read read) {
  if (bytes.empty() || bytes.size() % sizeof(capnp::word) != 0) {
    return Status::Error(StatusCode::kInvalid, std::string("not a ") + what + " record (" +
                                                   std::to_string(bytes.size()) + " bytes)");
  }
  std::vector<capnp::word> words(bytes.size() / sizeof(capnp::word));
  std::memcpy(words.data(), bytes.data(), bytes.size());
  capnp::ReaderOptions options;
  options.traversalLimitInWords = words.size() * 4 + 1024;
  options.nestingLimit = 8;
  try {
    capnp::FlatArrayMessageReader reader(kj::arrayPtr(words.data(), words.size()), options);
    return read(reader.getRoot<Schema>());
  } catch (const kj::Exception& e) {
    return Status::Error(StatusCode::kInvalid,
                         std::string("not a ") + what + " record: " + e.getDescription().cStr());
  }
}

}  // namespace

std::string EncodeCampaignRecord(const CampaignRecord& r) {
  return Encode<wire::CampaignRecord>([&](wire::CampaignRecord::Builder b) {
    b.setName(r.name);
    b.setTarget(r.target);
    b.setCurrentBuild(r.current_build);
    auto builds = b.initBuilds(static_cast<unsigned>(r.builds.size()));
    for (size_t i = 0; i < r.builds.size(); i++) {
      auto out = builds[static_cast<unsigned>(i)];
      out.setBuildId(r.builds[i].build_id);
      out.setFirstSeenUnixMs(r.builds[i].first_seen_unix_ms);
      out.setLastSeenUnixMs(r.builds[i].last_seen_unix_ms);
    }
    b.setOptions(r.options);
    b.setStopped(r.stopped);
    b.setCreatedUnixMs(r.created_unix_ms);
    b.setAssignedBuild(r.assigned_build);
  });
}

Result<CampaignRecord> DecodeCampaignRecord(std::string_view bytes) {
  return Decode<wire::CampaignRecord,
                CampaignRecord>(bytes, "campaign", [](wire::CampaignRecord::Reader r) {
    CampaignRecord out;
    out.name = String(r.getName());
    out.target = String(r.getTarget());
    out.current_build = String(r.getCurrentBuild());
    for (auto b : r.getBuilds()) {
      out.builds.push_back({String(b.getBuildId()), b.getFirstSeenUnixMs(), b.getLastSeenUnixMs()});
    }
    out.options = String(r.getOptions());
    out.stopped = r.getStopped();
    out.created_unix_ms = r.getCreatedUnixMs();
    out.assigned_build = String(r.getAssignedBuild());
    return out;
  });
}

std::string EncodeNodeRecord(const NodeRecord& r) {
  return Encode<wire::NodeRecord>([&](wire::NodeRecord::Builder b) {
    b.setNodeId(r.node_id);
    b.setCampaign(r.campaign);
    b.setBuildId(r.build_id);
    b.setHost(r.host);
    b.setWorkers(r.workers);
    b.setRegisteredUnixMs(r.registered_unix_ms);
    b.setLastSeenUnixMs(r.last_seen_unix_ms);
    fields::SetStats(r.stats, b.initStats());
    b.setLeft(r.left);
  });
}

Result<NodeRecord> DecodeNodeRecord(std::string_view bytes) {
  return Decode<wire::NodeRecord, NodeRecord>(bytes, "node", [](wire::NodeRecord::Reader r) {
    return NodeRecord{String(r.getNodeId()),
                      String(r.getCampaign()),
                      String(r.getBuildId()),
                      String(r.getHost()),
                      r.getWorkers(),
                      r.getRegisteredUnixMs(),
                      r.getLastSeenUnixMs(),
                      fields::GetStats(r.getStats()),
                      r.getLeft()};
  });
}

std::string EncodeCrashState(const CrashState& s) {
  return Encode<wire::CrashState>([&](wire::CrashState::Builder b) {
    b.setMinimized(s.minimized);
    auto reporters = b.initReporters(static_cast<unsigned>(s.reporters.size()));
    for (size_t i = 0; i < s.reporters.size(); i++) {
      reporters.set(static_cast<unsigned>(i), fields::AsText(s.reporters[i]));
    }
  });
}

Result<CrashState> DecodeCrashState(std::string_view bytes) {
  return Decode<wire::CrashState, CrashState>(bytes, "crash state", [](wire::CrashState::Reader r) {
    CrashState out;
    out.minimized = r.getMinimized();
    for (auto id : r.getReporters()) out.reporters.push_back(String(id));
    return out;
  });
}

}  // namespace pollen::controller
