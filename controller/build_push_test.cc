// Builds pushed to an in-process controller (pushBuild): stored, assigned, announced in the
// heartbeat replies, pulled as build/<campaign> with the same bytes, kept over a restart;
// and the pushes it refuses (a campaign of another target, bytes that are not the build id,
// a stream with other records) assign nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/sha1.h"
#include "controller/client/record_names.h"
#include "controller/client/stream_client.h"
#include "controller/stream_test_util.h"
#include "transfer/transfer_test_util.h"

namespace pollen::controller {
namespace {

using namespace ::pollen::controller::testing;  // NOLINT: test helpers
using transfer::testing::MemorySink;

std::string BuildId(const std::string& bytes) {
  return base::BuildIdOf(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

class BuildPushTest : public StreamControllerTest {
 protected:
  // An "executable" of `size` bytes that differs with `seed`.
  std::string WriteBuild(const std::string& name, size_t size, char seed) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; i++) bytes[i] = static_cast<char>(seed + i * 7 + (i >> 9));
    const std::string path = data_.path() + "/" + name;
    ::pollen::testing::WriteFile(path, bytes);
    return path;
  }

  std::string Assigned(const std::string& node_id = "node-a") {
    auto beat = node_->Call<HeartbeatReply>(HeartbeatRequest{node_id, {}, false}, kStreamTimeoutMs);
    EXPECT_TRUE(beat.ok()) << beat.status().message();
    return beat.ok() ? beat->assigned_build : "(no reply)";
  }

  // A push of `records` announced as build `id` of json_fuzzer in "json".
  Result<PushResult> RunBuildPush(const std::string& id,
                                  std::vector<std::pair<std::string, std::string>> records) {
    return PushBuildRecords(
        client_, PushBuildRequest{"json", "json_fuzzer", id, 0},
        [records](const std::string&) -> Result<std::unique_ptr<transfer::RecordSource>> {
          return std::unique_ptr<transfer::RecordSource>(
              new transfer::testing::VectorSource(records));
        });
  }

  void Restart() {
    node_.reset();
    controller_.reset();
    Start();
  }
};

TEST_F(BuildPushTest, APushedBuildIsAssignedAnnouncedAndPulledWithTheSameBytes) {
  Start();
  EXPECT_EQ(Assigned(), "");
  {  // Nothing assigned: the pull says so.
    MemorySink sink;
    Result<transfer::TransferCounters> pulled =
        PullStream(client_, BuildResource("json"), "", &sink);
    ASSERT_FALSE(pulled.ok());
    EXPECT_NE(pulled.status().message().find("no assigned build"), std::string::npos)
        << pulled.status().message();
  }
  // Larger than a chunk (256 KiB): the record spans chunks.
  const std::string first = WriteBuild("b1", 700 << 10, 1);
  Result<std::string> id1 = PushBuildStream(client_, "json", "json_fuzzer", first);
  ASSERT_TRUE(id1.ok()) << id1.status().message();
  EXPECT_EQ(*id1, BuildId(::pollen::testing::ReadFile(first)));
  EXPECT_EQ(Assigned(), *id1);

  MemorySink pulled;
  ASSERT_TRUE(PullStream(client_, BuildResource("json"), "", &pulled).ok());
  ASSERT_EQ(pulled.records.size(), 1u);
  EXPECT_EQ(pulled.records[0].first, "json_fuzzer");
  EXPECT_EQ(pulled.records[0].second, ::pollen::testing::ReadFile(first));

  // A second build replaces it, and the list shows it as the assigned and current build.
  const std::string second = WriteBuild("b2", 1000, 2);
  Result<std::string> id2 = PushBuildStream(client_, "json", "json_fuzzer", second);
  ASSERT_TRUE(id2.ok()) << id2.status().message();
  EXPECT_NE(*id2, *id1);
  EXPECT_EQ(Assigned(), *id2);
  auto list = node_->Call<CampaignsReply>(ListCampaignsRequest{}, kStreamTimeoutMs);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->campaigns.size(), 1u);
  EXPECT_EQ(list->campaigns[0].assigned_build, *id2);
  EXPECT_EQ(list->campaigns[0].build_id, *id2);

