// The nightly's reports in the controller: the codec's checks of putReport, and the store
// (a night replaced whole; every night, one night, the newest; resumed pulls).
#include "controller/report_store.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "controller/client/controller_codec.h"
#include "controller/client/record_names.h"
#include "controller/controller_test_util.h"

namespace pollen::controller {
namespace {

using testing::TempDir;

std::map<std::string, std::string> ReadAll(transfer::RecordSource& source) {
  std::map<std::string, std::string> out;
  std::string name, data;
  while (true) {
    Result<bool> next = source.Next(&name, &data);
    EXPECT_TRUE(next.ok());
    if (!next.ok() || !*next) return out;
    out[name] = data;
  }
}

TEST(ReportStoreTest, ANightIsReplacedWholeAndReadByNightLatestOrAll) {
  TempDir dir;
  auto db = RegistryDb::Open(dir.path() + "/registry").value();
  ReportStore store(db.get());
  ASSERT_TRUE(store.Put({"json", "2026-11-01", {{"report.md", "one"}, {"extra.txt", "x"}}}).ok());
  ASSERT_TRUE(store.Put({"json", "2026-11-02", {{"report.md", "two"}}}).ok());
  ASSERT_TRUE(store.Put({"json", "2026-11-01", {{"report.md", "one again"}}}).ok());
  ASSERT_TRUE(store.Put({"other", "2026-11-03", {{"report.md", "not json's"}}}).ok());

  auto all = store.Open("json", "", "");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(ReadAll(**all),
            (std::map<std::string, std::string>{{"2026-11-01/report.md", "one again"},
                                                {"2026-11-02/report.md", "two"}}));
  auto latest = store.Open("json", "latest", "");
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(ReadAll(**latest),
            (std::map<std::string, std::string>{{"2026-11-02/report.md", "two"}}));
  auto one = store.Open("json", "2026-11-01", "");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(ReadAll(**one),
            (std::map<std::string, std::string>{{"2026-11-01/report.md", "one again"}}));
  auto resumed = store.Open("json", "", "2026-11-01/report.md");
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(ReadAll(**resumed),
            (std::map<std::string, std::string>{{"2026-11-02/report.md", "two"}}));
  auto none = store.Open("nothing", "latest", "");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(ReadAll(**none).empty());
}

TEST(ReportStoreTest, TheOldestNightsGoBeyondTheLimit) {
  TempDir dir;
  auto db = RegistryDb::Open(dir.path() + "/registry").value();
  ReportStore store(db.get());
  char night[16];
  for (size_t i = 0; i < ReportStore::kMaxNights + 2; i++) {
    std::snprintf(night, sizeof(night), "%04zu-01-01", 1000 + i);
    ASSERT_TRUE(store.Put({"json", night, {{"report.md", "x"}, {"report.json", "{}"}}}).ok());
  }
  auto all = store.Open("json", "", "");
  ASSERT_TRUE(all.ok());
  std::map<std::string, std::string> kept = ReadAll(**all);
  EXPECT_EQ(kept.size(), 2 * ReportStore::kMaxNights);
  EXPECT_EQ(kept.begin()->first, "1002-01-01/report.json");
  std::snprintf(night, sizeof(night), "%04zu-01-01", 1000 + ReportStore::kMaxNights + 1);
  EXPECT_EQ(kept.rbegin()->first, std::string(night) + "/report.md");
}

TEST(ReportStoreTest, TheCodecRefusesBadNightsNamesAndTooManyFiles) {
  ControllerLimits limits;
  ControllerCodec codec(limits);
  auto refused = [&](const PutReportRequest& request) {
    std::vector<uint8_t> bytes = ControllerCodec::EncodeRequest(1, request);
    auto decoded = codec.DecodeRequest(bytes.data(), bytes.size());
    return std::holds_alternative<DecodeError>(decoded);
  };
  EXPECT_FALSE(refused({"json", "2026-11-01", {{"report.md", "x"}}}));
  EXPECT_TRUE(refused({"json", "2026-13-01", {{"report.md", "x"}}}));
  EXPECT_TRUE(refused({"json", "../etc", {{"report.md", "x"}}}));
  EXPECT_TRUE(refused({"../x", "2026-11-01", {{"report.md", "x"}}}));
  EXPECT_TRUE(refused({"json", "2026-11-01", {{"../report.md", "x"}}}));
  EXPECT_TRUE(refused({"json", "2026-11-01", {{"a/b", "x"}}}));
  EXPECT_TRUE(refused({"json", "2026-11-01", {{std::string(65, 'a'), "x"}}}));
  std::vector<ReportFile> many(kMaxReportFiles + 1, ReportFile{"f", "x"});
  EXPECT_TRUE(refused({"json", "2026-11-01", many}));
}

TEST(ReportStoreTest, ReportResourcesParseAndBadOnesAreRefused) {
  Result<ParsedResource> all = ParseResource(ReportsResource("json"));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->kind, ParsedResource::Kind::kReports);
  EXPECT_EQ(all->night, "");
  EXPECT_EQ(ParseResource("reports/json/latest")->night, "latest");
  EXPECT_EQ(ParseResource("reports/json/2026-11-01")->night, "2026-11-01");
  EXPECT_FALSE(ParseResource("reports/json/yesterday").ok());
  EXPECT_FALSE(ParseResource("reports/../x").ok());
}

}  // namespace
}  // namespace pollen::controller
