#include "transfer/stream_message.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "schema/capnp_fields.h"
#include "transfer/record_name.h"

namespace pollen::transfer {
namespace {

// Room for every field of a message but a chunk's data, and the flat array's segment table.
constexpr size_t kEnvelopeBytes = 8192;
// Chunk data at least this long is referenced by the message builder instead of copied into
// it, and copied once, into the frame.
constexpr size_t kReferencedDataBytes = 256;

using schema::View;
kj::ArrayPtr<const kj::byte> Bytes(std::string_view s) {
  return {reinterpret_cast<const kj::byte*>(s.data()), s.size()};
}
capnp::Text::Reader Text(std::string_view s) { return {s.data(), s.size()}; }

void PutU32(char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = static_cast<char>(v >> (8 * i));
}

Status ReadOpen(uint64_t id, schema::StreamOpen::Reader open, const StreamLimits& limits,
                StreamMessage* out) {
  if (open.getProtocolVersion() != schema::TRANSFER_PROTOCOL_VERSION) {
    return Status::Error("stream open of protocol version " +
                         std::to_string(open.getProtocolVersion()) + "; this end speaks " +
                         std::to_string(schema::TRANSFER_PROTOCOL_VERSION));
  }
  const std::string_view resource = View(open.getResource());
  if (resource.size() > kMaxResourceBytes) {
    return Status::Error("stream open: resource of " + std::to_string(resource.size()) +
                         " bytes, more than the limit of " + std::to_string(kMaxResourceBytes));
  }
  const std::string_view resume_after = View(open.getResumeAfter());
  if (!resume_after.empty()) {
    if (Status s = ValidateRecordName(resume_after, limits.max_name_bytes); !s.ok()) {
      return Status::Error("stream open: resume cursor: " + s.message());
    }
  }
  *out = StreamOpen{id, std::string(resource), std::string(resume_after), open.getCredit()};
  return Status::Ok();
}

Status ReadChunk(uint64_t id, schema::StreamChunk::Reader chunk, const StreamLimits& limits,
                 StreamMessage* out, std::string_view* in_place) {
  const capnp::Data::Reader data = chunk.getData();
  if (data.size() > limits.max_chunk_bytes) {
    return Status::Error("stream chunk " + std::to_string(chunk.getSeq()) + " of " +
                         std::to_string(data.size()) + " bytes, more than the limit of " +
                         std::to_string(limits.max_chunk_bytes));
  }
  auto* c = std::get_if<StreamChunk>(out);
  if (c == nullptr) c = &out->emplace<StreamChunk>();  // else its buffer is reused
  c->stream_id = id;
  c->seq = chunk.getSeq();
  if (in_place != nullptr) {
    c->data.clear();
    *in_place = std::string_view(reinterpret_cast<const char*>(data.begin()), data.size());
  } else {
    c->data.assign(reinterpret_cast<const char*>(data.begin()), data.size());
  }
  c->last = chunk.getLast();
  return Status::Ok();
}

// A chunk's data is copied into *out, or left in place and pointed to by *in_place when that
// is not null.
Status Read(schema::StreamMessage::Reader in, const StreamLimits& limits, StreamMessage* out,
            std::string_view* in_place) {
  const uint64_t id = in.getStreamId();
  switch (in.which()) {
    case schema::StreamMessage::OPEN:
      return ReadOpen(id, in.getOpen(), limits, out);
    case schema::StreamMessage::CHUNK:
      return ReadChunk(id, in.getChunk(), limits, out, in_place);
    case schema::StreamMessage::CREDIT:
      *out = StreamCredit{id, in.getCredit().getChunks()};
      return Status::Ok();
    case schema::StreamMessage::END: {
      auto end = in.getEnd();
      *out = StreamEnd{id, end.getRecords(), end.getBytes(), end.getChunks()};
      return Status::Ok();
    }
    case schema::StreamMessage::ERROR: {
      const std::string_view text = View(in.getError().getText());
      if (text.size() > kMaxErrorTextBytes) {
        return Status::Error("stream error message of " + std::to_string(text.size()) +
                             " bytes, more than the limit of " +
                             std::to_string(kMaxErrorTextBytes));
      }
      *out = StreamError{id, std::string(text)};
      return Status::Ok();
    }
  }
  return Status::Error("stream message of unknown kind " +
                       std::to_string(static_cast<unsigned>(in.which())) + " (a newer peer?)");
}

Status ReadCatching(schema::StreamMessage::Reader in, const StreamLimits& limits,
                    StreamMessage* out, std::string_view* in_place = nullptr) {
  try {
    return Read(in, limits, out, in_place);
  } catch (const kj::Exception& e) {
    return Status::Error(StatusCode::kInvalid,
                         "malformed stream message: " + std::string(e.getDescription().cStr()));
  }
}

// Writes the flat-array form of `segments` to *out: the segment table (u32 count - 1, u32
// size of each in words, padded to a word), then the segments. The segment that is
// `external` (referenced chunk data, word-aligned) is copied to its exact length and its
// last word padded with zeros, so that nothing past the data's end is read or sent.
void Flatten(kj::ArrayPtr<const kj::ArrayPtr<const capnp::word>> segments,
             std::string_view external, std::string* out) {
  const size_t table_bytes = (segments.size() + 2) / 2 * sizeof(capnp::word);
  size_t total = table_bytes;
  for (const auto& segment : segments) total += segment.size() * sizeof(capnp::word);
  out->resize(total);  // no allocation, and no zero-filling, when the buffer held a chunk
  char* p = out->data();
  std::memset(p, 0, table_bytes);
  PutU32(p, static_cast<uint32_t>(segments.size() - 1));
  for (size_t i = 0; i < segments.size(); i++) {
    PutU32(p + 4 * (i + 1), static_cast<uint32_t>(segments[i].size()));
  }
  p += table_bytes;
  for (const auto& segment : segments) {
    const size_t bytes = segment.size() * sizeof(capnp::word);
    if (!external.empty() && reinterpret_cast<const char*>(segment.begin()) == external.data()) {
      std::memcpy(p, external.data(), external.size());
      std::memset(p + external.size(), 0, bytes - external.size());
    } else {
      std::memcpy(p, segment.begin(), bytes);
    }
    p += bytes;
  }
}

}  // namespace

uint64_t StreamIdOf(const StreamMessage& message) {
  return std::visit([](const auto& m) { return m.stream_id; }, message);
}

void ToCapnp(const StreamMessage& message, schema::StreamMessage::Builder out) {
  out.setStreamId(StreamIdOf(message));
  if (const auto* open = std::get_if<StreamOpen>(&message)) {
    auto o = out.initOpen();
    o.setProtocolVersion(schema::TRANSFER_PROTOCOL_VERSION);
    o.setResource(Text(open->resource));
    o.setResumeAfter(Text(open->resume_after));
    o.setCredit(open->credit);
  } else if (const auto* chunk = std::get_if<StreamChunk>(&message)) {
    auto c = out.initChunk();
    c.setSeq(chunk->seq);
    c.setData(Bytes(chunk->data));
    c.setLast(chunk->last);
  } else if (const auto* credit = std::get_if<StreamCredit>(&message)) {
    out.initCredit().setChunks(credit->chunks);
  } else if (const auto* end = std::get_if<StreamEnd>(&message)) {
    auto e = out.initEnd();
    e.setRecords(end->records);
    e.setBytes(end->bytes);
    e.setChunks(end->chunks);
  } else {
    const std::string& text = std::get<StreamError>(message).text;
    out.initError().setText(Text(std::string_view(text).substr(0, kMaxErrorTextBytes)));
  }
}

Result<StreamMessage> FromCapnp(schema::StreamMessage::Reader in, const StreamLimits& limits) {
  StreamMessage out;
  if (Status s = ReadCatching(in, limits, &out); !s.ok()) return s;
  return out;
}

Status FromCapnp(schema::StreamMessage::Reader in, const StreamLimits& limits, StreamMessage* out,
                 std::string_view* chunk_data) {
  return ReadCatching(in, limits, out, chunk_data);
}

void EncodeStreamMessage(const StreamMessage& message, std::string* out) {
  EncodeWrappedStreamMessage(
      message,
      [](capnp::MessageBuilder& builder) { return builder.initRoot<schema::StreamMessage>(); },
      out);
}

void EncodeWrappedStreamMessage(
    const StreamMessage& message,
    const std::function<schema::StreamMessage::Builder(capnp::MessageBuilder&)>& init_root,
    std::string* out) {
  capnp::MallocMessageBuilder builder(kEnvelopeBytes / sizeof(capnp::word));
  schema::StreamMessage::Builder root = init_root(builder);
  const auto* chunk = std::get_if<StreamChunk>(&message);
  std::string_view external;
  if (chunk != nullptr && chunk->data.size() >= kReferencedDataBytes &&
      reinterpret_cast<uintptr_t>(chunk->data.data()) % alignof(capnp::word) == 0) {
    external = chunk->data;
    root.setStreamId(chunk->stream_id);
    auto c = root.initChunk();
    c.setSeq(chunk->seq);
    c.adoptData(builder.getOrphanage().referenceExternalData(Bytes(external)));
    c.setLast(chunk->last);
  } else {
    ToCapnp(message, root);
  }
  Flatten(builder.getSegmentsForOutput(), external, out);
}

std::string EncodeStreamMessage(const StreamMessage& message) {
  std::string out;
  EncodeStreamMessage(message, &out);
  return out;
}

size_t MaxEncodedStreamMessageBytes(const StreamLimits& limits) {
  return limits.max_chunk_bytes + kEnvelopeBytes;
}

Status DecodeStreamMessage(const void* bytes, size_t size, const StreamLimits& limits,
                           StreamMessage* out) {
  std::string_view ignored;
  if (Status s = DecodeStreamMessage(bytes, size, limits, out, &ignored); !s.ok()) return s;
  if (auto* chunk = std::get_if<StreamChunk>(out); chunk != nullptr && chunk->data.empty()) {
    chunk->data.assign(ignored);
  }
  return Status::Ok();
}

Status DecodeStreamMessage(const void* bytes, size_t size, const StreamLimits& limits,
                           StreamMessage* out, std::string_view* chunk_data) {
  if (size > MaxEncodedStreamMessageBytes(limits)) {
    return Status::Error(StatusCode::kInvalid,
                         "stream message of " + std::to_string(size) +
                             " bytes, more than the limit of " +
                             std::to_string(MaxEncodedStreamMessageBytes(limits)));
  }
  if (size == 0 || size % sizeof(capnp::word) != 0) {
    return Status::Error(StatusCode::kInvalid, "malformed stream message: " + std::to_string(size) +
                                                   " bytes, not a whole number of 8-byte words");
  }
  // Cap'n Proto reads words in place: bytes that are not 8-byte aligned are copied first
  // (libzmq's buffers usually are aligned).
  std::vector<uint64_t> aligned;
  const capnp::word* words = static_cast<const capnp::word*>(bytes);
  if (reinterpret_cast<uintptr_t>(bytes) % alignof(capnp::word) != 0) {
    aligned.resize(size / sizeof(capnp::word));
    std::memcpy(aligned.data(), bytes, size);
    words = reinterpret_cast<const capnp::word*>(aligned.data());
  }
  capnp::ReaderOptions options;
  // Every field is read once; a message whose pointers alias to amplify reads hits this.
  options.traversalLimitInWords = size / sizeof(capnp::word) * 2 + 1024;
  options.nestingLimit = 8;
  try {
    capnp::FlatArrayMessageReader reader(kj::arrayPtr(words, size / sizeof(capnp::word)), options);
    // Data read in place must outlive the reader: only `bytes` themselves do.
    Status s = ReadCatching(reader.getRoot<schema::StreamMessage>(), limits, out,
                            aligned.empty() ? chunk_data : nullptr);
    if (s.ok() && !aligned.empty()) {
      if (const auto* chunk = std::get_if<StreamChunk>(out)) *chunk_data = chunk->data;
    }
    return s;
  } catch (const kj::Exception& e) {
    return Status::Error(StatusCode::kInvalid,
                         "malformed stream message: " + std::string(e.getDescription().cStr()));
  }
}

Result<StreamMessage> DecodeStreamMessage(const void* bytes, size_t size,
                                          const StreamLimits& limits) {
  StreamMessage out;
  if (Status s = DecodeStreamMessage(bytes, size, limits, &out); !s.ok()) return s;
  return out;
}

}  // namespace pollen::transfer
