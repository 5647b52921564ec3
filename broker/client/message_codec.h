// ClusterMessage values to and from their wire form (schema/cluster.capnp).
#ifndef POLLEN_BROKER_CLIENT_MESSAGE_CODEC_H_
#define POLLEN_BROKER_CLIENT_MESSAGE_CODEC_H_

#include <cstdint>
#include <vector>

#include "broker/client/cluster_message.h"
#include "broker/client/message_reader.h"

namespace pollen::broker {

// The message as one frame's bytes (an unpacked Cap'n Proto flat array), stamped with the
// current protocol version. Feature lists are sorted on the way (feature_codec.h).
std::vector<uint8_t> EncodeMessage(const ClusterMessage& message);

// Validates data[0, size) and decodes it: nullopt and `out` filled, or why it was dropped.
std::optional<DropReason> DecodeMessage(MessageReader& reader, const void* data, size_t size,
                                        ClusterMessage* out);

}  // namespace pollen::broker

#endif  // POLLEN_BROKER_CLIENT_MESSAGE_CODEC_H_
