#include "controller/client/controller_codec.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <cstring>

#include "controller/client/message_fields.h"
#include "controller/controller_test_util.h"

namespace pollen::controller {
namespace {

using testing::MakeEntry;
using testing::MakeRegister;

class ControllerCodecTest : public ::testing::Test {
 protected:
  DecodedRequest RoundTrip(const Request& request, uint64_t id = 7) {
    std::vector<uint8_t> bytes = ControllerCodec::EncodeRequest(id, request);
    auto decoded = codec_.DecodeRequest(bytes.data(), bytes.size());
    if (auto* e = std::get_if<DecodeError>(&decoded)) {
      ADD_FAILURE() << "decode failed: " << e->message;
      return {};
    }
    EXPECT_EQ(std::get<DecodedRequest>(decoded).request_id, id);
    return std::get<DecodedRequest>(decoded);
  }

  DecodedReply RoundTripReply(const Reply& reply, uint64_t id = 9) {
    std::vector<uint8_t> bytes = ControllerCodec::EncodeReply(id, reply);
    auto decoded = codec_.DecodeReply(bytes.data(), bytes.size());
    if (auto* e = std::get_if<DecodeError>(&decoded)) {
      ADD_FAILURE() << "decode failed: " << e->message;
      return {};
    }
    EXPECT_EQ(std::get<DecodedReply>(decoded).request_id, id);
    return std::get<DecodedReply>(decoded);
  }

  DecodeError Refused(const Request& request) {
    std::vector<uint8_t> bytes = ControllerCodec::EncodeRequest(5, request);
    return RefusedBytes(bytes);
  }

  DecodeError RefusedBytes(const std::vector<uint8_t>& bytes) {
    auto decoded = codec_.DecodeRequest(bytes.data(), bytes.size());
    if (!std::holds_alternative<DecodeError>(decoded)) {
      ADD_FAILURE() << "accepted";
      return {};
    }
    return std::get<DecodeError>(decoded);
  }

