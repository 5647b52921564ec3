// Requests and replies to and from their wire form: one ControllerMessage per ZeroMQ frame
// (schema/controller.capnp), an unpacked Cap'n Proto flat array.
//
// Decoding is where untrusted bytes stop. The frame is read in place when it is word-aligned,
// else copied into a word-aligned buffer (ZeroMQ frames need not be aligned; the buffer is
// reused), opened with a traversal limit of
// 4x its words and a nesting limit of 8, and every field is checked against ControllerLimits
// before it is copied out: name rules (controller/client/safe_name.h), sizes, feature encodings,
// and each input's SHA-1 against its bytes. Cap'n Proto's exceptions stop here; what fails
// is a DecodeError carrying the error code and message to reply with.
//
// Thread safety: a codec is used by one thread at a time (it owns the decoding buffer).
#ifndef POLLEN_CONTROLLER_CLIENT_CONTROLLER_CODEC_H_
#define POLLEN_CONTROLLER_CLIENT_CONTROLLER_CODEC_H_

#include <capnp/common.h>
#include <kj/common.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "controller/client/controller_message.h"

namespace pollen::controller {

// Why a frame could not be decoded. `request_id` is the frame's when it could be read (so
// the error reply reaches the right request), else 0.
struct DecodeError {
  ErrorCode code = ErrorCode::kMalformed;
  std::string message;
  uint64_t request_id = 0;
};

// When the message is a stream chunk, its data is not copied out: `chunk_data` points to it
// in the frame given to the codec, or in the codec's buffer when that frame was not
// word-aligned (the chunk's own data is empty): valid while the frame is, until the codec
// decodes again.
struct DecodedRequest {
  uint64_t request_id = 0;
  Request request;
  std::string_view chunk_data;
};

struct DecodedReply {
  uint64_t request_id = 0;
  Reply reply;
  std::string_view chunk_data;
};

class ControllerCodec {
 public:
  explicit ControllerCodec(const ControllerLimits& limits) : limits_(limits) {}

  // The frame of a request or a reply, stamped with the current protocol version. Does not
  // check sizes: compare the result with limits().max_message_bytes before sending.
  static std::vector<uint8_t> EncodeRequest(uint64_t request_id, const Request& request);
  static std::vector<uint8_t> EncodeReply(uint64_t request_id, const Reply& reply);

  // The frame of a stream message, either way, into *out (its memory reused): a chunk's data
  // is copied once, straight into the frame. The hot path of streams; EncodeRequest and
  // EncodeReply take stream messages too, with more copies.
  static void EncodeStream(uint64_t request_id, const transfer::StreamMessage& message,
                           std::string* out);

  // Validates and decodes data[0, size), a frame sent to the controller. Never throws.
  std::variant<DecodedRequest, DecodeError> DecodeRequest(const void* data, size_t size);

  // Validates and decodes a frame sent to a client. Never throws.
  std::variant<DecodedReply, DecodeError> DecodeReply(const void* data, size_t size);

  const ControllerLimits& limits() const { return limits_; }

 private:
  // Points loaded_ at the frame, copied into words_ when it is not word-aligned (size checks
  // first); an error when it cannot be a message.
  std::optional<DecodeError> Load(const void* data, size_t size);

  ControllerLimits limits_;
  std::vector<uint64_t> words_;
  kj::ArrayPtr<const capnp::word> loaded_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CLIENT_CONTROLLER_CODEC_H_
