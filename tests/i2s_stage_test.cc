// The input-to-state stage (engine/i2s_stage.h), end to end: a magic whose compared pair the
// mutations' cmp table has lost by the end of each run, in a field whose value is all
// over the seed, is found by the stage (its colorization places it), and not without it in
// the same number of executions. The same magic compared at a site of its own is kept by the
// table's section by site, and found without the stage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

CommandResult FuzzBuriedMagic(const std::string& dir, bool stage,
                              const std::string& target = "buried_magic") {
  fs::create_directories(dir + "/seeds");
  WriteFile(dir + "/seeds/a", std::string(64, 'A'));
  return RunCommand(
      {PollenBin(), "fuzz", TestTarget(target), dir + "/seeds", "--workers=1", "--runs=30000",
       "--seed=1", "--minimize-time=1", std::string("--i2s-stage=") + (stage ? "true" : "false"),
       "--workdir=" + dir + "/work"},
      120);
}

TEST(InputToStateStageTest, FindsAMagicTheRollingWindowLost) {
  const std::string dir = MakeTempDir();
  CommandResult r = FuzzBuriedMagic(dir, true);
  EXPECT_EQ(r.exit_code, 1) << r.output;  // the trap
  EXPECT_THAT(r.output, HasSubstr("FAILURE"));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(InputToStateStageTest, WithoutTheStageTheMagicStaysHidden) {
  const std::string dir = MakeTempDir();
  CommandResult r = FuzzBuriedMagic(dir, false);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(NumberAfter(r.output, R"(input-to-state stages: (\d+) runs)"), 0) << r.output;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(InputToStateStageTest, TheSectionBySiteKeepsAnEarlyMagicWithoutTheStage) {
  const std::string dir = MakeTempDir();
  CommandResult r = FuzzBuriedMagic(dir, false, "early_magic");
  EXPECT_EQ(r.exit_code, 1) << r.output;  // the trap
  EXPECT_THAT(r.output, HasSubstr("FAILURE"));
  EXPECT_EQ(NumberAfter(r.output, R"(input-to-state stages: (\d+) runs)"), 0) << r.output;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace pollen::testing
