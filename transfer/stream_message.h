// The messages of a NamedByteSequence stream (schema/transfer.capnp, docs/transfer.md) as
// plain values, and their conversion to and from Cap'n Proto.
//
//   receiver                                sender
//     open {resource, resumeAfter, credit} ──►
//                                         ◄── chunk {seq 0, data}      (at most `credit`
//     credit {n}                          ──►                           chunks in flight)
//                                         ◄── chunk {seq k, data, last}
//     end {records, bytes, chunks}        ──►
//   either side, at any time: error {text}, after which nothing more is sent on the stream
//
// Another protocol may carry these inside its own messages (the controller's union): use
// ToCapnp/FromCapnp on its schema::StreamMessage field. On its own, a message travels as one
// Cap'n Proto flat array (EncodeStreamMessage/DecodeStreamMessage).
#ifndef POLLEN_TRANSFER_STREAM_MESSAGE_H_
#define POLLEN_TRANSFER_STREAM_MESSAGE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>

#include "base/status.h"
#include "schema/transfer.capnp.h"
#include "transfer/record_codec.h"

namespace capnp {
class MessageBuilder;
}  // namespace capnp

namespace pollen::transfer {

// Bounds on the fields that are not record names or chunks.
inline constexpr size_t kMaxResourceBytes = 1024;
inline constexpr size_t kMaxErrorTextBytes = 4096;

struct StreamOpen {
  uint64_t stream_id = 0;
  std::string resource;      // what to send; its meaning is the sender's; at most 1 KiB
  std::string resume_after;  // send only names greater than this (byte order); "" = all
  uint32_t credit = 0;       // chunks the receiver accepts now
};

// A slice of the record stream: bytes [seq * chunk size, ...). Chunk boundaries are
// independent of record boundaries; `last` is set on the final chunk only.
struct StreamChunk {
  uint64_t stream_id = 0;
  uint64_t seq = 0;
  std::string data;
  bool last = false;
};

// A chunk whose data stays where it was received (in a decoded message): what a receiver
// reads without copying it. Valid as long as that message.
struct StreamChunkView {
  uint64_t stream_id = 0;
  uint64_t seq = 0;
  std::string_view data;
  bool last = false;
};

struct StreamCredit {
  uint64_t stream_id = 0;
  uint32_t chunks = 0;
};

// The receiver's acknowledgement after the last chunk: what it committed.
struct StreamEnd {
  uint64_t stream_id = 0;
  uint64_t records = 0;
  uint64_t bytes = 0;  // record data bytes
  uint64_t chunks = 0;
};

struct StreamError {
  uint64_t stream_id = 0;
  std::string text;  // at most kMaxErrorTextBytes (longer texts are cut by ToCapnp)
};

using StreamMessage = std::variant<StreamOpen, StreamChunk, StreamCredit, StreamEnd, StreamError>;

// The stream a message belongs to.
uint64_t StreamIdOf(const StreamMessage& message);

// Counts kept by both ends of a stream.
struct TransferCounters {
  uint64_t records = 0;
  uint64_t record_bytes = 0;  // data bytes of the records
  uint64_t stream_bytes = 0;  // bytes of the record stream (headers, names and data)
  uint64_t chunks = 0;
};

// Fills `out` with `message` (an open is stamped with the current protocol version). Cap'n
// Proto may throw kj::Exception only if `out`'s message cannot grow (never with a
// MallocMessageBuilder).
void ToCapnp(const StreamMessage& message, schema::StreamMessage::Builder out);

// Reads and checks a message from an untrusted peer: a union member this version knows, an
// open of the current protocol version, the resource and error text within their bounds,
// a resume cursor that is "" or a valid record name, a chunk of at most
// limits.max_chunk_bytes. Never throws: Cap'n Proto's exceptions (a message cut short, a
// pointer out of bounds, the traversal limit of its reader) become errors.
Result<StreamMessage> FromCapnp(schema::StreamMessage::Reader in, const StreamLimits& limits = {});

// FromCapnp for a receiver that reads chunks in place: a chunk's data is left in the message
// `in` belongs to and *chunk_data points to it (the chunk's own data is then empty), valid as
// long as that message. Other kinds as FromCapnp. For a protocol that carries stream
// messages inside its own (the controller's). Never throws.
Status FromCapnp(schema::StreamMessage::Reader in, const StreamLimits& limits, StreamMessage* out,
                 std::string_view* chunk_data);

// EncodeStreamMessage for a message carried inside another protocol's root: `init_root`
// initialises that root in the builder it is given and returns the builder of its
// StreamMessage field, which gets `message`. As with EncodeStreamMessage, a chunk's data is
// referenced by the builder, not copied, and copied once into *out, whose memory is reused.
// `init_root` may throw kj::Exception only as ToCapnp may.
void EncodeWrappedStreamMessage(
    const StreamMessage& message,
    const std::function<schema::StreamMessage::Builder(capnp::MessageBuilder&)>& init_root,
    std::string* out);

// Writes `message` to *out as a Cap'n Proto flat array with a StreamMessage root (one
// ZeroMQ frame), replacing its contents but reusing its memory: encoding a chunk into a
// buffer that held one before allocates nothing and copies the chunk's data once.
void EncodeStreamMessage(const StreamMessage& message, std::string* out);
std::string EncodeStreamMessage(const StreamMessage& message);

// The largest encoding a receiver with `limits` reads: a full chunk and the framing.
size_t MaxEncodedStreamMessageBytes(const StreamLimits& limits);

// Decodes bytes[0, size) as written by EncodeStreamMessage (any alignment), with a
// traversal limit proportional to the size, then checks it as FromCapnp does. Never throws.
// The second form decodes into *out, reusing the memory of a chunk it held before; on error
// *out is unspecified.
Result<StreamMessage> DecodeStreamMessage(const void* bytes, size_t size,
                                          const StreamLimits& limits = {});
Status DecodeStreamMessage(const void* bytes, size_t size, const StreamLimits& limits,
                           StreamMessage* out);

// Like the above, except that a chunk's data is not copied when `bytes` is word-aligned
// (libzmq's frames usually are): then *out holds the chunk with empty data and
// *chunk_data points into `bytes`. Otherwise *chunk_data points to the data in *out.
Status DecodeStreamMessage(const void* bytes, size_t size, const StreamLimits& limits,
                           StreamMessage* out, std::string_view* chunk_data);

}  // namespace pollen::transfer

#endif  // POLLEN_TRANSFER_STREAM_MESSAGE_H_
