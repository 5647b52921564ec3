#include "broker/client/message_codec.h"

#include <capnp/message.h>
#include <kj/exception.h>

#include <cstring>

#include "net/feature_codec.h"
#include "schema/capnp_fields.h"

namespace pollen::broker {
namespace {

using schema::AsData;
using schema::Bytes;
using schema::String;

capnp::Data::Reader AsData(const base::Digest& hash) { return AsData(hash.data(), hash.size()); }

std::vector<uint8_t> ConcatHashes(const std::vector<base::Digest>& hashes) {
  std::vector<uint8_t> out(hashes.size() * kHashSize);
  for (size_t i = 0; i < hashes.size(); i++) {
    std::memcpy(&out[i * kHashSize], hashes[i].data(), kHashSize);
  }
  return out;
}

std::vector<base::Digest> SplitHashes(capnp::Data::Reader data) {
  std::vector<base::Digest> out(data.size() / kHashSize);
  for (size_t i = 0; i < out.size(); i++) {
    std::memcpy(out[i].data(), data.begin() + i * kHashSize, kHashSize);
  }
  return out;
}

std::vector<uint32_t> Features(capnp::Data::Reader data, size_t max) {
  std::vector<uint32_t> out;
  net::DecodeFeatures(data.begin(), data.size(), max, &out);  // validated by MessageReader
  return out;
}

void EncodeBody(const ClusterMessage& message, schema::ClusterMessage::Builder m) {
  struct Visitor {
    schema::ClusterMessage::Builder m;
    void operator()(const NewInput& in) {
      auto b = m.initNewInput();
      b.setHash(AsData(in.hash));
      b.setBytes(AsData(in.bytes));
      b.setFeatures(AsData(net::EncodeFeatures(in.features)));
    }
    void operator()(const CoverageDelta& delta) {
      auto b = m.initCoverageDelta();
      b.setFeatures(AsData(net::EncodeFeatures(delta.features)));
      b.setTotalFeatures(delta.total_features);
    }
    void operator()(const CrashReport& crash) {
      auto b = m.initCrash();
      b.setSignature(crash.signature);
      b.setKind(crash.kind);
      b.setInputHash(AsData(crash.input_hash));
      b.setInput(AsData(crash.input));
    }
    void operator()(const NodeStats& s) {
      auto b = m.initHeartbeat();
      b.setExecutions(s.executions);
      b.setExecsPerSecond(s.execs_per_second);
      b.setCorpusEntries(s.corpus_entries);
      b.setFeatures(s.features);
      b.setCrashes(s.crashes);
      b.setInputsSent(s.inputs_sent);
      b.setInputsReceived(s.inputs_received);
      b.setInputsKept(s.inputs_kept);
    }
    void operator()(const CorpusDigest& digest) {
      auto b = m.initDigest();
      b.setCorpusSize(digest.corpus_size);
      b.setFirstIndex(digest.first_index);
      b.setHashes(AsData(ConcatHashes(digest.hashes)));
    }
    void operator()(const MissingRequest& request) {
      m.initMissingRequest().setHashes(AsData(ConcatHashes(request.hashes)));
    }
  };
  std::visit(Visitor{m}, message.body);
}

// Copies the message of reader's last successful Read into `out`. Every field was checked
// by that Read.
void CopyOut(MessageReader& reader, ClusterMessage* out) {
  auto m = reader.root();
  const size_t max_features = reader.limits().max_features;
  MessageHeader& h = out->header;
  h.campaign.target = String(m.getCampaign().getTarget());
  h.campaign.build_id = String(m.getCampaign().getBuildId());
  h.origin = String(m.getOrigin());
  h.session = m.getSession();
  h.seq = m.getSeq();
  h.to_node = String(m.getToNode());
  switch (m.which()) {
    case schema::ClusterMessage::NEW_INPUT: {
      auto b = m.getNewInput();
      NewInput in;
      std::memcpy(in.hash.data(), b.getHash().begin(), kHashSize);
      in.bytes = Bytes(b.getBytes());
      in.features = Features(b.getFeatures(), max_features);
      out->body = std::move(in);
      return;
    }
    case schema::ClusterMessage::COVERAGE_DELTA: {
      auto b = m.getCoverageDelta();
      out->body = CoverageDelta{Features(b.getFeatures(), max_features), b.getTotalFeatures()};
      return;
    }
    case schema::ClusterMessage::CRASH: {
      auto b = m.getCrash();
      CrashReport crash{String(b.getSignature()), String(b.getKind()), {}, Bytes(b.getInput())};
      if (b.getInputHash().size() == kHashSize) {
        std::memcpy(crash.input_hash.data(), b.getInputHash().begin(), kHashSize);
      }
      out->body = std::move(crash);
      return;
    }
    case schema::ClusterMessage::HEARTBEAT: {
      auto b = m.getHeartbeat();
      out->body = NodeStats{b.getExecutions(),     b.getExecsPerSecond(), b.getCorpusEntries(),
                            b.getFeatures(),       b.getCrashes(),        b.getInputsSent(),
                            b.getInputsReceived(), b.getInputsKept()};
      return;
    }
    case schema::ClusterMessage::DIGEST: {
      auto b = m.getDigest();
      out->body = CorpusDigest{b.getCorpusSize(), b.getFirstIndex(), SplitHashes(b.getHashes())};
      return;
    }
    case schema::ClusterMessage::MISSING_REQUEST:
      out->body = MissingRequest{SplitHashes(m.getMissingRequest().getHashes())};
      return;
  }
}

}  // namespace

std::vector<uint8_t> EncodeMessage(const ClusterMessage& message) {
  capnp::MallocMessageBuilder builder;
  auto m = builder.initRoot<schema::ClusterMessage>();
  const MessageHeader& h = message.header;
  m.setProtocolVersion(schema::CLUSTER_PROTOCOL_VERSION);
  auto campaign = m.initCampaign();
  campaign.setTarget(h.campaign.target);
  campaign.setBuildId(h.campaign.build_id);
  m.setOrigin(h.origin);
  m.setSession(h.session);
  m.setSeq(h.seq);
  m.setToNode(h.to_node);
  EncodeBody(message, m);
  kj::Array<capnp::word> flat = capnp::messageToFlatArray(builder);
  auto bytes = flat.asBytes();
  return {bytes.begin(), bytes.end()};
}

std::optional<DropReason> DecodeMessage(MessageReader& reader, const void* data, size_t size,
                                        ClusterMessage* out) {
  MessageInfo info;
  std::optional<DropReason> verdict = reader.Read(data, size, &info);
  if (verdict) return verdict;
  try {
    CopyOut(reader, out);
  } catch (const kj::Exception&) {
    return DropReason::kMalformed;  // not expected after validation; never fatal all the same
  }
  return std::nullopt;
}

}  // namespace pollen::broker
