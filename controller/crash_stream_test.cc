// Crash artifacts in streams: a node reports a crash whose reproducer does not fit in a
// message with pushCrash, and a developer pulls it back with crash/<campaign>/<signature>
// (docs/controller.md, "Crash artifacts").
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "controller/client/record_names.h"
#include "controller/client/stream_client.h"
#include "controller/crash_push_sink.h"
#include "controller/stream_test_util.h"
#include "transfer/transfer_test_util.h"

namespace pollen::controller {
namespace {

using namespace ::pollen::controller::testing;  // NOLINT: test helpers
using transfer::testing::MemorySink;

constexpr char kSignature[] = "00112233aabbccdd";

class CrashStreamTest : public StreamControllerTest {
 protected:
  // A crash of node-a with a reproducer of `size` random bytes.
  static CrashRequest BigCrash(size_t size) {
    CrashRequest crash;
    crash.node_id = "node-a";
    crash.signature = kSignature;
    crash.kind = "heap-buffer-overflow";
    std::mt19937 rng(3);
    crash.input.resize(size);
    for (auto& b : crash.input) b = static_cast<uint8_t>(rng());
    crash.report = "==1==ERROR: AddressSanitizer: heap-buffer-overflow\n";
    return crash;
  }

  Result<CrashListReply> Crashes() {
    return node_->Call<CrashListReply>(ListCrashesRequest{{"json", ""}, ""}, kStreamTimeoutMs);
  }
};

// 3 MiB: over the 2 MiB message limit, so neither a crash message nor a getCrash reply could
// carry it.
TEST_F(CrashStreamTest, ACrashTooLargeForAMessageIsPushedCountedAndPulledBackWhole) {
  Start();
  const CrashRequest crash = BigCrash(3 << 20);
  Status pushed = PushCrashStream(client_, "json", crash);
  ASSERT_TRUE(pushed.ok()) << pushed.message();

  Result<CrashListReply> list = Crashes();
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->crashes.size(), 1u);
  EXPECT_EQ(list->crashes[0].signature, kSignature);
  EXPECT_EQ(list->crashes[0].count, 1u);
  EXPECT_EQ(list->crashes[0].input_size, crash.input.size());

  auto detail =
      node_->Call<CrashDetailReply>(GetCrashRequest{{"json", ""}, kSignature}, kStreamTimeoutMs);
  ASSERT_FALSE(detail.ok());
  EXPECT_NE(detail.status().message().find(CrashResource("json", kSignature)), std::string::npos)
      << detail.status().message();

  MemorySink sink;
  Result<transfer::TransferCounters> pulled =
      PullStream(client_, CrashResource("json", kSignature), "", &sink);
  ASSERT_TRUE(pulled.ok()) << pulled.status().message();
  ASSERT_EQ(sink.records.size(), 2u);
  EXPECT_EQ(sink.records[0].first, "input");
  EXPECT_TRUE(sink.records[0].second == std::string(crash.input.begin(), crash.input.end()));
  EXPECT_EQ(sink.records[1].first, "report");
  EXPECT_EQ(sink.records[1].second, crash.report);

  // The same crash again (another node would do the same): counted, not stored twice.
  ASSERT_TRUE(PushCrashStream(client_, "json", crash).ok());
  list = Crashes();
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->crashes.size(), 1u);
  EXPECT_EQ(list->crashes[0].count, 2u);
}

TEST_F(CrashStreamTest, ACrashPushOfAnUnknownNodeEndsWithTheControllersAnswer) {
  Start();
  CrashRequest crash = BigCrash(1000);
  crash.node_id = "node-never-registered";
  Status pushed = PushCrashStream(client_, "json", crash);
  ASSERT_FALSE(pushed.ok());
  EXPECT_NE(pushed.message().find("node-never-registered"), std::string::npos) << pushed.message();
  Result<CrashListReply> list = Crashes();
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_TRUE(list->crashes.empty());
}

// The sink of a crash push: "input" then "report", reported once complete, never otherwise.
TEST(CrashPushSinkTest, ReportsACompleteCrashOnlyAndRefusesOtherRecords) {
  const PushCrashRequest request{"node-a", "json", kSignature, "crash", true, 1};
  std::vector<CrashRequest> reported;
  const auto report = [&](CrashRequest crash) -> Reply {
    reported.push_back(std::move(crash));
    return CrashReply{};
  };
  {
    CrashPushSink sink(request, 8, report);
    Status s = sink.Commit("a-seed", "bytes");
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("'input'"), std::string::npos) << s.message();
    EXPECT_FALSE(sink.Finish(true).ok()) << "no input arrived";
  }
  {
    CrashPushSink sink(request, 8, report);
    ASSERT_TRUE(sink.Commit("input", "reproducer").ok());
    EXPECT_TRUE(sink.Finish(false).ok());
    EXPECT_TRUE(reported.empty()) << "an interrupted push counts nothing";
  }
  CrashPushSink sink(request, 8, report);
  ASSERT_TRUE(sink.Commit("input", "reproducer").ok());
  ASSERT_TRUE(sink.Commit("report", "a report longer than eight bytes").ok());
  EXPECT_FALSE(sink.Commit("report", "again").ok());
  ASSERT_TRUE(sink.Finish(true).ok());
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_EQ(std::string(reported[0].input.begin(), reported[0].input.end()), "reproducer");
  EXPECT_EQ(reported[0].report, "a report") << "cut to the report limit";
  EXPECT_EQ(reported[0].node_id, "node-a");
  EXPECT_TRUE(reported[0].minimized);

  CrashPushSink refused(request, 8, [](CrashRequest) -> Reply {
    return ErrorReply{ErrorCode::kUnknownNode, "unknown node 'node-a'"};
  });
  ASSERT_TRUE(refused.Commit("input", "reproducer").ok());
  Status s = refused.Finish(true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "unknown node 'node-a'");
}

TEST_F(CrashStreamTest, PullingAnUnknownCrashIsAClearError) {
  Start();
  MemorySink sink;
  Result<transfer::TransferCounters> pulled =
      PullStream(client_, CrashResource("json", "ffffffffffffffff"), "", &sink);
  ASSERT_FALSE(pulled.ok());
  EXPECT_NE(pulled.status().message().find("has no crash ffffffffffffffff"), std::string::npos)
      << pulled.status().message();
  pulled = PullStream(client_, "crash/json", "", &sink);
  ASSERT_FALSE(pulled.ok());
  EXPECT_NE(pulled.status().message().find("named by its signature"), std::string::npos)
      << pulled.status().message();
}

}  // namespace
}  // namespace pollen::controller