  ControllerLimits limits_;
  ControllerCodec codec_{limits_};
};

TEST_F(ControllerCodecTest, NodeRequestsRoundTrip) {
  RegisterRequest reg = MakeRegister("node-1");
  auto r = std::get<RegisterRequest>(RoundTrip(reg).request);
  EXPECT_EQ(r.node_id, "node-1");
  EXPECT_EQ(r.campaign, "json");
  EXPECT_EQ(r.target, "json_fuzzer");
  EXPECT_EQ(r.build_id, "0123456789abcdef");
  EXPECT_EQ(r.options, "-max_len=4096");
  EXPECT_EQ(r.host, "host-node-1");
  EXPECT_EQ(r.workers, 4u);

  NodeStats stats{1, 2, 3, 4, 5, 6, 7};
  auto h = std::get<HeartbeatRequest>(RoundTrip(HeartbeatRequest{"n", stats}).request);
  EXPECT_EQ(h.stats, stats);

  NewInputsRequest inputs{"n", {MakeEntry("abc", {1, 9, 70000}), MakeEntry("", {})}};
  auto in = std::get<NewInputsRequest>(RoundTrip(inputs).request);
  ASSERT_EQ(in.entries.size(), 2u);
  EXPECT_EQ(in.entries[0].hash, inputs.entries[0].hash);
  EXPECT_EQ(in.entries[0].bytes, inputs.entries[0].bytes);
  EXPECT_EQ(in.entries[0].features, (std::vector<uint32_t>{1, 9, 70000}));
  EXPECT_TRUE(in.entries[1].bytes.empty());

  CrashRequest crash{"n",       "heap-buffer-overflow\nframe1\nframe2", "heap-buffer-overflow",
                     {0, 1, 2}, "==1==ERROR: AddressSanitizer",         true};
  auto c = std::get<CrashRequest>(RoundTrip(crash).request);
  EXPECT_EQ(c.signature, crash.signature);
  EXPECT_EQ(c.kind, crash.kind);
  EXPECT_EQ(c.input, crash.input);
  EXPECT_EQ(c.report, crash.report);
  EXPECT_TRUE(c.minimized);
}

TEST_F(ControllerCodecTest, DeveloperRequestsRoundTrip) {
  EXPECT_TRUE(
      std::holds_alternative<ListCampaignsRequest>(RoundTrip(ListCampaignsRequest{}).request));
  EXPECT_EQ(std::get<StatusRequest>(RoundTrip(StatusRequest{"json"}).request).campaign, "json");
  auto list = std::get<ListCrashesRequest>(
      RoundTrip(ListCrashesRequest{{"json", "abc"}, "after-this"}).request);
  EXPECT_EQ(list.campaign.name, "json");
  EXPECT_EQ(list.campaign.build_id, "abc");
  EXPECT_EQ(list.after, "after-this");
  auto get = std::get<GetCrashRequest>(RoundTrip(GetCrashRequest{{"json", ""}, "sig"}).request);
  EXPECT_EQ(get.signature, "sig");
  EXPECT_EQ(std::get<StartCampaignRequest>(RoundTrip(StartCampaignRequest{{"a", ""}}).request)
                .campaign.name,
            "a");
  EXPECT_EQ(std::get<StopCampaignRequest>(RoundTrip(StopCampaignRequest{{"b", ""}}).request)
                .campaign.name,
            "b");
  EXPECT_EQ(
      std::get<CorpusInfoRequest>(RoundTrip(CorpusInfoRequest{{"c", ""}}).request).campaign.name,
      "c");
  EXPECT_EQ(
      std::get<MergeCorpusRequest>(RoundTrip(MergeCorpusRequest{{"d", ""}}).request).campaign.name,
      "d");
}

TEST_F(ControllerCodecTest, RepliesRoundTrip) {
  auto error = std::get<ErrorReply>(
      RoundTripReply(ErrorReply{ErrorCode::kUnknownNode, "register first"}).reply);
  EXPECT_EQ(error.code, ErrorCode::kUnknownNode);
  EXPECT_EQ(error.message, "register first");

  auto hb = std::get<HeartbeatReply>(RoundTripReply(HeartbeatReply{true, {"s1", "s2"}}).reply);
  EXPECT_TRUE(hb.stop);
  EXPECT_EQ(hb.minimize, (std::vector<std::string>{"s1", "s2"}));

  StatusReply status;
  status.campaigns.push_back({"json", "b1", true, 2, 1, 100, 1000, 50, 60, 7, 55, 3, 4096});
  status.nodes.push_back(
      {"n1", "json", "b1", "h", 8, NodeState::kAlive, 1500, {1, 2, 3, 4, 5, 6, 7}});
  status.nodes.push_back({"n2", "json", "b1", "h", 8, NodeState::kLost, 99000, {}});
  status.truncated = true;
  auto s = std::get<StatusReply>(RoundTripReply(status).reply);
  ASSERT_EQ(s.campaigns.size(), 1u);
  EXPECT_EQ(s.campaigns[0].crashes, 3u);
  EXPECT_EQ(s.campaigns[0].rss_bytes, 4096u);
  EXPECT_EQ(s.campaigns[0].corpus_features, 55u);
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.nodes[0].state, NodeState::kAlive);
  EXPECT_EQ(s.nodes[0].stats, (NodeStats{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(s.nodes[1].state, NodeState::kLost);
  EXPECT_EQ(s.nodes[1].last_heartbeat_age_ms, 99000u);
  EXPECT_TRUE(s.truncated);

  CampaignsReply campaigns;
  campaigns.campaigns.push_back(
      {"json", "json_fuzzer", "b2", {{"b1", 1, 2}, {"b2", 3, 4}}, "-x", true, 42, 3, 1});
  auto c = std::get<CampaignsReply>(RoundTripReply(campaigns).reply);
  ASSERT_EQ(c.campaigns.size(), 1u);
  ASSERT_EQ(c.campaigns[0].builds.size(), 2u);
  EXPECT_EQ(c.campaigns[0].builds[1].build_id, "b2");
  EXPECT_EQ(c.campaigns[0].builds[1].last_seen_unix_ms, 4);
  EXPECT_EQ(c.campaigns[0].nodes_alive, 3u);

  CrashDetailReply detail{{"sig", "oom", 2, 3, true, 10, 20, 2}, {1, 2, 3}, "report"};
  auto d = std::get<CrashDetailReply>(RoundTripReply(detail).reply);
  EXPECT_EQ(d.summary.count, 2u);
  EXPECT_TRUE(d.summary.minimized);
  EXPECT_EQ(d.input, (std::vector<uint8_t>{1, 2, 3}));

  auto info =
      std::get<CorpusInfoReply>(RoundTripReply(CorpusInfoReply{"json", "b", 5, 50, 500, 7}).reply);
  EXPECT_EQ(info.features, 500u);
  auto merge = std::get<MergeReply>(RoundTripReply(MergeReply{3, 2, 10, 5}).reply);
  EXPECT_EQ(merge.entries_after, 2u);
}

TEST_F(ControllerCodecTest, GarbageIsMalformedNeverACrash) {
  for (const std::vector<uint8_t>& bytes :
       {std::vector<uint8_t>{}, std::vector<uint8_t>{1, 2, 3}, std::vector<uint8_t>(4096, 0xAB),
        std::vector<uint8_t>(64, 0)}) {
    DecodeError e = RefusedBytes(bytes);
    EXPECT_EQ(e.code, ErrorCode::kMalformed) << bytes.size() << ": " << e.message;
  }
  std::vector<uint8_t> valid =
      ControllerCodec::EncodeRequest(3, NewInputsRequest{"n", {MakeEntry("abc", {1, 2})}});
  for (size_t cut = 8; cut < valid.size(); cut += 8) {
    std::vector<uint8_t> truncated(valid.begin(), valid.begin() + cut);
    auto decoded = codec_.DecodeRequest(truncated.data(), truncated.size());
    EXPECT_TRUE(std::holds_alternative<DecodeError>(decoded)) << cut;
  }
}

TEST_F(ControllerCodecTest, AnotherVersionIsRefusedWithTheRequestId) {
  std::vector<uint8_t> bytes = ControllerCodec::EncodeRequest(77, ListCampaignsRequest{});
  // After the segment table (8 bytes) and the root pointer (8), the root struct's data:
  // protocolVersion is its first 32 bits.
  uint32_t version = 2;
  std::memcpy(&bytes[16], &version, sizeof(version));
  DecodeError e = RefusedBytes(bytes);
  EXPECT_EQ(e.code, ErrorCode::kWrongVersion);
  EXPECT_EQ(e.request_id, 77u);
  EXPECT_NE(e.message.find("version 2"), std::string::npos) << e.message;
}

TEST_F(ControllerCodecTest, OversizedAndReplyKindsAreRefused) {
  std::vector<uint8_t> big(limits_.max_message_bytes + 8, 0);
  EXPECT_EQ(RefusedBytes(big).code, ErrorCode::kTooLarge);
  std::vector<uint8_t> reply = ControllerCodec::EncodeReply(4, InputsReply{1, 2, 3});
  DecodeError e = RefusedBytes(reply);
  EXPECT_EQ(e.code, ErrorCode::kNotARequest);
  EXPECT_EQ(e.request_id, 4u);
}

TEST_F(ControllerCodecTest, FieldsOutOfBoundsAreRefused) {
  // Names that cannot be directory names.
  for (const char* campaign : {"../up", "a/b", ".hidden", ""}) {
    RegisterRequest r = MakeRegister("n", campaign);
    EXPECT_EQ(Refused(r).code, ErrorCode::kInvalidName) << campaign;
  }
  EXPECT_EQ(Refused(MakeRegister("n", "ok", "../../x")).code, ErrorCode::kInvalidName);
  EXPECT_EQ(Refused(StatusRequest{"a b"}).code, ErrorCode::kInvalidName);
  EXPECT_EQ(Refused(CorpusInfoRequest{{"ok", "bad/build"}}).code, ErrorCode::kInvalidName);
  // Node ids, targets, sizes.
  EXPECT_EQ(Refused(MakeRegister("has space")).code, ErrorCode::kMalformed);
  EXPECT_EQ(Refused(HeartbeatRequest{"", {}}).code, ErrorCode::kMalformed);
  RegisterRequest no_target = MakeRegister("n");
  no_target.target = "";
  EXPECT_EQ(Refused(no_target).code, ErrorCode::kMalformed);
  RegisterRequest long_options = MakeRegister("n");
  long_options.options.assign(limits_.max_options_bytes + 1, 'o');
  EXPECT_EQ(Refused(long_options).code, ErrorCode::kMalformed);
  CrashRequest crash{"n", "", "kind", {}, "", false};
  EXPECT_EQ(Refused(crash).code, ErrorCode::kMalformed);  // empty signature
  crash.signature.assign(limits_.max_signature_bytes + 1, 's');
  EXPECT_EQ(Refused(crash).code, ErrorCode::kMalformed);
  crash.signature = "sig";
  crash.report.assign(limits_.max_report_bytes + 1, 'r');
  EXPECT_EQ(Refused(crash).code, ErrorCode::kMalformed);
  // Inputs: a hash that is not the bytes', too many entries.
  InputEntry wrong = MakeEntry("abc", {1});
  wrong.hash[0] ^= 1;
  DecodeError e = Refused(NewInputsRequest{"n", {MakeEntry("ok", {1}), wrong}});
  EXPECT_EQ(e.code, ErrorCode::kMalformed);
  EXPECT_NE(e.message.find("input 1"), std::string::npos) << e.message;
  NewInputsRequest many{"n", std::vector<InputEntry>(limits_.max_entries + 1, MakeEntry("x", {1}))};
  EXPECT_EQ(Refused(many).code, ErrorCode::kMalformed);
}

TEST_F(ControllerCodecTest, InvalidFeatureEncodingsAreRefused) {
  std::vector<uint8_t> bytes =
      ControllerCodec::EncodeRequest(1, NewInputsRequest{"n", {MakeEntry("abc", {200, 201})}});
  // The features {200, 201} encode as the deltas c8 01, 01; make the second a zero delta
  // (not strictly ascending).
  bool patched = false;
  for (size_t i = 0; i + 2 < bytes.size(); i++) {
    if (bytes[i] == 0xc8 && bytes[i + 1] == 1 && bytes[i + 2] == 1) {
      bytes[i + 2] = 0;
      patched = true;
      break;
    }
  }
  ASSERT_TRUE(patched);
  DecodeError e = RefusedBytes(bytes);
  EXPECT_EQ(e.code, ErrorCode::kMalformed);
  EXPECT_NE(e.message.find("feature"), std::string::npos) << e.message;
}

TEST_F(ControllerCodecTest, StreamMessagesAndPushRequestsRoundTrip) {
  auto push = std::get<PushCorpusRequest>(
      RoundTrip(PushCorpusRequest{{"json", ""}, "push-0123abcd", 77}).request);
  EXPECT_EQ(push.campaign.name, "json");
  EXPECT_EQ(push.push_id, "push-0123abcd");
  EXPECT_EQ(push.stream_id, 77u);

  auto crash = std::get<PushCrashRequest>(
      RoundTrip(PushCrashRequest{"node-1", "json", "00112233aabbccdd", "leak", true, 9}).request);
  EXPECT_EQ(crash.node_id, "node-1");
  EXPECT_EQ(crash.campaign, "json");
  EXPECT_EQ(crash.signature, "00112233aabbccdd");
  EXPECT_EQ(crash.kind, "leak");
  EXPECT_TRUE(crash.minimized);
  EXPECT_EQ(crash.stream_id, 9u);

  auto open = std::get<StreamRequest>(
      RoundTrip(StreamRequest{transfer::StreamOpen{3, "corpus/json", "00ff", 8}}).request);
  const auto& o = std::get<transfer::StreamOpen>(open.message);
  EXPECT_EQ(o.stream_id, 3u);
  EXPECT_EQ(o.resource, "corpus/json");
  EXPECT_EQ(o.resume_after, "00ff");
  EXPECT_EQ(o.credit, 8u);

  // A chunk, encoded on the hot path: its data is read in place in the codec's buffer.
  std::string frame;
  const std::string data(5000, 'x');
  ControllerCodec::EncodeStream(0, transfer::StreamChunk{3, 4, data, true}, &frame);
  auto decoded = codec_.DecodeRequest(frame.data(), frame.size());
  ASSERT_TRUE(std::holds_alternative<DecodedRequest>(decoded));
  const DecodedRequest& d = std::get<DecodedRequest>(decoded);
  const auto& chunk = std::get<transfer::StreamChunk>(std::get<StreamRequest>(d.request).message);
  EXPECT_EQ(chunk.seq, 4u);
  EXPECT_TRUE(chunk.last);
  EXPECT_EQ(d.chunk_data, data);
  // Read in place from an aligned frame; copied first from one that is not.
  EXPECT_TRUE(d.chunk_data.data() >= frame.data() &&
              d.chunk_data.data() < frame.data() + frame.size());
  std::vector<uint64_t> shifted(frame.size() / 8 + 1);
  char* unaligned = reinterpret_cast<char*>(shifted.data()) + 4;
  std::memcpy(unaligned, frame.data(), frame.size());
  auto copied = codec_.DecodeRequest(unaligned, frame.size());
  ASSERT_TRUE(std::holds_alternative<DecodedRequest>(copied));
  EXPECT_EQ(std::get<DecodedRequest>(copied).chunk_data, data);

  auto reply = std::get<StreamReply>(
      RoundTripReply(StreamReply{transfer::StreamError{3, "no campaign 'x'"}}).reply);
  EXPECT_EQ(std::get<transfer::StreamError>(reply.message).text, "no campaign 'x'");
}

TEST_F(ControllerCodecTest, BadStreamMessagesAndPushIdsAreRefused) {
  // A resume cursor that is not a record name.
  DecodeError e = Refused(StreamRequest{transfer::StreamOpen{1, "corpus/json", "../x", 8}});
  EXPECT_EQ(e.code, ErrorCode::kMalformed);
  EXPECT_NE(e.message.find("resume cursor"), std::string::npos) << e.message;
  EXPECT_EQ(e.request_id, 5u);
  // A chunk over the stream limit.
  ControllerLimits small;
  small.stream.max_chunk_bytes = 1000;
  ControllerCodec codec(small);
  std::string frame;
  ControllerCodec::EncodeStream(0, transfer::StreamChunk{1, 0, std::string(1001, 'a'), false},
                                &frame);
  auto decoded = codec.DecodeRequest(frame.data(), frame.size());
  ASSERT_TRUE(std::holds_alternative<DecodeError>(decoded));
  EXPECT_EQ(std::get<DecodeError>(decoded).code, ErrorCode::kMalformed);
  // A push id that could not be a key.
  EXPECT_EQ(Refused(PushCorpusRequest{{"json", ""}, "../up", 1}).code, ErrorCode::kInvalidName);
  EXPECT_EQ(Refused(PushCorpusRequest{{"json", ""}, "", 1}).code, ErrorCode::kInvalidName);
  // A crash push's signature names a stream resource: it must be a safe name.
  EXPECT_EQ(Refused(PushCrashRequest{"node-1", "json", "a/b", "leak", false, 1}).code,
            ErrorCode::kInvalidName);
  EXPECT_EQ(Refused(PushCrashRequest{"node-1", "../x", "abcd", "leak", false, 1}).code,
            ErrorCode::kInvalidName);
}

TEST_F(ControllerCodecTest, ErrorCodesHaveNames) {
  for (size_t i = 0; i < kNumErrorCodes; i++) {
    EXPECT_STRNE(ErrorCodeName(static_cast<ErrorCode>(i)), "?") << i;
  }
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kUnknownNode), "unknown_node");
}

}  // namespace
}  // namespace pollen::controller
