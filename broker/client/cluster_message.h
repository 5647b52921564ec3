// The cluster messages as plain C++ values (schema/cluster.capnp on the wire).
//
// A node builds one of these to publish, and gets one back, fully validated and copied out of
// the wire buffer, for each message it receives (broker/message_codec.h).
#ifndef POLLEN_BROKER_CLIENT_CLUSTER_MESSAGE_H_
#define POLLEN_BROKER_CLIENT_CLUSTER_MESSAGE_H_

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "base/digest.h"

namespace pollen::broker {

// A content hash is a base::Digest (base/digest.h), the corpus key everywhere.
inline constexpr size_t kHashSize = sizeof(base::Digest);

// The topic. Nodes exchange messages only within one campaign.
struct Campaign {
  std::string target;    // the target's name
  std::string build_id;  // the build of the binary

  // One string that identifies the campaign (target and build id, NUL-separated).
  std::string Key() const { return target + '\0' + build_id; }
  bool operator==(const Campaign&) const = default;
};

// Fields every message carries. `session` and `seq` are filled in by the sending client.
struct MessageHeader {
  Campaign campaign;
  std::string origin;  // the sending node's id
  uint64_t session = 0;
  uint64_t seq = 0;
  std::string to_node;  // empty: the whole campaign
};

struct NewInput {
  base::Digest hash{};
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> features;  // ascending
};

struct CoverageDelta {
  std::vector<uint32_t> features;  // ascending: new since the previous delta
  uint64_t total_features = 0;
};

struct CrashReport {
  std::string signature;
  std::string kind;
  base::Digest input_hash{};
  std::vector<uint8_t> input;  // may be empty (too large to send)
};

struct NodeStats {
  uint64_t executions = 0;
  uint64_t execs_per_second = 0;
  uint64_t corpus_entries = 0;
  uint64_t features = 0;
  uint64_t crashes = 0;
  uint64_t inputs_sent = 0;
  uint64_t inputs_received = 0;
  uint64_t inputs_kept = 0;
};

struct CorpusDigest {
  uint64_t corpus_size = 0;
  uint64_t first_index = 0;
  std::vector<base::Digest> hashes;  // ascending
};

struct MissingRequest {
  std::vector<base::Digest> hashes;
};

// Exactly one body per message; the body's type is the message's kind (NodeStats: heartbeat).
using MessageBody =
    std::variant<NewInput, CoverageDelta, CrashReport, NodeStats, CorpusDigest, MissingRequest>;

struct ClusterMessage {
  MessageHeader header;
  MessageBody body;
};

// The kinds, in the order of the variant above and of the schema's union.
enum class MessageKind : uint8_t {
  kNewInput,
  kCoverageDelta,
  kCrash,
  kHeartbeat,
  kDigest,
  kMissingRequest,
};

inline MessageKind KindOf(const ClusterMessage& m) {
  return static_cast<MessageKind>(m.body.index());
}

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_CLIENT_CLUSTER_MESSAGE_H_
