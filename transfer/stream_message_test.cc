#include "transfer/stream_message.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace pollen::transfer {
namespace {

std::string Encode(const StreamMessage& m) { return EncodeStreamMessage(m); }

Result<StreamMessage> Decode(const std::string& bytes, const StreamLimits& limits = {}) {
  // Copied into a word-aligned buffer: the test controls alignment.
  std::vector<uint64_t> words((bytes.size() + 7) / 8);
  if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
  return DecodeStreamMessage(words.data(), bytes.size(), limits);
}

TEST(TransferStreamMessageTest, EveryKindRoundTrips) {
  const std::vector<StreamMessage> messages = {
      StreamOpen{1, "corpus/json_fuzzer", "0123abcd", 8},
      StreamOpen{2, "", "", 0},
      StreamChunk{3, 17, std::string("\0chunk\xff", 7), false},
      StreamChunk{3, 18, "", true},
      StreamCredit{4, 5},
      StreamEnd{5, 10000, 1 << 30, 4096},
      StreamError{6, "record 3 \"x\": disk full"},
  };
  for (const StreamMessage& m : messages) {
    Result<StreamMessage> back = Decode(Encode(m));
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_EQ(back->index(), m.index());
    EXPECT_EQ(StreamIdOf(*back), StreamIdOf(m));
    if (const auto* open = std::get_if<StreamOpen>(&m)) {
      const auto& b = std::get<StreamOpen>(*back);
      EXPECT_EQ(b.resource, open->resource);
      EXPECT_EQ(b.resume_after, open->resume_after);
      EXPECT_EQ(b.credit, open->credit);
    } else if (const auto* chunk = std::get_if<StreamChunk>(&m)) {
      const auto& b = std::get<StreamChunk>(*back);
      EXPECT_EQ(b.seq, chunk->seq);
      EXPECT_EQ(b.data, chunk->data);
      EXPECT_EQ(b.last, chunk->last);
    } else if (const auto* credit = std::get_if<StreamCredit>(&m)) {
      EXPECT_EQ(std::get<StreamCredit>(*back).chunks, credit->chunks);
    } else if (const auto* end = std::get_if<StreamEnd>(&m)) {
      const auto& b = std::get<StreamEnd>(*back);
      EXPECT_EQ(b.records, end->records);
      EXPECT_EQ(b.bytes, end->bytes);
      EXPECT_EQ(b.chunks, end->chunks);
    } else {
      EXPECT_EQ(std::get<StreamError>(*back).text, std::get<StreamError>(m).text);
    }
  }
}

TEST(TransferStreamMessageTest, ChunksOfEverySizeRoundTripAndPadWithZeros) {
  std::string buffer;  // reused, as a sender reuses its frames
  StreamMessage decoded;
  for (size_t size : {0, 1, 7, 8, 255, 256, 257, 1001, 4096, 65537, 1 << 20}) {
    std::string data(size, '\0');
    for (size_t i = 0; i < size; i++) data[i] = static_cast<char>(i * 7 + 1);
    EncodeStreamMessage(StreamChunk{5, size, data, size % 2 == 0}, &buffer);
    ASSERT_EQ(buffer.size() % 8, 0u);
    // The bytes after the data, up to the word boundary, are zeros, never memory past it.
    for (size_t i = buffer.size() - (8 - size % 8) % 8; i < buffer.size(); i++) {
      EXPECT_EQ(buffer[i], 0) << size;
    }
    std::vector<uint64_t> words(buffer.size() / 8);
    std::memcpy(words.data(), buffer.data(), buffer.size());
    ASSERT_TRUE(DecodeStreamMessage(words.data(), buffer.size(), {}, &decoded).ok()) << size;
    const auto& chunk = std::get<StreamChunk>(decoded);
    EXPECT_EQ(chunk.data, data) << size;
    EXPECT_EQ(chunk.seq, size);
    EXPECT_EQ(chunk.last, size % 2 == 0);
    std::string_view in_place;
    ASSERT_TRUE(DecodeStreamMessage(words.data(), buffer.size(), {}, &decoded, &in_place).ok());
    EXPECT_EQ(in_place, data);
    if (size > 0) {
      EXPECT_GE(in_place.data(), reinterpret_cast<const char*>(words.data()));  // not copied
      EXPECT_LT(in_place.data(), reinterpret_cast<const char*>(words.data() + words.size()));
    }
  }
  EncodeStreamMessage(StreamCredit{5, 3}, &buffer);  // a big buffer for a small message
  EXPECT_EQ(std::get<StreamCredit>(Decode(buffer).value()).chunks, 3u);
}

TEST(TransferStreamMessageTest, ConvertsInsideAnotherMessage) {
  capnp::MallocMessageBuilder builder;
  auto root = builder.initRoot<schema::StreamMessage>();
  ToCapnp(StreamChunk{7, 1, "abc", true}, root);
  Result<StreamMessage> back = FromCapnp(root.asReader());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::get<StreamChunk>(*back).data, "abc");
}

TEST(TransferStreamMessageTest, UnalignedBytesDecode) {
  const std::string bytes = Encode(StreamChunk{1, 2, std::string(1000, 'u'), false});
  std::vector<char> buffer(bytes.size() + 1);
  std::memcpy(buffer.data() + 1, bytes.data(), bytes.size());
  Result<StreamMessage> back = DecodeStreamMessage(buffer.data() + 1, bytes.size());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(std::get<StreamChunk>(*back).data, std::string(1000, 'u'));
}

