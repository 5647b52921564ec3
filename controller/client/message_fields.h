// The body of each kind of ControllerMessage, to and from its Cap'n Proto form (internal to
// controller/client/controller_codec.cc, split from it by direction: request_fields.cc,
// reply_fields.cc).
//
// Decoders read a message already opened with traversal and nesting limits; they check
// every field against the limits before copying it, and let Cap'n Proto's exceptions
// through to the codec, which turns them into kMalformed.
#ifndef POLLEN_CONTROLLER_CLIENT_MESSAGE_FIELDS_H_
#define POLLEN_CONTROLLER_CLIENT_MESSAGE_FIELDS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "controller/client/controller_codec.h"
#include "controller/client/controller_message.h"
#include "schema/capnp_fields.h"
#include "schema/controller.capnp.h"

namespace pollen::controller {
// The generated classes of schema/controller.capnp.
namespace wire = ::pollen::schema::controller;
}  // namespace pollen::controller

namespace pollen::controller::fields {

// True when `which` is one of the request kinds.
bool IsRequestKind(wire::ControllerMessage::Which which);

void EncodeRequestBody(const Request& request, wire::ControllerMessage::Builder m);
void EncodeReplyBody(const Reply& reply, wire::ControllerMessage::Builder m);

// Precondition: IsRequestKind(m.which()). A stream chunk's data is left in the message,
// pointed to by *chunk_data.
std::optional<DecodeError> DecodeRequestBody(wire::ControllerMessage::Reader m,
                                             const ControllerLimits& limits, Request* out,
                                             std::string_view* chunk_data);

// An error for a kind that is not a reply. A stream chunk's data as above.
std::optional<DecodeError> DecodeReplyBody(wire::ControllerMessage::Reader m,
                                           const ControllerLimits& limits, Reply* out,
                                           std::string_view* chunk_data);

// NodeStats, in heartbeats and in status replies.
void SetStats(const NodeStats& stats, wire::NodeStats::Builder b);
NodeStats GetStats(wire::NodeStats::Reader r);

// Helpers shared by both directions (schema/capnp_fields.h).
using schema::AsData;
using schema::AsText;
using schema::Bytes;
using schema::String;
using schema::View;

inline DecodeError Malformed(std::string message) {
  return DecodeError{ErrorCode::kMalformed, std::move(message), 0};
}

}  // namespace pollen::controller::fields

#endif  // POLLEN_CONTROLLER_CLIENT_MESSAGE_FIELDS_H_
