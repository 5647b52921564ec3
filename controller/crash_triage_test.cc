#include "controller/crash_triage.h"

#include <gtest/gtest.h>

#include "controller/controller_test_util.h"

namespace pollen::controller {
namespace {

using testing::TempDir;

constexpr uint64_t kRetryMs = 60000;

class CrashTriageTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    triage_.reset();
    store_.reset();
    db_.reset();
    db_ = RegistryDb::Open(dir_.path() + "/registry").value();
    store_ = storage::CorpusStore::Open(dir_.path() + "/store", {"t", "b"}, {}).value();
    triage_ = CrashTriage::Load(store_.get(), db_.get(), "x/c/b/", kRetryMs).value();
  }

  static CrashRequest Crash(const std::string& node, const std::string& input,
                            bool minimized = false, const std::string& signature = "sig-1") {
    return CrashRequest{node,
                        signature,
                        "heap-buffer-overflow",
                        std::vector<uint8_t>(input.begin(), input.end()),
                        "report of " + input,
                        minimized};
  }

  TempDir dir_;
  std::unique_ptr<RegistryDb> db_;
  std::unique_ptr<storage::CorpusStore> store_;
  std::unique_ptr<CrashTriage> triage_;
};

TEST_F(CrashTriageTest, OneCrashFromTwoNodesIsOneEntryCountedTwiceWithTheSmallerInput) {
  CrashReply first = triage_->Report(Crash("n1", "0123456789"), 100).value();
  EXPECT_TRUE(first.new_signature);
  EXPECT_EQ(first.count, 1u);
  CrashReply second = triage_->Report(Crash("n2", "01234"), 200).value();
  EXPECT_FALSE(second.new_signature);
  EXPECT_EQ(second.count, 2u);
  EXPECT_FALSE(second.minimized);

  CrashListReply list = triage_->List("", 1 << 20).value();
  ASSERT_EQ(list.crashes.size(), 1u);
  const CrashSummary& s = list.crashes[0];
  EXPECT_EQ(s.signature, "sig-1");
  EXPECT_EQ(s.count, 2u);
  EXPECT_EQ(s.input_size, 5u);
  EXPECT_EQ(s.nodes, 2u);
  EXPECT_EQ(s.first_seen_unix_ms, 100);
  EXPECT_EQ(s.last_seen_unix_ms, 200);
  CrashDetailReply detail = triage_->Get("sig-1").value().value();
  EXPECT_EQ(std::string(detail.input.begin(), detail.input.end()), "01234");
  EXPECT_EQ(detail.report, "report of 01234");
  EXPECT_EQ(triage_->size(), 1u);
  EXPECT_FALSE(triage_->Get("unknown").value().has_value());
}

TEST_F(CrashTriageTest, MinimizationIsAskedOfAReporterUntilAMinimizedReproducerComes) {
  ASSERT_TRUE(triage_->Report(Crash("n1", "0123456789"), 1).ok());
  ASSERT_TRUE(triage_->Report(Crash("n2", "012345678"), 2).ok());
  EXPECT_TRUE(triage_->MinimizeWanted("n3", 1000, 4).empty());  // did not report it
  EXPECT_EQ(triage_->MinimizeWanted("n1", 1000, 4), (std::vector<std::string>{"sig-1"}));
  EXPECT_TRUE(triage_->MinimizeWanted("n2", 1001, 4).empty());  // asked of n1 already
  EXPECT_TRUE(triage_->MinimizeWanted("n1", 1000 + kRetryMs - 1, 4).empty());
  EXPECT_EQ(triage_->MinimizeWanted("n2", 1000 + kRetryMs, 4).size(), 1u);  // no answer: again

  CrashReply minimized = triage_->Report(Crash("n1", "01", true), 3).value();
  EXPECT_TRUE(minimized.minimized);
  EXPECT_EQ(minimized.count, 2u);  // an answer to the request: no new occurrence
  EXPECT_TRUE(triage_->MinimizeWanted("n1", 10 * kRetryMs, 4).empty());
  EXPECT_TRUE(triage_->List("", 1 << 20).value().crashes[0].minimized);
}

TEST_F(CrashTriageTest, AMinimizedAnswerReplacesTheReproducerWithoutCountingAgain) {
  ASSERT_TRUE(triage_->Report(Crash("n1", "0123456789"), 100).ok());
  ASSERT_TRUE(triage_->Report(Crash("n2", "012345678"), 200).ok());
  CrashReply answer = triage_->Report(Crash("n1", "01", /*minimized=*/true), 300).value();
  EXPECT_EQ(answer.count, 2u);
  EXPECT_TRUE(answer.minimized);
  const CrashSummary s = triage_->List("", 1 << 20).value().crashes.at(0);
  EXPECT_EQ(s.count, 2u);
  EXPECT_EQ(s.input_size, 2u);
  EXPECT_EQ(s.first_seen_unix_ms, 100);
  EXPECT_EQ(s.last_seen_unix_ms, 200);
  EXPECT_TRUE(s.minimized);
  // A larger minimized answer keeps the smaller reproducer, and counts nothing either.
  EXPECT_EQ(triage_->Report(Crash("n2", "0123", true), 400).value().count, 2u);
  EXPECT_EQ(triage_->List("", 1 << 20).value().crashes.at(0).input_size, 2u);
  // A minimized report from a node that had not reported it is a new occurrence.
  EXPECT_EQ(triage_->Report(Crash("n3", "0", true), 500).value().count, 3u);
}

TEST_F(CrashTriageTest, ReloadedItKeepsCountsReportersAndMinimization) {
  ASSERT_TRUE(triage_->Report(Crash("n1", "0123"), 1).ok());
  ASSERT_TRUE(triage_->Report(Crash("n2", "012", true), 2).ok());
  ASSERT_TRUE(triage_->Report(Crash("n1", "abcdef", false, "sig-2"), 3).ok());
  Open();
  EXPECT_EQ(triage_->size(), 2u);
  CrashListReply list = triage_->List("", 1 << 20).value();
  ASSERT_EQ(list.crashes.size(), 2u);
  EXPECT_EQ(list.crashes[0].count, 2u);
  EXPECT_EQ(list.crashes[0].nodes, 2u);
  EXPECT_TRUE(list.crashes[0].minimized);
  EXPECT_FALSE(list.crashes[1].minimized);
  EXPECT_EQ(triage_->MinimizeWanted("n1", 5, 4), (std::vector<std::string>{"sig-2"}));
  EXPECT_EQ(triage_->Report(Crash("n3", "0"), 4).value().count, 3u);
}

TEST_F(CrashTriageTest, ListsPageBySignature) {
  for (int i = 0; i < 10; i++) {
    ASSERT_TRUE(triage_->Report(Crash("n", "x", false, "sig-" + std::to_string(i)), i).ok());
  }
  // About three summaries per page.
  CrashListReply page = triage_->List("", 3 * 110).value();
  ASSERT_TRUE(page.truncated);
  ASSERT_GE(page.crashes.size(), 1u);
  std::vector<std::string> all;
  while (true) {
    for (const CrashSummary& s : page.crashes) all.push_back(s.signature);
    if (!page.truncated) break;
    page = triage_->List(all.back(), 3 * 110).value();
  }
  ASSERT_EQ(all.size(), 10u);
  for (int i = 0; i < 10; i++) EXPECT_EQ(all[i], "sig-" + std::to_string(i));
}

}  // namespace
}  // namespace pollen::controller