TEST(TransferStreamMessageTest, FieldsBeyondTheirBoundsAreErrors) {
  StreamLimits limits;
  limits.max_chunk_bytes = 100;
  EXPECT_EQ(
      Decode(Encode(StreamChunk{1, 4, std::string(101, 'c'), false}), limits).status().message(),
      "stream chunk 4 of 101 bytes, more than the limit of 100");
  EXPECT_TRUE(Decode(Encode(StreamChunk{1, 4, std::string(100, 'c'), false}), limits).ok());
  EXPECT_NE(Decode(Encode(StreamOpen{1, std::string(1025, 'r'), "", 1}))
                .status()
                .message()
                .find("resource of 1025 bytes"),
            std::string::npos);
  for (const std::string& cursor : std::vector<std::string>{"../x", "/x", std::string(256, 'x')}) {
    Result<StreamMessage> m = Decode(Encode(StreamOpen{1, "corpus", cursor, 1}));
    EXPECT_NE(m.status().message().find("stream open: resume cursor: invalid record name"),
              std::string::npos)
        << m.status().message();
  }
  // Encoding cuts an over-long error text; a peer that sends one anyway is refused.
  Result<StreamMessage> cut = Decode(Encode(StreamError{1, std::string(5000, 'e')}));
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(std::get<StreamError>(*cut).text.size(), kMaxErrorTextBytes);
  capnp::MallocMessageBuilder builder;
  auto root = builder.initRoot<schema::StreamMessage>();
  root.initError().setText(std::string(5000, 'e'));
  EXPECT_FALSE(FromCapnp(root.asReader()).ok());
}

TEST(TransferStreamMessageTest, AnOpenOfAnotherProtocolVersionIsRefused) {
  capnp::MallocMessageBuilder builder;
  auto root = builder.initRoot<schema::StreamMessage>();
  ToCapnp(StreamOpen{1, "corpus", "", 8}, root);
  root.getOpen().setProtocolVersion(2);
  EXPECT_EQ(FromCapnp(root.asReader()).status().message(),
            "stream open of protocol version 2; this end speaks 1");
}

TEST(TransferStreamMessageTest, AnUnknownKindIsAnError) {
  std::string bytes = Encode(StreamCredit{1, 1});
  // Segment table (8 bytes), root pointer (8), then the struct's data: streamId (8), and the
  // union's discriminant (16 bits).
  bytes[24] = 99;
  Result<StreamMessage> m = Decode(bytes);
  EXPECT_EQ(m.status().message(), "stream message of unknown kind 99 (a newer peer?)");
}

TEST(TransferStreamMessageTest, MalformedBytesAreErrorsNotCrashes) {
  EXPECT_FALSE(Decode("").ok());
  EXPECT_FALSE(Decode("1234567").ok());  // not whole words
  EXPECT_FALSE(Decode(std::string(64, '\xff')).ok());
  EXPECT_FALSE(Decode(std::string(16, '\0') + "garbage!").ok());
  EXPECT_FALSE(Decode(std::string((4 << 20) + 8192 + 8, '\0')).ok());  // beyond the size bound
  const std::string good = Encode(StreamChunk{1, 2, std::string(300, 'g'), true});
  // Every truncation.
  for (size_t length = 0; length < good.size(); length += 8) {
    EXPECT_FALSE(Decode(good.substr(0, length)).ok()) << length;
  }
  // Random corruption: whatever it decodes to, it must not crash, and what decodes is within
  // the limits.
  std::mt19937 rng(1);
  int decoded = 0;
  for (int round = 0; round < 20000; round++) {
    std::string bytes = good;
    for (int flips = 1 + rng() % 4; flips > 0; flips--) {
      bytes[rng() % bytes.size()] ^= static_cast<char>(1 << rng() % 8);
    }
    Result<StreamMessage> m = Decode(bytes);
    if (m.ok()) {
      decoded++;
      if (const auto* chunk = std::get_if<StreamChunk>(&*m)) {
        EXPECT_LE(chunk->data.size(), StreamLimits().max_chunk_bytes);
      }
    }
  }
  EXPECT_GT(decoded, 0);  // flips inside the data still decode
}

// The two entry points for a protocol that carries stream messages in its own root (the
// controller's): encoding through init_root gives the same bytes, and a chunk read with
// FromCapnp in place points into the message instead of being copied.
TEST(TransferStreamMessageTest, WrappedEncodingAndInPlaceReadingOfAChunk) {
  std::string data(4096, '\0');
  for (size_t i = 0; i < data.size(); i++) data[i] = static_cast<char>(i * 7);
  const StreamChunk chunk{9, 3, data, true};
  std::string wrapped;
  EncodeWrappedStreamMessage(
      chunk, [](capnp::MessageBuilder& b) { return b.initRoot<schema::StreamMessage>(); },
      &wrapped);
  ASSERT_EQ(wrapped, Encode(chunk));

  std::vector<uint64_t> words(wrapped.size() / 8);
  std::memcpy(words.data(), wrapped.data(), wrapped.size());
  capnp::FlatArrayMessageReader reader(
      kj::arrayPtr(reinterpret_cast<const capnp::word*>(words.data()), words.size()));
  StreamMessage out;
  std::string_view in_place;
  ASSERT_TRUE(FromCapnp(reader.getRoot<schema::StreamMessage>(), {}, &out, &in_place).ok());
  const auto& back = std::get<StreamChunk>(out);
  EXPECT_EQ(back.seq, 3u);
  EXPECT_TRUE(back.last);
  EXPECT_TRUE(back.data.empty());
  EXPECT_EQ(in_place, data);
  const char* begin = reinterpret_cast<const char*>(words.data());
  EXPECT_TRUE(in_place.data() >= begin && in_place.data() < begin + wrapped.size());
}

}  // namespace
}  // namespace pollen::transfer