  Restart();
  EXPECT_EQ(Assigned(), *id2);
  MemorySink after;
  ASSERT_TRUE(PullStream(client_, BuildResource("json"), "", &after).ok());
  ASSERT_EQ(after.records.size(), 1u);
  EXPECT_EQ(after.records[0].second, ::pollen::testing::ReadFile(second));
  // The store keeps the assigned build and the one before it, no more.
  const std::string third = WriteBuild("b3", 1000, 3);
  Result<std::string> id3 = PushBuildStream(client_, "json", "json_fuzzer", third);
  ASSERT_TRUE(id3.ok());
  const std::string builds = data_.path() + "/data/campaigns/json/_builds";
  EXPECT_TRUE(std::filesystem::exists(builds + "/" + *id3 + "/json_fuzzer"));
  EXPECT_TRUE(std::filesystem::exists(builds + "/" + *id2 + "/json_fuzzer"));
  EXPECT_FALSE(std::filesystem::exists(builds + "/" + *id1));
}

TEST_F(BuildPushTest, APushCreatesItsCampaignAndRefusesAnotherTarget) {
  Start();
  const std::string build = WriteBuild("png_fuzzer", 5000, 4);
  Result<std::string> id = PushBuildStream(client_, "png", "png_fuzzer", build);
  ASSERT_TRUE(id.ok()) << id.status().message();
  auto list = node_->Call<CampaignsReply>(ListCampaignsRequest{}, kStreamTimeoutMs);
  ASSERT_TRUE(list.ok());
  bool found = false;
  for (const CampaignSummary& c : list->campaigns) {
    if (c.name != "png") continue;
    found = true;
    EXPECT_EQ(c.target, "png_fuzzer");
    EXPECT_EQ(c.assigned_build, *id);
  }
  EXPECT_TRUE(found);
  // "json" is json_fuzzer's (node-a registered it): another target is refused, and
  // nothing is assigned.
  Result<std::string> other = PushBuildStream(client_, "json", "png_fuzzer", build);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("is for target 'json_fuzzer'"), std::string::npos)
      << other.status().message();
  EXPECT_EQ(Assigned(), "");
}

TEST_F(BuildPushTest, BytesThatAreNotTheBuildIdAndStrayRecordsAssignNothing) {
  Start();
  const std::string build = WriteBuild("json_fuzzer", 3000, 5);
  // The id of other bytes: a push damaged or changed on the way.
  Result<PushResult> wrong = RunBuildPush("0000000000000000", {{"json_fuzzer", "bytes"}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("not 0000000000000000"), std::string::npos)
      << wrong.status().message();
  // Two records, or one of another name.
  const std::string bytes = ::pollen::testing::ReadFile(build);
  const std::string id = BuildId(bytes);
  Result<PushResult> two = RunBuildPush(id, {{"json_fuzzer", bytes}, {"zz", "x"}});
  ASSERT_FALSE(two.ok());
  Result<PushResult> renamed = RunBuildPush(id, {{"other", bytes}});
  ASSERT_FALSE(renamed.ok());
  EXPECT_NE(renamed.status().message().find("one record, named by the target"), std::string::npos)
      << renamed.status().message();
  EXPECT_EQ(Assigned(), "");
  // A build id that is not 16 hex digits is refused by the codec.
  Result<PushResult> bad_id = RunBuildPush("../../etc/passwd", {{"json_fuzzer", bytes}});
  ASSERT_FALSE(bad_id.ok());
  EXPECT_EQ(Assigned(), "");
  // And a good push still works afterwards.
  Result<PushResult> good = RunBuildPush(id, {{"json_fuzzer", bytes}});
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(Assigned(), id);
}

}  // namespace
}  // namespace pollen::controller
