// Every planted bug of examples/ is found within a bounded number of executions with a
// fixed seed, saved as an artifact of the right kind, and reproduced by `pollen repro`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;

struct Planted {
  const char* example;
  const char* kind;    // what repro must print after "FAILURE "
  const char* prefix;  // artifact file name prefix
  uint64_t max_runs;   // the bound on executions
  std::vector<std::string> flags;
};

void PrintTo(const Planted& p, std::ostream* os) { *os << p.example; }

class PlantedBugTest : public ::testing::TestWithParam<Planted> {};

TEST_P(PlantedBugTest, FoundWithinBoundAndReproduced) {
  const Planted& p = GetParam();
  std::string dir = MakeTempDir();
  std::vector<std::string> argv{PollenBin(),        "fuzz",
                                Example(p.example), "--workers=1",
                                "--seed=7",         "--runs=" + std::to_string(p.max_runs),
                                "--workdir=" + dir, "--minimize-time=10"};
  argv.insert(argv.end(), p.flags.begin(), p.flags.end());
  CommandResult fuzz = RunCommand(argv, 600);
  ASSERT_FALSE(fuzz.timed_out) << fuzz.output;
  EXPECT_EQ(fuzz.exit_code, 1) << fuzz.output;
  std::vector<std::string> found = ArtifactInputs(dir + "/crashes", p.prefix);
  ASSERT_EQ(found.size(), 1u) << fuzz.output;
  EXPECT_THAT(ReadFile(found[0] + ".txt"), HasSubstr(std::string("kind: ") + p.kind));

  std::vector<std::string> repro_argv{PollenBin(), "repro", Example(p.example), found[0]};
  repro_argv.insert(repro_argv.end(), p.flags.begin(), p.flags.end());
  CommandResult repro = RunCommand(repro_argv, 120);
  EXPECT_EQ(repro.exit_code, 1) << repro.output;
  EXPECT_THAT(repro.output, HasSubstr(std::string("FAILURE ") + p.kind)) << repro.output;
}

INSTANTIATE_TEST_SUITE_P(
    Examples, PlantedBugTest,
    ::testing::Values(Planted{"shallow_crash", "SEGV", "crash", 2000000, {}},
                      Planted{"magic4", "ILL", "crash", 2000000, {}},
                      Planted{"magic8", "ILL", "crash", 2000000, {}},
                      Planted{"keyword", "SEGV", "crash", 20000000, {}},
                      Planted{"hang", "timeout", "timeout", 2000000, {"--timeout=1"}},
                      Planted{"oom", "oom", "oom", 2000000, {"--rss-limit-mb=300"}},
                      Planted{"exception", "uncaught-exception", "crash", 2000000, {}},
                      Planted{"exit_call", "exit", "crash", 2000000, {}},
                      Planted{"heap_overflow", "heap-buffer-overflow", "crash", 2000000, {}}),
    [](const ::testing::TestParamInfo<Planted>& info) { return std::string(info.param.example); });

}  // namespace
}  // namespace pollen::testing
