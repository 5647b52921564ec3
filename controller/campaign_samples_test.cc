// CampaignSamples over a real RegistryDb: a sample a minute, kept across a restart, bounded
// by thinning the older half.
#include "controller/campaign_samples.h"

#include <gtest/gtest.h>

#include "controller/controller_test_util.h"
#include "controller/registry_db.h"

namespace pollen::controller {
namespace {

using testing::TempDir;

StatusReply StatusOf(uint64_t executions) {
  StatusReply reply;
  CampaignStatus a;
  a.name = "json";
  a.executions = executions;
  a.edges = executions / 10;
  a.nodes_alive = 2;
  CampaignStatus b;
  b.name = "png";
  b.crashes = 3;
  reply.campaigns = {a, b};
  return reply;
}

TEST(CampaignSamplesTest, ASampleAMinuteKeptAcrossARestart) {
  TempDir dir;
  auto db = RegistryDb::Open(dir.path() + "/registry").value();
  {
    CampaignSamples samples(db.get());
    ASSERT_TRUE(samples.Load().ok());
    EXPECT_TRUE(samples.Due(1'000'000));
    ASSERT_TRUE(samples.Record(StatusOf(100), 1'000'000).ok());
    EXPECT_FALSE(samples.Due(1'000'000 + CampaignSamples::kEveryMs - 1));
    EXPECT_TRUE(samples.Due(1'000'000 + CampaignSamples::kEveryMs));
    ASSERT_TRUE(samples.Record(StatusOf(200), 1'060'000).ok());
    ASSERT_EQ(samples.Of("json").size(), 2u);
    EXPECT_TRUE(samples.Of("nothing").empty());
  }
  CampaignSamples again(db.get());
  ASSERT_TRUE(again.Load().ok());
  ASSERT_EQ(again.Of("json").size(), 2u);
  EXPECT_EQ(again.Of("json")[0].unix_ms, 1'000'000);
  EXPECT_EQ(again.Of("json")[1].executions, 200u);
  EXPECT_EQ(again.Of("json")[1].edges, 20u);
  EXPECT_EQ(again.Of("json")[1].nodes_alive, 2u);
  EXPECT_EQ(again.Of("png")[0].crashes, 3u);
  EXPECT_FALSE(again.Due(1'060'000 + 1));  // the last sample's time was read back too
  EXPECT_EQ(again.skipped(), 0u);
}

TEST(CampaignSamplesTest, AFullCampaignKeepsItsSpanAtACoarserStep) {
  TempDir dir;
  auto db = RegistryDb::Open(dir.path() + "/registry").value();
  CampaignSamples samples(db.get());
  const size_t n = CampaignSamples::kMaxPerCampaign + 1;
  for (size_t i = 0; i < n; i++) {
    ASSERT_TRUE(samples.Record(StatusOf(i), static_cast<int64_t>(i) * 60000).ok());
  }
  const std::vector<CampaignSample>& kept = samples.Of("json");
  EXPECT_LE(kept.size(), CampaignSamples::kMaxPerCampaign);
  EXPECT_GE(kept.size(), CampaignSamples::kMaxPerCampaign * 3 / 4);
  EXPECT_EQ(kept.front().unix_ms, 0);  // the span is whole: its first and last samples stay
  EXPECT_EQ(kept.back().unix_ms, static_cast<int64_t>(n - 1) * 60000);
  for (size_t i = 1; i < kept.size(); i++) ASSERT_LT(kept[i - 1].unix_ms, kept[i].unix_ms);
  // What was dropped is gone from the database too.
  CampaignSamples again(db.get());
  ASSERT_TRUE(again.Load().ok());
  EXPECT_EQ(again.Of("json"), kept);
}

TEST(CampaignSamplesTest, UnreadableRecordsAreSkippedAndCounted) {
  TempDir dir;
  auto db = RegistryDb::Open(dir.path() + "/registry").value();
  ASSERT_TRUE(db->Put(CampaignSampleKey("json", 60000), EncodeCampaignSample({})).ok());
  ASSERT_TRUE(db->Put(CampaignSampleKey("json", 120000), "1 2 three").ok());
  ASSERT_TRUE(db->Put("sample/json/12", "1 2 3 4 5 6 7 8").ok());
  ASSERT_TRUE(db->Put("sample/json", "1 2 3 4 5 6 7 8").ok());
  CampaignSamples samples(db.get());
  ASSERT_TRUE(samples.Load().ok());
  EXPECT_EQ(samples.Of("json").size(), 1u);
  EXPECT_EQ(samples.skipped(), 3u);
}

TEST(CampaignSamplesTest, RecordsRoundTrip) {
  CampaignSample s{1, 2, 3, 4, 5, 6, 7, 8, 9};
  CampaignSample back;
  ASSERT_TRUE(DecodeCampaignSample(EncodeCampaignSample(s), &back));
  back.unix_ms = s.unix_ms;  // the key holds the time, not the value
  EXPECT_EQ(back, s);
  EXPECT_FALSE(DecodeCampaignSample("", &back));
  EXPECT_FALSE(DecodeCampaignSample("1 2 3 4 5 6 7 8 9", &back));  // one too many
  EXPECT_FALSE(DecodeCampaignSample("1 2 3 4 5 6 7 x", &back));
}

}  // namespace
}  // namespace pollen::controller
