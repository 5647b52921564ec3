// Requests and replies to and from their wire form: one ControllerMessage per ZeroMQ frame
// (schema/controller.capnp), an unpacked Cap'n Proto flat array.
//
// Decoding is where untrusted bytes stop. The frame is copied into a word-aligned buffer
// (ZeroMQ frames need not be aligned; the buffer is reused), opened with a traversal limit of
// 4x its words and a nesting limit of 8, and every field is checked against ControllerLimits
// before it is copied out: name rules (controller/safe_name.h), sizes, feature encodings,
// and each input's SHA-1 against its bytes. Cap'n Proto's exceptions stop here; what fails
// is a DecodeError carrying the error code and message to reply with.
//
// Thread safety: a codec is used by one thread at a time (it owns the decoding buffer).
#ifndef POLLEN_CONTROLLER_CONTROLLER_CODEC_H_
#define POLLEN_CONTROLLER_CONTROLLER_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "controller/controller_message.h"

namespace pollen::controller {

// Why a frame could not be decoded. `request_id` is the frame's when it could be read (so
// the error reply reaches the right request), else 0.
struct DecodeError {
  ErrorCode code = ErrorCode::kMalformed;
  std::string message;
  uint64_t request_id = 0;
};

struct DecodedRequest {
  uint64_t request_id = 0;
  Request request;
};

struct DecodedReply {
  uint64_t request_id = 0;
  Reply reply;
};

class ControllerCodec {
 public:
  explicit ControllerCodec(const ControllerLimits& limits) : limits_(limits) {}

  // The frame of a request or a reply, stamped with the current protocol version. Does not
  // check sizes: compare the result with limits().max_message_bytes before sending.
  static std::vector<uint8_t> EncodeRequest(uint64_t request_id, const Request& request);
  static std::vector<uint8_t> EncodeReply(uint64_t request_id, const Reply& reply);

  // Validates and decodes data[0, size), a frame sent to the controller. Never throws.
  std::variant<DecodedRequest, DecodeError> DecodeRequest(const void* data, size_t size);

  // Validates and decodes a frame sent to a client. Never throws.
  std::variant<DecodedReply, DecodeError> DecodeReply(const void* data, size_t size);

  const ControllerLimits& limits() const { return limits_; }

 private:
  // Copies the frame into words_ (size checks first); an error when it cannot be a message.
  std::optional<DecodeError> Load(const void* data, size_t size);

  ControllerLimits limits_;
  std::vector<uint64_t> words_;
};

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CONTROLLER_CODEC_H_
