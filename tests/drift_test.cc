// The coordinator's drift check (node/drift_check.h), end to end: a worker whose target keeps
// state that makes every later input cover nothing is restarted, and a target without such
// state never is.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "node/drift_check.h"
#include "tests/test_util.h"

namespace pollen::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

long DriftRestarts(const std::string& output) {
  return NumberAfter(output, R"((\d+) worker restarts for drift)");
}

TEST(DriftTest, AWorkerWhoseTargetDriftedIsRestarted) {
  const std::string dir = MakeTempDir();
  fs::create_directories(dir + "/seeds");
  WriteFile(dir + "/seeds/a-deep", "deep");
  WriteFile(dir + "/seeds/b-poison", "poison");
  // 100 executions after "poison", every fuzz request of that worker finds "deep" covering
  // almost nothing.
  CommandResult r =
      RunCommand({PollenBin(), "fuzz", TestTarget("sticky_state"), dir + "/seeds", "--workers=1",
                  "--time=3", "--seed=1", "--workdir=" + dir + "/work"},
                 120);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cover less than half of what they covered"));
  EXPECT_GE(DriftRestarts(r.output), 1) << r.output;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(DriftTest, ATargetWithoutStateIsNeverRestarted) {
  const std::string dir = MakeTempDir();
  fs::create_directories(dir + "/seeds");
  WriteFile(dir + "/seeds/deep", "deep");
  CommandResult r =
      RunCommand({PollenBin(), "fuzz", TestTarget("sticky_state_clean"), dir + "/seeds",
                  "--workers=1", "--runs=300000", "--seed=1", "--workdir=" + dir + "/work"},
                 120);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // The check was armed: an entry with enough features to say something was fuzzed.
  EXPECT_GE(NumberAfter(r.output, R"(INITED\s.*features: (\d+))"),
            static_cast<long>(node::DriftCheck::kMinFeatures))
      << r.output;
  EXPECT_EQ(DriftRestarts(r.output), 0) << r.output;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// Entries that joined while the value profile was on carry its features, which a run with the
// profile off does not have: that is not drift. The first run keeps the profile on and
// stores its corpus with the features it saw; the second resumes it with the profile on auto,
// which stays off (no 5 s without a new edge in so short a run), so every entry run covers
// far less than half of what was recorded, none of it lost to state.
TEST(DriftTest, ValueProfileFeaturesAreNotCountedAsLost) {
  const std::string dir = MakeTempDir();
  fs::create_directories(dir + "/seeds");
  WriteFile(dir + "/seeds/a", "ab");
  const std::string work = "--workdir=" + dir + "/work";
  CommandResult on =
      RunCommand({PollenBin(), "fuzz", TestTarget("many_compares"), dir + "/seeds", "--workers=1",
                  "--runs=20000", "--seed=1", "--use-value-profile=true", work},
                 120);
  ASSERT_EQ(on.exit_code, 0) << on.output;
  ASSERT_GE(NumberAfter(on.output, R"(corpus:\s+(\d+) entries)"), 2) << on.output;
  CommandResult off = RunCommand({PollenBin(), "fuzz", TestTarget("many_compares"), dir + "/seeds",
                                  "--workers=1", "--runs=200000", "--seed=2", work},
                                 120);
  EXPECT_EQ(off.exit_code, 0) << off.output;
  EXPECT_EQ(DriftRestarts(off.output), 0) << off.output;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace pollen::testing
