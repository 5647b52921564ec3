#include "controller/client/controller_codec.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cstring>

#include "controller/client/message_fields.h"

namespace pollen::controller {
namespace {

using M = wire::ControllerMessage;

// The root of a message being built, with what every message carries: the protocol
// version and the request it belongs to.
M::Builder InitEnvelope(capnp::MessageBuilder& builder, uint64_t request_id) {
  auto m = builder.initRoot<M>();
  m.setProtocolVersion(wire::CONTROLLER_PROTOCOL_VERSION);
  m.setRequestId(request_id);
  return m;
}

std::vector<uint8_t> Flatten(capnp::MallocMessageBuilder& builder) {
  kj::Array<capnp::word> flat = capnp::messageToFlatArray(builder);
  auto bytes = flat.asBytes();
  return {bytes.begin(), bytes.end()};
}

capnp::ReaderOptions Limits(size_t words) {
  capnp::ReaderOptions options;
  // Every field is read at most twice (validation, then the copy): a message that aliases
  // pointers to amplify reads hits the limit instead of costing unbounded time.
  options.traversalLimitInWords = words * 4 + 1024;
  options.nestingLimit = 8;
  return options;
}

// Opens words, checks the version, and calls decode(root) for the body.
template <typename Decoded, typename Fn>
std::variant<Decoded, DecodeError> Open(kj::ArrayPtr<const capnp::word> words, Fn decode) {
  uint64_t request_id = 0;
  try {
    capnp::FlatArrayMessageReader reader(words, Limits(words.size()));
    M::Reader m = reader.getRoot<M>();
    request_id = m.getRequestId();
    if (m.getProtocolVersion() != wire::CONTROLLER_PROTOCOL_VERSION) {
      return DecodeError{ErrorCode::kWrongVersion,
                         "protocol version " + std::to_string(m.getProtocolVersion()) +
                             "; this side speaks version " +
                             std::to_string(wire::CONTROLLER_PROTOCOL_VERSION),
                         request_id};
    }
    Decoded out;
    out.request_id = request_id;
    if (std::optional<DecodeError> error = decode(m, &out)) {
      error->request_id = request_id;
      return *std::move(error);
    }
    return out;
  } catch (const kj::Exception& e) {
    return DecodeError{ErrorCode::kMalformed,
                       "not a valid controller message (" +
                           std::string(e.getDescription().cStr()).substr(0, 200) + ")",
                       request_id};
  }
}

}  // namespace

const char* ErrorCodeName(ErrorCode code) {
  static constexpr const char* kNames[kNumErrorCodes] = {
      "malformed", "wrong_version", "invalid_name", "unknown_campaign", "unknown_node", "conflict",
      "too_large", "not_found",     "storage",      "unimplemented",    "not_a_request"};
  size_t i = static_cast<size_t>(code);
  return i < kNumErrorCodes ? kNames[i] : "?";
}

std::vector<uint8_t> ControllerCodec::EncodeRequest(uint64_t request_id, const Request& request) {
  capnp::MallocMessageBuilder builder;
  fields::EncodeRequestBody(request, InitEnvelope(builder, request_id));
  return Flatten(builder);
}

std::vector<uint8_t> ControllerCodec::EncodeReply(uint64_t request_id, const Reply& reply) {
  capnp::MallocMessageBuilder builder;
  fields::EncodeReplyBody(reply, InitEnvelope(builder, request_id));
  return Flatten(builder);
}

void ControllerCodec::EncodeStream(uint64_t request_id, const transfer::StreamMessage& message,
                                   std::string* out) {
  transfer::EncodeWrappedStreamMessage(
      message,
      [request_id](capnp::MessageBuilder& builder) {
        return InitEnvelope(builder, request_id).initStream();
      },
      out);
}

std::optional<DecodeError> ControllerCodec::Load(const void* data, size_t size) {
  if (size > limits_.max_message_bytes) {
    return DecodeError{ErrorCode::kTooLarge,
                       "a message of " + std::to_string(size) + " bytes is over the limit of " +
                           std::to_string(limits_.max_message_bytes),
                       0};
  }
  if (size == 0 || size % sizeof(capnp::word) != 0) {
    return fields::Malformed("not a controller message: " + std::to_string(size) +
                             " bytes is not a whole number of words");
  }
  // Cap'n Proto reads words in place: an aligned frame (libzmq's usually are) is read where
  // it is, another is copied into words_ first.
  if (reinterpret_cast<uintptr_t>(data) % alignof(capnp::word) == 0) {
    loaded_ = kj::arrayPtr(static_cast<const capnp::word*>(data), size / sizeof(capnp::word));
    return std::nullopt;
  }
  words_.resize(size / sizeof(capnp::word));
  std::memcpy(words_.data(), data, size);
  loaded_ = kj::arrayPtr(reinterpret_cast<const capnp::word*>(words_.data()), words_.size());
  return std::nullopt;
}

std::variant<DecodedRequest, DecodeError> ControllerCodec::DecodeRequest(const void* data,
                                                                         size_t size) {
  if (auto error = Load(data, size)) return *std::move(error);
  return Open<DecodedRequest>(
      loaded_, [&](M::Reader m, DecodedRequest* out) -> std::optional<DecodeError> {
        if (static_cast<int>(m.which()) > static_cast<int>(M::PUSH_BUILD)) {  // the newest
          return DecodeError{ErrorCode::kUnimplemented,
                             "message kind " + std::to_string(static_cast<int>(m.which())) +
                                 " is newer than this controller",
                             0};
        }
        if (!fields::IsRequestKind(m.which())) {
          return DecodeError{ErrorCode::kNotARequest, "a reply was sent to the controller", 0};
        }
        return fields::DecodeRequestBody(m, limits_, &out->request, &out->chunk_data);
      });
}

std::variant<DecodedReply, DecodeError> ControllerCodec::DecodeReply(const void* data,
                                                                     size_t size) {
  if (auto error = Load(data, size)) return *std::move(error);
  return Open<DecodedReply>(loaded_, [&](M::Reader m, DecodedReply* out) {
    return fields::DecodeReplyBody(m, limits_, &out->reply, &out->chunk_data);
  });
}

}  // namespace pollen::controller
