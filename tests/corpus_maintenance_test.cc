// pollen corpus import|export|merge|compact, end to end with real fuzzing runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;

CommandResult Pollen(std::vector<std::string> args) {
  args.insert(args.begin(), PollenBin());
  return RunCommand(args, 300);
}

TEST(CorpusMaintenanceTest, ExportImportMergeCompact) {
  std::string dir = MakeTempDir();
  std::string target = TestTarget("no_bug");
  long entries[2];
  for (int i = 0; i < 2; i++) {
    CommandResult r =
        Pollen({"fuzz", target, "--workers=1", "--runs=30000", "--seed=" + std::to_string(i + 1),
                "--workdir=" + dir + "/w" + std::to_string(i)});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    entries[i] = NumberAfter(r.output, R"(corpus:\s+(\d+) entries)");
    ASSERT_GT(entries[i], 1);
  }
  // Export in each format, import back: the same number of entries each time.
  for (const char* format : {"libfuzzer", "afl", "go"}) {
    std::string out = dir + "/export-" + format;
    CommandResult ex =
        Pollen({"corpus", "export", dir + "/w0", out, std::string("--format=") + format});
    ASSERT_EQ(ex.exit_code, 0) << ex.output;
    CommandResult im =
        Pollen({"corpus", "import", dir + "/import-" + format, out, "--target=" + target});
    ASSERT_EQ(im.exit_code, 0) << im.output;
    EXPECT_EQ(NumberAfter(im.output, R"(imported (\d+) inputs)"), entries[0])
        << format << im.output;
  }
  // Merge a directory and a store: fewer entries than both together, none failed.
  CommandResult merge = Pollen({"corpus", "merge", dir + "/merged", dir + "/export-libfuzzer",
                                dir + "/w1", "--target=" + target});
  ASSERT_EQ(merge.exit_code, 0) << merge.output;
  long kept = NumberAfter(merge.output, R"(kept by (\d+) entries)");
  EXPECT_GT(kept, 0) << merge.output;
  EXPECT_LT(kept, entries[0] + entries[1]) << merge.output;
  EXPECT_THAT(merge.output, HasSubstr(", 0 failed"));
  CommandResult stats = Pollen({"corpus", "stats", dir + "/merged"});
  ASSERT_EQ(stats.exit_code, 0) << stats.output;
  EXPECT_EQ(NumberAfter(stats.output, R"(entries:\s+(\d+))"), kept) << stats.output;

  // Merging the other run's store into the first one's supersedes entries; compact drops them.
  CommandResult into = Pollen({"corpus", "merge", dir + "/w0", dir + "/w1", "--target=" + target});
  ASSERT_EQ(into.exit_code, 0) << into.output;
  long superseded = NumberAfter(into.output, R"((\d+) superseded)");
  // NumberAfter gives -1 when its pattern does not match: both counts must be there.
  ASSERT_GE(superseded, 0) << into.output;
  CommandResult compact = Pollen({"corpus", "compact", dir + "/w0"});
  ASSERT_EQ(compact.exit_code, 0) << compact.output;
  long removed = NumberAfter(compact.output, R"(compacted: (\d+) entries removed)");
  ASSERT_GE(removed, 0) << compact.output;
  EXPECT_EQ(removed, superseded) << compact.output;
}

TEST(CorpusMaintenanceTest, MergeRecordsInputsThatCrash) {
  std::string dir = MakeTempDir();
  RunCommand({"/bin/mkdir", "-p", dir + "/in"}, 10);
  WriteFile(dir + "/in/ok", "hello");
  WriteFile(dir + "/in/crasher", "HI!");
  CommandResult merge =
      Pollen({"corpus", "merge", dir + "/m", dir + "/in", "--target=" + Example("shallow_crash")});
  ASSERT_EQ(merge.exit_code, 0) << merge.output;
  EXPECT_THAT(merge.output, HasSubstr("1 failed"));
  EXPECT_THAT(merge.output, HasSubstr("skipped 1 input that failed: SEGV"));
  CommandResult crashes = Pollen({"corpus", "ls", dir + "/m", "--crashes"});
  ASSERT_EQ(crashes.exit_code, 0) << crashes.output;
  EXPECT_THAT(crashes.output, HasSubstr("SEGV"));
}

TEST(CorpusMaintenanceTest, ClearErrors) {
  std::string dir = MakeTempDir();
  CommandResult no_target = Pollen({"corpus", "merge", dir + "/m", dir});
  EXPECT_EQ(no_target.exit_code, 2);
  EXPECT_THAT(no_target.output, HasSubstr("needs --target"));
  CommandResult no_store = Pollen({"corpus", "import", dir + "/none", dir});
  EXPECT_EQ(no_store.exit_code, 2);
  EXPECT_THAT(no_store.output, HasSubstr("give --target=BINARY"));
  WriteFile(dir + "/bad", "go test fuzz v1\nint(5)\n");
  CommandResult bad_go = Pollen(
      {"corpus", "import", dir + "/s", dir, "--format=go", "--target=" + TestTarget("no_bug")});
  EXPECT_EQ(bad_go.exit_code, 2);
  EXPECT_THAT(bad_go.output, HasSubstr("bad"));
  CommandResult bad_format = Pollen({"corpus", "export", dir + "/s", dir + "/o", "--format=zip"});
  EXPECT_EQ(bad_format.exit_code, 2);
}

}  // namespace
}  // namespace pollen::testing
