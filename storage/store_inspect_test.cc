#include "storage/store_inspect.h"

#include <fstream>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "storage/corpus_store.h"
#include "storage/store_test_util.h"

namespace pollen::storage {
namespace {

TEST(StoreInspectTest, ReadsTheRecordedCampaign) {
  ScratchDir dir;
  const std::string path = dir.Sub("store");
  { ASSERT_NE(OpenOrFail(path, {"png_decoder", "build-7"}), nullptr); }
  Result<CampaignId> campaign = ReadStoredCampaign(path);
  ASSERT_TRUE(campaign.ok()) << campaign.status().message();
  EXPECT_EQ(campaign->target, "png_decoder");
  EXPECT_EQ(campaign->build_id, "build-7");
}

TEST(StoreInspectTest, ReadsBesideAWriterAndSeesAnAdoptedBuildId) {
  ScratchDir dir;
  const std::string path = dir.Sub("store");
  { ASSERT_NE(OpenOrFail(path, {"png_decoder", "build-1"}), nullptr); }
  std::unique_ptr<CorpusStore> writer = OpenOrFail(path, {"png_decoder", "build-2"});
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->AdoptBuildId().ok());
  Result<CampaignId> campaign = ReadStoredCampaign(path);
  ASSERT_TRUE(campaign.ok()) << campaign.status().message();
  EXPECT_EQ(campaign->target, "png_decoder");
  EXPECT_EQ(campaign->build_id, "build-2");
  // The writer still writes: the inspection took no lock.
  EXPECT_TRUE(PutText(*writer, "h", "data").ok());
}

TEST(StoreInspectTest, NoStoreIsAClearError) {
  ScratchDir dir;
  ExpectErrorMentions(ReadStoredCampaign(dir.Sub("absent")).status(),
                      {"no corpus store", "absent"});
  ExpectErrorMentions(ReadStoredCampaign(dir.path()).status(), {"no corpus store"});
  std::ofstream(dir.Sub("file.txt")) << "not a store";
  ExpectErrorMentions(ReadStoredCampaign(dir.path()).status(),
                      {dir.path(), "not a pollen corpus store"});
  ExpectErrorMentions(ReadStoredCampaign(dir.Sub("file.txt")).status(), {"not a directory"});
}

}  // namespace
}  // namespace pollen::storage
