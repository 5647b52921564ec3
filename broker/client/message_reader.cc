#include "broker/client/message_reader.h"

#include <kj/exception.h>

#include <cstring>

#include "base/sha1.h"
#include "base/status.h"
#include "net/feature_codec.h"
#include "schema/capnp_fields.h"

namespace pollen::broker {
namespace {

using schema::View;

bool NameOk(capnp::Text::Reader text, size_t max, bool may_be_empty) {
  return (may_be_empty || text.size() > 0) && text.size() <= max;
}

// A list of concatenated hashes: a whole number of them, at most `max`, at least `min`.
bool HashesOk(capnp::Data::Reader data, size_t min, size_t max) {
  return data.size() % kHashSize == 0 && data.size() / kHashSize >= min &&
         data.size() / kHashSize <= max;
}

bool FeaturesOk(capnp::Data::Reader data, size_t max) {
  return net::DecodeFeatures(data.begin(), data.size(), max, nullptr);
}

base::Digest ToHash(capnp::Data::Reader data) {
  base::Digest h;
  std::memcpy(h.data(), data.begin(), kHashSize);
  return h;
}

}  // namespace

MessageReader::~MessageReader() noexcept = default;

std::optional<DropReason> MessageReader::Read(const void* data, size_t size, MessageInfo* info) {
  message_.reset();
  if (size > limits_.max_message_bytes) return DropReason::kOversized;
  if (size == 0 || size % sizeof(capnp::word) != 0) return DropReason::kMalformed;
  words_.resize(size / sizeof(capnp::word));
  std::memcpy(words_.data(), data, size);
  capnp::ReaderOptions options;
  // Every field is read at most twice (here and by DecodeMessage): a message that aliases
  // pointers to amplify reads hits the limit instead of costing unbounded time.
  options.traversalLimitInWords = words_.size() * 4 + 1024;
  options.nestingLimit = 8;
  try {
    message_.emplace(
        kj::arrayPtr(reinterpret_cast<const capnp::word*>(words_.data()), words_.size()), options);
    std::optional<DropReason> verdict = Validate(info);
    if (verdict) message_.reset();
    return verdict;
  } catch (const kj::Exception&) {
    message_.reset();
    return DropReason::kMalformed;
  }
}

schema::ClusterMessage::Reader MessageReader::root() {
  POLLEN_CHECK(message_.has_value());
  return message_->getRoot<schema::ClusterMessage>();
}

std::optional<DropReason> MessageReader::Validate(MessageInfo* info) {
  auto m = message_->getRoot<schema::ClusterMessage>();
  if (m.getProtocolVersion() != schema::CLUSTER_PROTOCOL_VERSION) return DropReason::kWrongVersion;
  if (!m.hasCampaign() || !m.hasOrigin()) return DropReason::kMalformed;
  auto campaign = m.getCampaign();
  auto target = campaign.getTarget(), build_id = campaign.getBuildId();
  auto origin = m.getOrigin(), to_node = m.getToNode();
  const size_t name = limits_.max_name_bytes;
  if (!NameOk(target, name, false) || !NameOk(build_id, name, false) ||
      !NameOk(origin, name, false) || !NameOk(to_node, name, true)) {
    return DropReason::kMalformed;
  }
  info->target = View(target);
  info->build_id = View(build_id);
  info->origin = View(origin);
  info->to_node = View(to_node);
  info->session = m.getSession();
  info->seq = m.getSeq();
  info->dedup_key.reset();
  switch (m.which()) {
    case schema::ClusterMessage::NEW_INPUT: {
      auto in = m.getNewInput();
      if (in.getHash().size() != kHashSize || !FeaturesOk(in.getFeatures(), limits_.max_features)) {
        return DropReason::kMalformed;
      }
      info->kind = MessageKind::kNewInput;
      info->dedup_key = ToHash(in.getHash());
      return std::nullopt;
    }
    case schema::ClusterMessage::COVERAGE_DELTA:
      if (!FeaturesOk(m.getCoverageDelta().getFeatures(), limits_.max_features)) {
        return DropReason::kMalformed;
      }
      info->kind = MessageKind::kCoverageDelta;
      return std::nullopt;
    case schema::ClusterMessage::CRASH: {
      auto crash = m.getCrash();
      auto signature = crash.getSignature();
      size_t hash_size = crash.getInputHash().size();
      if (!NameOk(signature, limits_.max_signature_bytes, false) ||
          !NameOk(crash.getKind(), name, true) || (hash_size != 0 && hash_size != kHashSize)) {
        return DropReason::kMalformed;
      }
      info->kind = MessageKind::kCrash;
      info->dedup_key =
          base::Sha1(reinterpret_cast<const uint8_t*>(signature.begin()), signature.size());
      return std::nullopt;
    }
    case schema::ClusterMessage::HEARTBEAT:
      m.getHeartbeat();  // a struct pointer: reading it checks its bounds
      info->kind = MessageKind::kHeartbeat;
      return std::nullopt;
    case schema::ClusterMessage::DIGEST:
      if (!HashesOk(m.getDigest().getHashes(), 0, limits_.max_hashes)) {
        return DropReason::kMalformed;
      }
      info->kind = MessageKind::kDigest;
      return std::nullopt;
    case schema::ClusterMessage::MISSING_REQUEST:
      if (!HashesOk(m.getMissingRequest().getHashes(), 1, limits_.max_hashes) ||
          to_node.size() == 0) {
        return DropReason::kMalformed;
      }
      info->kind = MessageKind::kMissingRequest;
      return std::nullopt;
  }
  return DropReason::kMalformed;  // a union member this version does not know
}

}  // namespace pollen::broker
