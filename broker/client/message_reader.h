// Validation of untrusted cluster messages, at the broker and at every node.
//
// A message arrives as the bytes of one ZeroMQ frame, which need not be 8-byte aligned. The
// reader copies them into its own word-aligned buffer (reused: no allocation per message
// once it has grown), opens them with bounded traversal and nesting, and checks every field
// the receiver will touch. Cap'n Proto's exceptions stop here and become a DropReason.
#ifndef POLLEN_BROKER_CLIENT_MESSAGE_READER_H_
#define POLLEN_BROKER_CLIENT_MESSAGE_READER_H_

#include <capnp/serialize.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "broker/client/cluster_message.h"
#include "broker/client/drop_reason.h"
#include "schema/cluster.capnp.h"

namespace pollen::broker {

// Bounds on what a message may hold. Both ends should use the same values.
struct MessageLimits {
  size_t max_message_bytes = 2 << 20;  // a 1 MiB input (pollen's largest max_len) and its features
  size_t max_name_bytes = 256;         // target, build id, node ids, crash kind
  size_t max_signature_bytes = 4096;
  size_t max_features = 1 << 20;  // per feature list
  size_t max_hashes = 4096;       // per digest page or missing request
};

// What routing needs, read from a valid message. The views point into the reader's buffer
// and stay valid until its next Read.
struct MessageInfo {
  MessageKind kind = MessageKind::kHeartbeat;
  std::string_view target;
  std::string_view build_id;
  std::string_view origin;
  std::string_view to_node;
  uint64_t session = 0;
  uint64_t seq = 0;
  // For a new input: its hash; for a crash: the SHA-1 of its signature. Otherwise unset.
  std::optional<base::Digest> dedup_key;
};

class MessageReader {
 public:
  explicit MessageReader(const MessageLimits& limits) : limits_(limits) {}
  // Cap'n Proto's readers declare throwing destructors; this one never throws.
  ~MessageReader() noexcept;
  MessageReader(const MessageReader&) = delete;
  MessageReader& operator=(const MessageReader&) = delete;

  // Copies data[0, size) and validates it. On success returns nullopt, fills `info` and
  // keeps the message for root(); otherwise returns why it must be dropped. Never throws.
  std::optional<DropReason> Read(const void* data, size_t size, MessageInfo* info);

  // The message of the last successful Read. Precondition: that Read returned nullopt.
  schema::ClusterMessage::Reader root();

  const MessageLimits& limits() const { return limits_; }

 private:
  std::optional<DropReason> Validate(MessageInfo* info);

  MessageLimits limits_;
  std::vector<uint64_t> words_;
  std::optional<capnp::FlatArrayMessageReader> message_;
};

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_CLIENT_MESSAGE_READER_H_
