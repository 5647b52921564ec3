#include "broker/client/message_codec.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <random>

#include "broker/broker_test_util.h"
#include "net/feature_codec.h"

namespace pollen::broker {
namespace {

using testing::MakeInput;
using testing::MakeMessage;
using testing::TestCampaign;

std::optional<DropReason> Decode(const std::vector<uint8_t>& bytes, ClusterMessage* out,
                                 const MessageLimits& limits = {}) {
  MessageReader reader(limits);
  return DecodeMessage(reader, bytes.data(), bytes.size(), out);
}

// A message built by hand, for what EncodeMessage would never write.
std::vector<uint8_t> Build(const std::function<void(schema::ClusterMessage::Builder)>& fill) {
  capnp::MallocMessageBuilder builder;
  auto m = builder.initRoot<schema::ClusterMessage>();
  m.setProtocolVersion(schema::CLUSTER_PROTOCOL_VERSION);
  m.initCampaign().setTarget("json_fuzzer");
  m.getCampaign().setBuildId("build-1");
  m.setOrigin("node-a");
  m.initHeartbeat();
  fill(m);
  kj::Array<capnp::word> flat = capnp::messageToFlatArray(builder);
  auto bytes = flat.asBytes();
  return {bytes.begin(), bytes.end()};
}

TEST(MessageCodecTest, EveryKindRoundTrips) {
  base::Digest h1 = base::Sha1(reinterpret_cast<const uint8_t*>("a"), 1),
               h2 = base::Sha1(nullptr, 0);
  std::vector<MessageBody> bodies = {
      MakeInput("some bytes", {3, 1, 2}),
      CoverageDelta{{9, 10, 70000}, 1234},
      CrashReport{"heap-buffer-overflow in Parse", "heap-buffer-overflow", h1, {1, 2, 3}},
      NodeStats{1, 2, 3, 4, 5, 6, 7, 8},
      CorpusDigest{100, 40, {h1, h2}},
      MissingRequest{{h2}},
  };
  for (const auto& body : bodies) {
    ClusterMessage sent = MakeMessage(body);
    if (KindOf(sent) == MessageKind::kMissingRequest) sent.header.to_node = "node-b";
    ClusterMessage got;
    ASSERT_EQ(Decode(EncodeMessage(sent), &got), std::nullopt) << "kind " << body.index();
    EXPECT_EQ(got.header.campaign, sent.header.campaign);
    EXPECT_EQ(got.header.origin, "node-a");
    EXPECT_EQ(got.header.session, 42u);
    EXPECT_EQ(got.header.seq, 7u);
    EXPECT_EQ(got.header.to_node, sent.header.to_node);
    ASSERT_EQ(got.body.index(), body.index());
  }
  ClusterMessage got;
  ASSERT_EQ(Decode(EncodeMessage(MakeMessage(MakeInput("xyz", {3, 1, 2}))), &got), std::nullopt);
  const auto& in = std::get<NewInput>(got.body);
  EXPECT_EQ(std::string(in.bytes.begin(), in.bytes.end()), "xyz");
  EXPECT_EQ(in.features, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(in.hash, MakeInput("xyz").hash);
  ASSERT_EQ(Decode(EncodeMessage(MakeMessage(CorpusDigest{100, 40, {h1, h2}})), &got),
            std::nullopt);
  EXPECT_EQ(std::get<CorpusDigest>(got.body).hashes, (std::vector<base::Digest>{h1, h2}));
  EXPECT_EQ(std::get<CorpusDigest>(got.body).first_index, 40u);
  ASSERT_EQ(Decode(EncodeMessage(MakeMessage(NodeStats{1, 2, 3, 4, 5, 6, 7, 8})), &got),
            std::nullopt);
  EXPECT_EQ(std::get<NodeStats>(got.body).inputs_kept, 8u);
}

TEST(MessageCodecTest, ReaderGivesRoutingInfoAndDedupKeys) {
  MessageReader reader(MessageLimits{});
  MessageInfo info;
  ClusterMessage m = MakeMessage(MakeInput("abc"));
  m.header.to_node = "node-c";
  std::vector<uint8_t> bytes = EncodeMessage(m);
  ASSERT_EQ(reader.Read(bytes.data(), bytes.size(), &info), std::nullopt);
  EXPECT_EQ(info.kind, MessageKind::kNewInput);
  EXPECT_EQ(info.target, "json_fuzzer");
  EXPECT_EQ(info.build_id, "build-1");
  EXPECT_EQ(info.origin, "node-a");
  EXPECT_EQ(info.to_node, "node-c");
  EXPECT_EQ(info.dedup_key, MakeInput("abc").hash);

  bytes = EncodeMessage(MakeMessage(CrashReport{"SEGV in f", "SEGV", {}, {}}));
  ASSERT_EQ(reader.Read(bytes.data(), bytes.size(), &info), std::nullopt);
  EXPECT_EQ(info.dedup_key, base::Sha1(reinterpret_cast<const uint8_t*>("SEGV in f"), 9));

  bytes = EncodeMessage(MakeMessage(CoverageDelta{{1}, 1}));
  ASSERT_EQ(reader.Read(bytes.data(), bytes.size(), &info), std::nullopt);
  EXPECT_FALSE(info.dedup_key.has_value());
}

TEST(MessageCodecTest, UnalignedBytesAreRead) {
  std::vector<uint8_t> bytes = EncodeMessage(MakeMessage());
  std::vector<uint8_t> shifted(bytes.size() + 3);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 3);
  MessageReader reader(MessageLimits{});
  MessageInfo info;
  EXPECT_EQ(reader.Read(shifted.data() + 3, bytes.size(), &info), std::nullopt);
}

TEST(MessageCodecTest, GarbageIsMalformedNeverACrash) {
  std::mt19937 rng(1);
  MessageReader reader(MessageLimits{});
  MessageInfo info;
  for (int i = 0; i < 2000; i++) {
    std::vector<uint8_t> junk((rng() % 64) * (i % 2 ? 8 : 1) + 1);
    for (auto& b : junk) b = static_cast<uint8_t>(rng());
    auto verdict = reader.Read(junk.data(), junk.size(), &info);
    ASSERT_TRUE(verdict.has_value());  // 1 in 2^32 chance a junk word is a valid empty root
  }
  EXPECT_EQ(reader.Read(nullptr, 0, &info), DropReason::kMalformed);
}

TEST(MessageCodecTest, EveryTruncationIsMalformed) {
  std::vector<uint8_t> bytes = EncodeMessage(MakeMessage(MakeInput(std::string(300, 'x'))));
  MessageReader reader(MessageLimits{});
  MessageInfo info;
  for (size_t n = 0; n < bytes.size(); n++) {
    EXPECT_EQ(reader.Read(bytes.data(), n, &info), DropReason::kMalformed)
        << n << " of " << bytes.size();
  }
}

TEST(MessageCodecTest, RandomBitFlipsNeverCrash) {
  std::mt19937 rng(2);
  std::vector<uint8_t> original = EncodeMessage(MakeMessage(MakeInput("some input", {1, 5, 900})));
  MessageReader reader(MessageLimits{});
  ClusterMessage out;
  for (int i = 0; i < 5000; i++) {
    std::vector<uint8_t> bytes = original;
    for (int flips = 1 + rng() % 4; flips > 0; flips--) {
      bytes[rng() % bytes.size()] ^= 1 << (rng() % 8);
    }
    DecodeMessage(reader, bytes.data(), bytes.size(), &out);  // any verdict; no crash, no throw
  }
}

TEST(MessageCodecTest, OversizedIsCountedAsSuch) {
  MessageLimits limits;
  limits.max_message_bytes = 4096;
  ClusterMessage out;
  EXPECT_EQ(Decode(EncodeMessage(MakeMessage(MakeInput(std::string(5000, 'x')))), &out, limits),
            DropReason::kOversized);
  EXPECT_EQ(Decode(EncodeMessage(MakeMessage(MakeInput(std::string(3000, 'x')))), &out, limits),
            std::nullopt);
}

TEST(MessageCodecTest, WrongVersionIsCountedAsSuch) {
  ClusterMessage out;
  auto bytes = Build([](auto m) { m.setProtocolVersion(schema::CLUSTER_PROTOCOL_VERSION + 1); });
  EXPECT_EQ(Decode(bytes, &out), DropReason::kWrongVersion);
  EXPECT_EQ(Decode(Build([](auto m) { m.setProtocolVersion(0); }), &out),
            DropReason::kWrongVersion);
  EXPECT_EQ(Decode(Build([](auto) {}), &out), std::nullopt);
}

TEST(MessageCodecTest, FieldsOutOfBoundsAreMalformed) {
  ClusterMessage out;
  const std::vector<std::function<void(schema::ClusterMessage::Builder)>> bad = {
      [](auto m) { m.getCampaign().setTarget(""); },
      [](auto m) { m.getCampaign().setBuildId(""); },
      [](auto m) { m.setOrigin(""); },
      [](auto m) { m.setOrigin(std::string(257, 'n')); },
      [](auto m) { m.setToNode(std::string(257, 'n')); },
      [](auto m) {
        m.initNewInput().setHash(capnp::Data::Reader(reinterpret_cast<const uint8_t*>("short"), 5));
      },
      [](auto m) {
        base::Digest h{};
        auto in = m.initNewInput();
        in.setHash(capnp::Data::Reader(h.data(), h.size()));
        uint8_t bad_features[] = {5, 0};  // a zero difference
        in.setFeatures(capnp::Data::Reader(bad_features, 2));
      },
      [](auto m) {
        uint8_t truncated[] = {0x80};
        m.initCoverageDelta().setFeatures(capnp::Data::Reader(truncated, 1));
      },
      [](auto m) { m.initCrash(); },  // no signature
      [](auto m) {
        m.initDigest().setHashes(capnp::Data::Reader(reinterpret_cast<const uint8_t*>("odd"), 3));
      },
      [](auto m) { m.initMissingRequest(); },  // no hashes and no destination
  };
  for (size_t i = 0; i < bad.size(); i++) {
    EXPECT_EQ(Decode(Build(bad[i]), &out), DropReason::kMalformed) << "case " << i;
  }
}

TEST(MessageCodecTest, NoCampaignIsMalformed) {
  capnp::MallocMessageBuilder builder;
  auto m = builder.initRoot<schema::ClusterMessage>();
  m.setProtocolVersion(schema::CLUSTER_PROTOCOL_VERSION);
  m.setOrigin("node-a");
  kj::Array<capnp::word> flat = capnp::messageToFlatArray(builder);
  auto bytes = flat.asBytes();
  ClusterMessage out;
  EXPECT_EQ(Decode({bytes.begin(), bytes.end()}, &out), DropReason::kMalformed);
}

}  // namespace
}  // namespace pollen::broker
